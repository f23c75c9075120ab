//go:build unix

package main

import (
	"syscall"
	"time"
)

// childCPU is the CPU time (user and system) of every child this process has waited for, and of
// theirs: the difference across a batch is what the batch's processes used, whatever else the
// machine was doing.
func childCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
