package guard

import (
	_ "embed"
	"sync"
)

//go:generate go run gen_builtin.go

//go:embed builtin.json
var builtinJSON []byte

// BuiltinJSON is the built-in registry as abcd ships it: what builtin_gen.go was generated from, and
// what names this build's rules (the rules' cache keys on it).
func BuiltinJSON() []byte { return builtinJSON }

// builtin is builtin.json as gen_builtin.go wrote it into builtin_gen.go, checked once: the hook
// runs on every tool call, and decoding the JSON there cost it milliseconds.
var builtin = sync.OnceValues(func() (File, error) {
	f := builtinLiteral()
	return f, f.check()
})

// Builtin is the built-in registry, as strictly checked as a repository's file. A fault here is a
// defect in this build; a test holds it at none, and holds it to builtin.json.
func Builtin() (File, error) { return builtin() }
