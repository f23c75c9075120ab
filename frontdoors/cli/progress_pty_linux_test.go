//go:build linux

package cli

// The board through a real pseudo-terminal: a helper process (this test binary, started again) runs
// the progress writer on its own stderr with the process's own streams (SystemIO), so whether it is a
// terminal, its size and the environment are asked as abcd asks them, and the test reads the raw
// bytes the terminal got. The pair is opened with ioctls on /dev/ptmx (TIOCSPTLCK, TIOCGPTN), as
// the C library's posix_openpt does: no dependency and no outside tool (python3, script) that a
// machine running the tests may lack.

import (
	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"
)

const boardHelperVar = "ABCD_BOARD_HELPER"

// TestBoardHelperProcess is the helper: it plays boardScript on a Progress over the process's own
// streams, its clock moved by the script, and halfway the terminal made narrower, as a person
// resizing it would. Run by the tests below alone.
func TestBoardHelperProcess(t *testing.T) {
	if os.Getenv(boardHelperVar) == "" {
		t.Skip("the helper of the pseudo-terminal tests, run by them")
	}
	p := NewProgress(SystemIO(os.Getenv))
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.every = time.Hour // the frames are the script's alone
	for i, ev := range boardScript() {
		if i == 12 && p.s.ErrLive {
			assert.NilError(t, abcdtest.SetSize(os.Stderr, 60, 20))
		}
		now = now.Add(ev.after)
		p.Event(ev.ProgressEvent)
	}
	p.Done()
	os.Exit(0) // nothing of the test framework's on the streams
}

// helperStderr runs the helper with env, its stdout on a terminal of its own and its stderr on
// errFile, and returns what reached stderr's other end, read from read until the helper is gone.
func helperStderr(t *testing.T, env []string, errFile *os.File, read io.Reader) []byte {
	t.Helper()
	outMaster, outSlave := openPTY(t, 72, 20)
	return helperStreams(t, env, outSlave, outMaster, errFile, read)
}

// helperStreams runs the helper with env, its stdout on outFile and its stderr on errFile, and
// returns what reached stderr's other end; the helper writes nothing on stdout.
func helperStreams(t *testing.T, env []string, outFile *os.File, outRead io.Reader, errFile *os.File, read io.Reader) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBoardHelperProcess$", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append(env, boardHelperVar+"=1")...)
	cmd.Stdout, cmd.Stderr = outFile, errFile
	assert.NilError(t, cmd.Start())
	// Only the helper holds the writing ends now, so the readers end when it exits.
	assert.NilError(t, errFile.Close())
	assert.NilError(t, outFile.Close())
	gotErr, gotOut := abcdtest.ReadToEnd(read), abcdtest.ReadToEnd(outRead)
	assert.NilError(t, cmd.Wait())
	var b, out []byte
	for _, c := range []struct {
		ch  <-chan []byte
		got *[]byte
	}{{gotErr, &b}, {gotOut, &out}} {
		select {
		case *c.got = <-c.ch:
		case <-time.After(30 * time.Second):
			t.Fatal("the output never ended")
		}
	}
	assert.Check(t, is.Equal(string(out), ""), "stdout holds the result alone, and the helper has none")
	return b
}

// On a terminal the board is redrawn in place, frame after frame: the cursor moves up over it and
// each line is written again, with the event lines scrolling above it, its lines cut to the
// terminal's width as it is at each redraw (72 columns, then 60), and the board taken away at the
// end. The raw bytes are the golden frames.
func TestTheBoardIsRedrawnInPlaceOnAPseudoTerminal(t *testing.T) {
	master, slave := openPTY(t, 72, 20)
	raw := helperStderr(t, []string{"TERM=xterm-256color"}, slave, master)
	golden.Assert(t, string(raw), "board-pty.golden")
	s := string(raw)
	assert.Check(t, strings.Count(s, "\r\x1b[3A") >= 10, "the board of two lanes is moved over, not one status line")
	assert.Check(t, strings.Count(s, "\r\x1b[4A") >= 3, "and of three")
	assert.Check(t, strings.HasSuffix(s, "abcd: run run-1: only the host's work is left\x1b[K\r\n\x1b[J"), "the board goes with the run")
	escape := regexp.MustCompile(`\r|\x1b\[[0-9?;]*[A-Za-z]`)
	for _, l := range strings.Split(s, "\r\n") {
		if shown := escape.ReplaceAllString(l, ""); !strings.HasPrefix(shown, "abcd: ") {
			assert.Check(t, len([]rune(shown)) <= 71, "%q is wider than the terminal", shown)
		}
	}
	assert.Check(t, is.Contains(s, "lane-2  waiting        1s    $0.00  implementer on cc · waiting for on…\x1b[K"), "72 columns")
	assert.Check(t, is.Contains(s, "lane-2  running     1m06s    $0.00  implementer on cc · ru…\x1b[K"), "59 after the resize to 60")
}

// Off a terminal (a pipe), on one under NO_COLOR or TERM=dumb, and on one whose stdout (the
// result) goes to a pipe, the same run is plain lines, one an event, without one escape byte.
func TestProgressIsPlainLinesOffATerminalOrWhenAsked(t *testing.T) {
	want := string(golden.Get(t, "progress-plain.golden"))
	r, w, err := os.Pipe()
	assert.NilError(t, err)
	defer r.Close()
	assert.Check(t, is.Equal(string(helperStderr(t, []string{"TERM=xterm-256color"}, w, r)), want), "a pipe")
	for _, env := range [][]string{{"TERM=xterm-256color", "NO_COLOR=1"}, {"TERM=dumb"}} {
		master, slave := openPTY(t, 72, 20)
		got := string(helperStderr(t, env, slave, master))
		assert.Check(t, !strings.ContainsRune(got, '\x1b'), "%v: %q", env, got)
		// The terminal's line discipline turns each newline into a carriage return and a newline.
		assert.Check(t, is.Equal(got, strings.ReplaceAll(want, "\n", "\r\n")), "%v", env)
	}
	master, slave := openPTY(t, 72, 20)
	outR, outW, err := os.Pipe()
	assert.NilError(t, err)
	defer outR.Close()
	got := string(helperStreams(t, []string{"TERM=xterm-256color"}, outW, outR, slave, master))
	assert.Check(t, is.Equal(got, strings.ReplaceAll(want, "\n", "\r\n")), "stdout a pipe")
}

// openPTY opens a pseudo-terminal cols wide and rows high: the end the test reads, and the terminal
// a process writes to.
func openPTY(t *testing.T, cols, rows uint16) (master, slave *os.File) {
	t.Helper()
	master, slave, err := abcdtest.OpenPTY(cols, rows)
	assert.NilError(t, err)
	t.Cleanup(func() { assert.Check(t, master.Close()) })
	return master, slave
}
