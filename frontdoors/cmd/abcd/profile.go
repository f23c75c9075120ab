//go:build abcdprofile

package main

import (
	"os"
	"runtime/pprof"
)

// A binary built with -tags abcdprofile (tools/bench does, never `make build`) writes a CPU profile
// of one run to $ABCD_CPUPROFILE, so make bench profiles the very process it times.
func init() {
	p := os.Getenv("ABCD_CPUPROFILE")
	if p == "" {
		return
	}
	f, err := os.Create(p)
	if err != nil {
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return
	}
	atExit = func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
