package abcdtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// OpenPTY opens a pseudo-terminal cols wide and rows high: the end a test reads (master), and the
// terminal a process writes to (slave). It uses ioctls on /dev/ptmx (TIOCSPTLCK, TIOCGPTN), as the C
// library's posix_openpt does: no dependency and no outside tool (python3, script) a machine running
// the tests may lack.
func OpenPTY(cols, rows uint16) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	unlock := int32(0)
	var n uint32
	err = errors.Join(ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)), ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)))
	if err == nil {
		slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err == nil {
		if err = SetSize(master, cols, rows); err != nil {
			err = errors.Join(err, slave.Close())
		}
	}
	if err != nil {
		return nil, nil, errors.Join(err, master.Close())
	}
	return master, slave, nil
}

// SetSize sets a terminal's size, as a person resizing it would.
func SetSize(f *os.File, cols, rows uint16) error {
	ws := struct{ Row, Col, X, Y uint16 }{Row: rows, Col: cols}
	return ioctl(f, syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return fmt.Errorf("ioctl %#x: %w", req, errno)
	}
	return nil
}

// ReadToEnd reads r in the background until it ends, and sends what it read. A terminal's reading
// end says EIO once no process holds its other end: that is its end; any other error is written
// after what was read, for the test to see.
func ReadToEnd(r io.Reader) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		_, err := io.Copy(&b, r)
		if err != nil && !errors.Is(err, syscall.EIO) {
			b.WriteString("\nread: " + err.Error())
		}
		got <- b.Bytes()
	}()
	return got
}
