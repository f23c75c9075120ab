package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Bounds of the sweep: the rounds it looks again in, and the processes it names when some are left.
const (
	sweepRounds = 5
	maxLeftover = 8
)

// sweep kills every process whose environment carries mark: what a CLI started that left its
// process group, which the group's signal does not reach (Claude Code and Codex run their tools'
// shells in sessions of their own and end them themselves, unless they die first; a daemon calls
// setsid). Each process inherits the mark unless it clears its environment. A round that finds one
// looks again, for what it may have started meanwhile. What it could not end (a kill refused, a
// process still there after the last round) it names, at most maxLeftover lines, so the step's
// receipt says so; nil when nothing marked is left.
//
// It cannot see a process that cleared or rewrote its environment, nor one whose environment this
// user may not read (a set-uid program, a process that made itself non-dumpable): those are not
// counted as the step's, since a process of another tree could not be told from them.
func sweep(mark string) []string { return sweepWith(mark, killMarked) }

// sweepWith is sweep with the kill it sends: kill ends pid if it still carries the mark (marked
// says whether it does) and says why it could not.
func sweepWith(mark string, kill func(pid int, marked func() bool) error) []string {
	self := os.Getpid()
	first := []byte(mark + "\x00")
	inner := []byte("\x00" + mark + "\x00")
	carries := func(pid int) bool {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		// gone, a zombie (no environment left), or not this user's: not one of the step's
		return err == nil && (bytes.HasPrefix(env, first) || bytes.Contains(env, inner))
	}
	scan := func() ([]int, error) {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return nil, err
		}
		var pids []int
		for _, e := range entries {
			if pid, err := strconv.Atoi(e.Name()); err == nil && pid != self && carries(pid) {
				pids = append(pids, pid)
			}
		}
		return pids, nil
	}
	refused := map[int]error{}
	for round := 0; ; round++ {
		pids, err := scan()
		if err != nil {
			return []string{fmt.Sprintf("the processes the step started could not be looked for: %v", err)}
		}
		if len(pids) == 0 {
			return nil
		}
		if round == sweepRounds {
			return leftovers(pids, refused)
		}
		for _, pid := range pids {
			if err := kill(pid, func() bool { return carries(pid) }); err != nil && !errors.Is(err, syscall.ESRCH) {
				refused[pid] = err
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leftovers names the processes still there after the last round, and why each was not ended.
func leftovers(pids []int, refused map[int]error) []string {
	var out []string
	for i, pid := range pids {
		if i == maxLeftover {
			out = append(out, fmt.Sprintf("and %d more", len(pids)-maxLeftover))
			break
		}
		if err := refused[pid]; err != nil {
			out = append(out, fmt.Sprintf("pid %d: SIGKILL refused: %v", pid, err))
		} else {
			out = append(out, fmt.Sprintf("pid %d: still running after SIGKILL", pid))
		}
	}
	return out
}
