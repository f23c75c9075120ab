package runner

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// sweep kills every process whose environment carries mark: what a CLI started that left its
// process group, which the group's signal does not reach (Claude Code and Codex run their tools'
// shells in sessions of their own and end them themselves, unless they die first; a daemon calls
// setsid). Each process inherits the mark unless it clears its environment. A round that finds one
// looks again, for what it may have started meanwhile.
func sweep(mark string) {
	self := os.Getpid()
	first := []byte(mark + "\x00")
	inner := []byte("\x00" + mark + "\x00")
	for round := 0; round < 5; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil { // gone, or not this user's: not one of the step's
				continue
			}
			if bytes.HasPrefix(env, first) || bytes.Contains(env, inner) {
				_ = syscall.Kill(pid, syscall.SIGKILL) // gone meanwhile is as good
				found++
			}
		}
		if found == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
