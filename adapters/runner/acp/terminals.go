package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// Bounds of the terminals an agent runs through abcd.
const (
	// MaxTerminalOutput bounds the output abcd keeps of one terminal (its last bytes).
	MaxTerminalOutput = 1 << 20
	// MaxTerminals bounds the terminals of one step, at once and in all.
	MaxTerminals      = 16
	maxTerminalsTotal = 256
)

// terminals are the commands one step's agent started.
type terminals struct {
	run    func(argv []string, dir string, out io.Writer) (runner.Running, error)
	mu     sync.Mutex
	byID   map[string]*terminal
	made   int
	closed chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
}

type terminal struct {
	run runner.Running
	out *tail
}

func newTerminals(run func([]string, string, io.Writer) (runner.Running, error)) *terminals {
	return &terminals{run: run, byID: map[string]*terminal{}, closed: make(chan struct{})}
}

// closeAll ends every terminal and every wait on one.
func (t *terminals) closeAll() {
	t.once.Do(func() { close(t.closed) })
	t.mu.Lock()
	all := make([]*terminal, 0, len(t.byID))
	for id, term := range t.byID {
		all = append(all, term)
		delete(t.byID, id)
	}
	t.mu.Unlock()
	for _, term := range all {
		term.run.Kill()
	}
	t.wg.Wait()
}

// tail keeps the last max bytes written to it, cut at a character's start.
type tail struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func (b *tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		for over < len(b.buf) && !utf8.RuneStart(b.buf[over]) {
			over++
		}
		b.buf, b.truncated = append(b.buf[:0], b.buf[over:]...), true
	}
	return len(p), nil
}

func (b *tail) read() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf), b.truncated
}

// terminalCreate runs a command the agent asks for: checked by abcd's guard as the line it is, run
// inside the step's fence in the worktree (or a folder inside it), its output kept within its bound.
// A command with no args is a shell line (sh -c), as the agents send one; with args, the program and
// its arguments. The agent's own environment variables are refused: the step's environment is the
// allowlisted one, and a variable can change what a checked command runs.
func (s *session) terminalCreate(m message) error {
	var p struct {
		Command         string            `json:"command"`
		Args            []string          `json:"args"`
		Env             []json.RawMessage `json:"env"`
		Cwd             *string           `json:"cwd"`
		OutputByteLimit *int              `json:"outputByteLimit"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Command == "" {
		return s.refuse(m, "", "", "the request names no command")
	}
	line := p.Command
	argv := []string{"/bin/sh", "-c", p.Command}
	if len(p.Args) > 0 {
		argv = append([]string{p.Command}, p.Args...)
		line = runner.ShellWords(argv)
	}
	switch {
	case s.c.Policy != domain.PolicyImplement:
		return s.refuse(m, "", line, "a reviewer's step runs no command")
	case len(p.Env) > 0:
		return s.refuse(m, "", line, "abcd sets no variable an agent names for a command")
	}
	dir := s.c.Dir
	if p.Cwd != nil && *p.Cwd != "" {
		if _, why := s.readable(*p.Cwd); why != "" {
			return s.refuse(m, "", line, "its folder: "+why)
		}
		dir = filepath.Clean(*p.Cwd)
	}
	if v := s.c.Verdict(runner.Question{Command: line}); !v.Allow {
		return s.refuse(m, "", line, verdictWords(v))
	}
	limit := MaxTerminalOutput
	if p.OutputByteLimit != nil && *p.OutputByteLimit >= 0 {
		limit = min(limit, *p.OutputByteLimit)
	}
	t := s.terms
	t.mu.Lock()
	if len(t.byID) >= MaxTerminals || t.made >= maxTerminalsTotal {
		t.mu.Unlock()
		return s.refuse(m, "", line, fmt.Sprintf("the step holds %d terminals at once, or made %d, abcd's bounds", MaxTerminals, maxTerminalsTotal))
	}
	t.made++
	id := "t" + strconv.Itoa(t.made)
	t.mu.Unlock()
	out := &tail{max: limit}
	run, err := t.run(argv, dir, out)
	if err != nil {
		return s.refuse(m, "", line, "it could not be started: "+err.Error())
	}
	t.mu.Lock()
	t.byID[id] = &terminal{run: run, out: out}
	t.mu.Unlock()
	s.record(m.Method, id, line, domain.AnswerAllowOnce, "the guard allows it; run inside the step's sandbox")
	return s.reply(m.ID, map[string]string{"terminalId": id})
}

// exitStatus is a terminal's exit as the protocol says it.
func exitStatus(r runner.Running) map[string]any {
	code, sig := r.Exit()
	st := map[string]any{"exitCode": nil, "signal": nil}
	if sig != "" {
		st["signal"] = sig
	} else if code >= 0 {
		st["exitCode"] = code
	}
	return st
}

func exited(r runner.Running) bool {
	select {
	case <-r.Exited():
		return true
	default:
		return false
	}
}

// terminalUse answers output, wait_for_exit, kill and release for a terminal of the step's.
func (s *session) terminalUse(m message) error {
	var p struct {
		TerminalID string `json:"terminalId"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return s.refuse(m, "", "", "the request names no terminal")
	}
	t := s.terms
	t.mu.Lock()
	term := t.byID[p.TerminalID]
	if m.Method == "terminal/release" && term != nil {
		delete(t.byID, p.TerminalID)
	}
	t.mu.Unlock()
	if term == nil {
		s.record(m.Method, "", text.Clip(p.TerminalID), domain.AnswerRefused, "no such terminal")
		return s.replyError(m.ID, codeInvalidParams, "abcd holds no terminal "+text.Clip(p.TerminalID))
	}
	switch m.Method {
	case "terminal/output":
		out, truncated := term.out.read()
		r := map[string]any{"output": out, "truncated": truncated}
		if exited(term.run) {
			r["exitStatus"] = exitStatus(term.run)
		}
		s.record(m.Method, p.TerminalID, "", domain.AnswerDone, fmt.Sprintf("%d bytes of output", len(out)))
		return s.reply(m.ID, r)
	case "terminal/wait_for_exit":
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			select {
			case <-term.run.Exited():
				// The agent may have stopped reading; its step's end says so.
				_ = s.reply(m.ID, exitStatus(term.run))
			case <-t.closed:
			}
		}()
		return nil
	case "terminal/kill", "terminal/release":
		term.run.Kill()
		s.record(m.Method, p.TerminalID, "", domain.AnswerDone, "ended")
		return s.reply(m.ID, map[string]any{})
	}
	return errors.New("unreachable terminal method " + m.Method)
}
