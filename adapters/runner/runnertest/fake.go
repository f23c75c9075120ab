package runnertest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The fake CLI is the test binary itself, started again by the adapter as a runner's executable: a
// test's TestMain calls FakeMain first, which acts as the CLI when the script variable is set. It
// replays a script of directives, one JSON object a line, so every fault a real CLI cannot be made
// to produce on demand can be.

// ScriptVar names the script file, or holds the script itself after InlinePrefix (a fake inside the
// sandbox cannot read a file under the hidden /tmp); a runner's pass_env names it so it reaches the
// fake.
const ScriptVar = "FAKE_CLI_SCRIPT"

// InlinePrefix starts a ScriptVar value that is the script itself, not a file's path.
const InlinePrefix = "inline:"

// HelpDumpVar names a file the fake writes its environment to when asked for --help.
const HelpDumpVar = "FAKE_CLI_HELP_DUMP"

// grandchildVar makes the binary a grandchild that ignores SIGTERM and sleeps, writing its pid.
const grandchildVar = "FAKE_CLI_GRANDCHILD"

// Directive is one step of a script.
type Directive struct {
	// Out writes one line (a newline is added); Raw writes bytes as they are.
	Out string `json:"out,omitempty"`
	Raw string `json:"raw,omitempty"`
	// Pad writes a JSON line {"type":"pad","pad":"xxx..."} of Pad bytes; Lines writes that many
	// 1 MiB such lines.
	Pad   int `json:"pad,omitempty"`
	Lines int `json:"lines,omitempty"`
	// SleepMS waits; Hang waits for ever.
	SleepMS int  `json:"sleep_ms,omitempty"`
	Hang    bool `json:"hang,omitempty"`
	// IgnoreTerm makes the fake ignore SIGTERM from here on.
	IgnoreTerm bool `json:"ignore_term,omitempty"`
	// Grandchild starts a child of the fake that ignores SIGTERM and sleeps, writing its pid to the
	// file named.
	Grandchild string `json:"grandchild,omitempty"`
	// Detached is Grandchild in a session of its own: it leaves the fake's process group, as a CLI's
	// tool shell or a daemon does.
	Detached string `json:"detached,omitempty"`
	// Dump writes the fake's environment, arguments and stdin to the file named, as JSON.
	Dump string `json:"dump,omitempty"`
	// Exit ends the fake with this code; ExitZero ends it with 0.
	Exit     int  `json:"exit,omitempty"`
	ExitZero bool `json:"exit_zero,omitempty"`
	// Signal kills the fake with the named signal (KILL, SEGV).
	Signal string `json:"signal,omitempty"`
	// Write writes Content to the file named (relative to the folder the fake works in), as an
	// implementer's edit would; Run runs a command there (a stray commit, an edited hook).
	Write   string   `json:"write,omitempty"`
	Content string   `json:"content,omitempty"`
	Run     []string `json:"run,omitempty"`
	// Tell sends what Run writes to its stdout to the TCP address named, one connection (a test's
	// listener, outside the sandbox: one of the runner's endpoints, the only way out it has).
	Tell string `json:"tell,omitempty"`
	// When makes the directive apply only when the prompt on stdin contains every text it lists, so
	// one script can play several roles (an implementer's brief, a reviewer's request).
	When []string `json:"when,omitempty"`
	// SessionStart loads abcd's settings as the CLI it names (claude, codex, gemini) does and runs
	// their start-up hooks (hooks.go); what that CLI writes of them goes with the next Out line:
	// Claude Code's hook events before it, Gemini CLI's first user message after it.
	SessionStart string `json:"session_start,omitempty"`
}

// Dump is what a Dump directive wrote.
type Dump struct {
	Env   []string `json:"env"`
	Args  []string `json:"args"`
	Stdin string   `json:"stdin"`
	Dir   string   `json:"dir"`
}

// FakeMain acts as the fake CLI when the script variable is set, and returns otherwise. --version
// prints FAKE_CLI_VERSION (or a version abcd knows for each CLI), and --help prints
// FAKE_CLI_HELP (or every argument it was given after --help, so a test names the flags).
func FakeMain() {
	if pidfile := os.Getenv(grandchildVar); pidfile != "" {
		signal.Ignore(syscall.SIGTERM)
		_ = os.WriteFile(pidfile, []byte(strconv.Itoa(os.Getpid())), 0o600)
		for {
			time.Sleep(time.Hour)
		}
	}
	if code, ok := fakeGuard(); ok {
		os.Exit(code)
	}
	if code, ok := fakeACP(); ok {
		os.Exit(code)
	}
	script := os.Getenv(ScriptVar)
	if script == "" {
		return
	}
	for _, a := range os.Args[1:] {
		switch a {
		case "--version":
			fmt.Println(envOr("FAKE_CLI_VERSION", "2.1.332 (Claude Code)"))
			os.Exit(0)
		case "--help":
			if dump := os.Getenv(HelpDumpVar); dump != "" {
				env := os.Environ()
				sort.Strings(env)
				if err := os.WriteFile(dump, []byte(strings.Join(env, "\n")), 0o600); err != nil {
					fmt.Fprintln(os.Stderr, "fake: help dump:", err)
					os.Exit(95)
				}
			}
			fmt.Println(envOr("FAKE_CLI_HELP", "no help"))
			os.Exit(0)
		}
	}
	os.Exit(play(script))
}

func envOr(k, def string) string {
	if v, ok := os.LookupEnv(k); ok {
		return v
	}
	return def
}

