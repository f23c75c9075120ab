//go:build !linux

// Command sandbox measures the fence's set-up cost per step on Linux, where the fence is built; here
// it writes a section that says so.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

func main() {
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	fmt.Println("the sandbox is built on Linux only: nothing to measure here")
	if err := benchkit.WriteSection(*md, "## The sandbox\n\nNot measured: `make bench` ran off Linux, where abcd builds no fence.\n\n"); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox bench:", err)
		os.Exit(1) //nolint:forbidigo // the program's main (off Linux: main.go is Linux's) decides its exit code
	}
}
