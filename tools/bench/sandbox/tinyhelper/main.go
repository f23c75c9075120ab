// Command tinyhelper is the fence's helper and nothing else: the smallest binary that can be one, so
// the sandbox benchmark can say what starting abcd itself as the helper costs beside it.
package main

import (
	"os"

	"github.com/abcd-dev/abcd/adapters/sandbox"
)

func main() {
	sandbox.Helper()
	os.Exit(2) // not started as the helper
}
