// Command abcd-history is the helper that holds abcd's history store: SQLite with its full-text index,
// through a pure-Go driver. abcd runs it beside itself for each store call (one JSON request on stdin,
// one JSON answer on stdout), so the driver is linked here and never into abcd, whose hooks run on
// every prompt and every shell command.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/abcd-dev/abcd/adapters/history"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "abcd-history: abcd runs this helper for its history store; run abcd history instead")
		os.Exit(2)
	}
	if err := history.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "abcd-history:", err)
		os.Exit(1)
	}
}