func play(path string) int {
	data := []byte(strings.TrimPrefix(path, InlinePrefix))
	if !strings.HasPrefix(path, InlinePrefix) {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			fmt.Fprintln(os.Stderr, "fake: reading its script:", err)
			return 97
		}
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	// On an early return (a bad directive) what was written goes out if it can: the exit code
	// already says what failed.
	defer func() { _ = out.Flush() }()
	// flushed sends what was written; the buffer keeps a failed write's error, and Flush returns it.
	flushed := func() bool {
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "fake: writing its stdout:", err)
			return false
		}
		return true
	}
	var stdin *string
	prompt := func() string {
		if stdin == nil {
			b, _ := io.ReadAll(os.Stdin)
			s := string(b)
			stdin = &s
		}
		return *stdin
	}
	// What the CLI writes of its start-up hooks: before the next line (Claude Code), after it (Gemini).
	var before []string
	after := ""
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d Directive
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			fmt.Fprintf(os.Stderr, "fake: directive %d: %v\n", i, err)
			return 98
		}
		if slices.ContainsFunc(d.When, func(w string) bool { return !strings.Contains(prompt(), w) }) {
			continue // a text When lists is not in the prompt
		}
		switch {
		case d.SessionStart != "":
			runs, err := startHooks(d.SessionStart)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fake: session start:", err)
				return 92
			}
			var context string
			before, context = startLines(d.SessionStart, runs)
			if d.SessionStart == "gemini" {
				after = userMessage(context, prompt())
			}
		case d.Out != "":
			for _, b := range before {
				out.WriteString(b + "\n")
			}
			before = nil
			out.WriteString(d.Out + "\n")
			if after != "" {
				out.WriteString(after + "\n")
				after = ""
			}
		case d.Raw != "":
			out.WriteString(d.Raw)
		case d.Pad > 0:
			writePad(out, d.Pad)
		case d.Lines > 0:
			for j := 0; j < d.Lines; j++ {
				writePad(out, 1<<20)
			}
		case d.SleepMS > 0:
			if !flushed() {
				return 96
			}
			time.Sleep(time.Duration(d.SleepMS) * time.Millisecond)
		case d.Hang:
			if !flushed() {
				return 96
			}
			for {
				time.Sleep(time.Hour)
			}
		case d.IgnoreTerm:
			signal.Ignore(syscall.SIGTERM)
		case d.Grandchild != "" || d.Detached != "":
			pidfile := d.Grandchild + d.Detached
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), grandchildVar+"="+pidfile)
			if d.Detached != "" {
				detach(cmd)
			}
			if err := cmd.Start(); err != nil {
				fmt.Fprintln(os.Stderr, "fake: grandchild:", err)
				return 96
			}
			for j := 0; j < 200; j++ { // wait until it is in place, ignoring SIGTERM
				if _, err := os.Stat(pidfile); err == nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		case d.Write != "":
			if err := os.MkdirAll(filepath.Dir(d.Write), 0o755); err != nil {
				fmt.Fprintln(os.Stderr, "fake: write:", err)
				return 94
			}
			if err := os.WriteFile(d.Write, []byte(d.Content), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "fake: write:", err)
				return 94
			}
		case d.Tell != "" && len(d.Run) > 0:
			if err := tell(d.Tell, d.Run); err != nil {
				fmt.Fprintln(os.Stderr, "fake: tell:", err)
				return 93
			}
		case len(d.Run) > 0:
			cmd := exec.Command(d.Run[0], d.Run[1:]...)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, "fake: run:", err)
				return 93
			}
		case d.Dump != "":
			env := os.Environ()
			sort.Strings(env)
			wd, _ := os.Getwd()
			b, _ := json.Marshal(Dump{Env: env, Args: os.Args[1:], Stdin: prompt(), Dir: wd})
			if err := os.WriteFile(d.Dump, b, 0o600); err != nil {
				fmt.Fprintln(os.Stderr, "fake: dump:", err)
				return 95
			}
		case d.Signal != "":
			if !flushed() {
				return 96
			}
			raise(d.Signal)
			time.Sleep(time.Second)
		case d.ExitZero:
			if !flushed() {
				return 96
			}
			return 0
		case d.Exit != 0:
			if !flushed() {
				return 96
			}
			return d.Exit
		}
	}
	if !flushed() {
		return 96
	}
	return 0
}

func writePad(w *bufio.Writer, n int) {
	const head, tail = `{"type":"pad","pad":"`, `"}`
	w.WriteString(head)
	w.WriteString(strings.Repeat("x", max(0, n-len(head)-len(tail))))
	w.WriteString(tail + "\n")
}

// Script writes directives as a script file in dir and returns its path.
func Script(dir string, ds ...Directive) (string, error) {
	var b strings.Builder
	for _, d := range ds {
		line, err := json.Marshal(d)
		if err != nil {
			return "", err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	f, err := os.CreateTemp(dir, "script-*.jsonl")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(b.String())
	return f.Name(), errors.Join(err, f.Close())
}

// Lines are Out directives, one a line.
func Lines(lines ...string) []Directive {
	ds := make([]Directive, len(lines))
	for i, l := range lines {
		ds[i] = Directive{Out: l}
	}
	return ds
}

// tell runs argv and sends its stdout to addr.
func tell(addr string, argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	said, err := cmd.Output()
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	if _, err := conn.Write(said); err != nil {
		_ = conn.Close() // the write's error is the one that counts
		return err
	}
	return conn.Close()
}
