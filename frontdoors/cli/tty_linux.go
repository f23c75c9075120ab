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

// terminalSize asks the terminal driver for f's columns and rows; 0, 0 when f is not a terminal.
func terminalSize(f *os.File) (cols, rows int) {
	var ws struct{ Row, Col, Xpixel, Ypixel uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0, 0
	}
	return int(ws.Col), int(ws.Row)
}
