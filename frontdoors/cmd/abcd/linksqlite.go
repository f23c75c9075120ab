//go:build abcdlinksqlite

package main

// A binary built with -tags abcdlinksqlite (tools/bench/history does, never make build) links the
// history store's database driver into abcd itself, to measure what keeping it in the helper saves
// abcd's start.
import _ "modernc.org/sqlite"
