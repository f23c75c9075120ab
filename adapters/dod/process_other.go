//go:build unix && !linux

package dod

import "syscall"

func dieWithParent(*syscall.SysProcAttr) {}
