//go:build !linux

package cli

import "os"

// isTerminal falls back to the file's mode where the terminal driver is not asked.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminalSize is not asked where the terminal driver is not: the board takes its default size.
func terminalSize(*os.File) (cols, rows int) { return 0, 0 }
