//go:build unix

package dod

import "syscall"

var syscallZero = syscall.Signal(0)
