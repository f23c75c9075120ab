package dod

import "syscall"

// dieWithParent ends the shell when abcd dies, so a killed step leaves no build running.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
