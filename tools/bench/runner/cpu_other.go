//go:build !unix

package main

import "time"

// childCPU is not measured where the system does not report its children's CPU time.
func childCPU() (time.Duration, error) { return 0, nil }
