//go:build linux

package main

// implement run on a terminal: the board of the run's lanes through a real pseudo-terminal (opened
// with ioctls on /dev/ptmx, as frontdoors/cli's pseudo-terminal tests open theirs), the built abcd
// taking a three-lane spec to its end on the fake runners.

import (
	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/loop"
)

// With stderr on a terminal, implement run keeps a board of the lanes below the event lines: the
// cursor moves up over it and it is drawn again at each event, the lanes with their route and spend
// (the fake reports $0.01 a step), the board cut to the terminal's width and taken away when the run
// ends; stdout holds the result alone.
func TestImplementRunKeepsABoardOfTheLanesOnATerminal(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.\n3. (after 1, 2) Part three of the work.")
	w.play(t, w.agents(t)...)
	master, slave := ptyPair(t, 90, 30)
	cmd := exec.Command(binary, "implement", "run", w.spec, "--json")
	cmd.Dir = w.c.dir
	for _, kv := range w.env() {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	// stdout on a terminal of its own: the board is kept only where the person watches both.
	outMaster, outSlave := ptyPair(t, 90, 30)
	cmd.Stdout, cmd.Stderr = outSlave, slave
	assert.NilError(t, cmd.Start())
	assert.NilError(t, slave.Close())
	assert.NilError(t, outSlave.Close())
	gotErr, gotOut := abcdtest.ReadToEnd(master), abcdtest.ReadToEnd(outMaster)
	assert.NilError(t, cmd.Wait())
	var errb, outb []byte
	for _, c := range []struct {
		ch  <-chan []byte
		got *[]byte
	}{{gotErr, &errb}, {gotOut, &outb}} {
		select {
		case *c.got = <-c.ch:
		case <-time.After(60 * time.Second):
			t.Fatal("the terminal's output never ended")
		}
	}
	// The terminal's line discipline turns each newline into a carriage return and a newline.
	errs, stdout := string(errb), strings.ReplaceAll(string(outb), "\r\n", "\n")
	var out loop.ImplementRunResult
	decodeOne(t, stdout, &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)

	// Redrawn in place: the cursor goes up over a board of the header and two lanes, then three.
	assert.Check(t, strings.Count(errs, "\r\x1b[3A") >= 3, "%q", errs)
	assert.Check(t, strings.Count(errs, "\r\x1b[4A") >= 3, "%q", errs)
	assert.Check(t, !strings.Contains(errs, "running 1:"), "no status line")
	assert.Check(t, is.Contains(errs, "abcd run "+out.Run.Run+" · 0/4 lanes done · 2 running · $0.00 spent · "))
	assert.Check(t, regexp.MustCompile(`\nlane-1  (starting|running) +\d+s +\$0\.00  implementer on cc · `).MatchString(errs), "%q", errs)
	assert.Check(t, regexp.MustCompile(`\nlane-1  answered +\d+s +\$0\.01  implementer on cc · `).MatchString(errs), "%q", errs)
	assert.Check(t, regexp.MustCompile(`\nlane-3  (starting|running) +\d+s +\$0\.00  implementer on cc · `).MatchString(errs), "%q", errs)
	assert.Check(t, regexp.MustCompile(`\nintegration  (starting|running) +\d+s +\$0\.00  intent-auditor on rv · `).MatchString(errs), "%q", errs)
	// The event lines scroll above it, and the run's last line stands where the board stood.
	assert.Check(t, is.Contains(errs, "abcd: lane-1 implementer: cc takes the step (round 0)\x1b[K\r\n"))
	// Then the bell (no build.notify is set, and stderr is a terminal): the run is over.
	assert.Check(t, strings.HasSuffix(errs, "abcd: run "+out.Run.Run+": finished\x1b[K\r\n\x1b[J\a"), "%q", errs[max(len(errs)-200, 0):])
	assert.Check(t, is.Equal(strings.Count(errs, "\a"), 1), "one bell")
	escape := regexp.MustCompile(`\r|\x1b\[[0-9?;]*[A-Za-z]`)
	for _, l := range strings.Split(errs, "\r\n") {
		if shown := escape.ReplaceAllString(l, ""); !strings.HasPrefix(shown, "abcd: ") {
			assert.Check(t, len([]rune(shown)) <= 89, "%q is wider than the terminal", shown)
		}
	}
	assert.Check(t, !strings.Contains(stdout+errs, rnCanary), "the canary leaked")
	assert.Check(t, !strings.ContainsRune(stdout, '\x1b'), "stdout holds the result alone")
}

// ptyPair opens a pseudo-terminal cols wide and rows high: the end the test reads, and the terminal
// abcd writes to.
func ptyPair(t *testing.T, cols, rows uint16) (master, slave *os.File) {
	t.Helper()
	master, slave, err := abcdtest.OpenPTY(cols, rows)
	assert.NilError(t, err)
	t.Cleanup(func() { assert.Check(t, master.Close()) })
	return master, slave
}
