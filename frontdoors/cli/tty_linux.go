package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal asks the terminal driver, since a character device such as /dev/null is not a person.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
