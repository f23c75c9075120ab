package system

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Self is how another program (git, running the record's merge driver) can run this abcd again:
// "abcd" where PATH finds this very binary, so the setting survives an upgrade in place; else the
// binary's absolute path, quoted for the shell git runs drivers with. A binary `go run` built in a
// temporary folder is gone after the run, so it is named "abcd" too.
func Self() string {
	exe, err := os.Executable()
	if err != nil {
		return "abcd"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if onPath, err := exec.LookPath("abcd"); err == nil {
		if real, err := filepath.EvalSymlinks(onPath); err == nil {
			a, errA := os.Stat(real)
			b, errB := os.Stat(exe)
			if errA == nil && errB == nil && os.SameFile(a, b) {
				return "abcd"
			}
		}
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "abcd"
	}
	return shellQuote(exe)
}

// shellQuote quotes s for sh when it holds anything but plain path characters.
func shellQuote(s string) string {
	plain := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+@:", r))
	}) < 0
	if plain && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
