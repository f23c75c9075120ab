package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/text"
)

// A conversing CLI (an ACP agent) is not handed a prompt and read: abcd is its client. Requests go
// both ways over its stdin and stdout, one JSON-RPC message a line; it asks abcd for permission, for
// files and for commands, and abcd answers each. What every step shares (the process, its group and
// fence, the bounded line reader, the bounds, the ledger, the terminal rule, the scrubbing) is the
// adapter's as for every CLI; the conversation is the dialect's Session, handed what it needs to
// answer: a way to write to the agent, abcd's guard, and a way to run a command inside the step's
// fence.

// Conversant is a dialect whose CLI abcd converses with.
type Conversant interface {
	Dialect
	// Catalog is the request-scoped MCP catalog a step hands the agent when the caller named none
	// (abcd's own read verbs, served for the step's folder); checked against its bounds before the
	// agent starts, like any catalog.
	Catalog(dir string) ([]runner.MCPServer, error)
	// Converse begins one step's conversation.
	Converse(c Conversation) Session
}

// Conversation is what a step hands its conversing dialect.
type Conversation struct {
	// Dir is the agent's working folder (the lane's worktree); Protect the paths inside it the agent
	// may never write (its .git).
	Dir     string
	Protect []string
	Prompt  []byte
	Policy  runner.Policy
	Model   string
	Catalog runner.Catalog
	// Passed are the names of the runner's credential_env and pass_env variables the step passes the
	// agent with a value: what an ACP agent's authentication method may rely on.
	Passed []string
	// Send queues one message for the agent's stdin; an error when the agent stopped reading it (the
	// queue is bounded: an agent that does not read is never waited for).
	Send func(msg []byte) error
	// Verdict is abcd's guard on a command line or a write, as its hook answers a CLI's.
	Verdict func(q Question) Verdict
	// Run starts argv in dir inside the step's fence (its own process group), its output to out.
	Run func(argv []string, dir string, out io.Writer) (Running, error)
}

// Question is what the guard is asked: a command line, or a write of a path (absolute).
type Question struct {
	Command string
	Write   string
}

// Verdict is the guard's answer: allowed, or not and why.
type Verdict struct {
	Allow bool
	Why   string
}

// Running is a command a conversation started.
type Running interface {
	// Exited is closed once the command exited; Exit is then its code, or -1 and the signal.
	Exited() <-chan struct{}
	Exit() (int, string)
	// Kill ends its process group (SIGTERM, a grace, SIGKILL) and releases its fence; it waits for
	// its output to be read.
	Kill()
}

// Session is one step's conversation: a Parser of what the agent says, which answers it as it reads.
type Session interface {
	Parser
	// Begin sends abcd's first request.
	Begin() error
	// Cancel asks the agent to stop its turn (once; a bound broken, Ctrl-C).
	Cancel()
	// Close ends every command the agent started and what waits on them.
	Close()
	// Asks are the agent's requests and abcd's answers, at most runner.MaxAsks, and how many more.
	Asks() ([]runner.Ask, int)
}

// maxQueued bounds the messages waiting for the agent to read them.
const maxQueued = 1024

// sender writes queued messages to the agent's stdin, one line each, in order, from a goroutine of
// its own: the step's reading never waits on the agent's.
type sender struct {
	mu     sync.Mutex
	q      chan []byte
	closed bool
	done   chan struct{}
}

func newSender(w io.WriteCloser) *sender {
	s := &sender{q: make(chan []byte, maxQueued), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		// The agent's stdin: closing it is its EOF, and nothing is lost with it.
		defer func() { _ = w.Close() }()
		for msg := range s.q {
			if _, err := w.Write(msg); err != nil {
				for range s.q { // the agent is gone: what is queued goes nowhere
				}
				return
			}
		}
	}()
	return s
}

// Send queues msg and a newline.
func (s *sender) Send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the agent's stdin is closed")
	}
	select {
	case s.q <- append(bytes.Clone(msg), '\n'):
		return nil
	default:
		return fmt.Errorf("the agent left %d messages unread", maxQueued)
	}
}

// close stops sending; what is queued is still written unless the agent is gone.
func (s *sender) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.q)
	}
	s.mu.Unlock()
}

// guardTimeout bounds one question to abcd's guard.
const guardTimeout = 30 * time.Second

// verdict asks abcd's guard hook, as a CLI's hook would: a PreToolUse payload for its shell tool
// (a command) or its write tool (a path), answered by a deny with its reason, or nothing for an
// allow. Anything else (no guard, a guard that fails, an answer it cannot read, a timeout) is not an
// allow: the guard fails closed here.
func (a *Adapter) verdict(ctx context.Context, env []string, dir string, q Question) Verdict {
	if len(a.guard) == 0 {
		return Verdict{Why: "this build of abcd has no guard to ask"}
	}
	payload := map[string]any{"hook_event_name": "PreToolUse", "cwd": dir}
	switch {
	case q.Command != "":
		payload["tool_name"], payload["tool_input"] = "Bash", map[string]string{"command": q.Command}
	case q.Write != "":
		payload["tool_name"], payload["tool_input"] = "Write", map[string]string{"file_path": q.Write}
	default:
		return Verdict{Why: "nothing to check"}
	}
	in, err := json.Marshal(payload)
	if err != nil {
		return Verdict{Why: "the guard's question could not be written: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, guardTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.guard[0], a.guard[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin, cmd.WaitDelay = env, dir, bytes.NewReader(in), time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{w: &out, n: 64 << 10}, &limited{w: &errOut, n: 64 << 10}
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		return Verdict{Why: "abcd's guard blocked it: " + text.Clip(lastLine(errOut.String()))}
	case err != nil:
		return Verdict{Why: "abcd's guard could not answer: " + pathless(err)}
	}
	said := strings.TrimSpace(out.String())
	if said == "" {
		return Verdict{Allow: true}
	}
	var answer struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(said), &answer); err != nil {
		return Verdict{Why: "abcd's guard answered what abcd cannot read"}
	}
	switch answer.HookSpecificOutput.PermissionDecision {
	case "deny":
		return Verdict{Why: answer.HookSpecificOutput.PermissionDecisionReason}
	case "", "allow":
		return Verdict{Allow: true} // a warning is context, and lets the command run
	}
	return Verdict{Why: "abcd's guard answered " + text.Clip(answer.HookSpecificOutput.PermissionDecision)}
}

// limited keeps the first n bytes written to it and drops the rest (never an error: the writer is a
// child's output, which must not block).
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k]) // a bytes.Buffer
	}
	return len(p), nil
}

// running is a command a conversation started, in its own process group (and fence).
type running struct {
	p      *process
	copied chan struct{}
	once   sync.Once
	grace  time.Duration
}

func (r *running) Exited() <-chan struct{} { return r.p.exited }
func (r *running) Exit() (int, string)     { return r.p.exit() }

func (r *running) Kill() {
	r.once.Do(func() {
		r.p.end(r.grace)
		<-r.copied
		if r.p.fenced != nil {
			r.p.fenced.Close()
		}
	})
}

// runIn starts commands for a conversation: argv[0] absolute or found on the step's PATH, stdin from
// /dev/null, inside the step's fence when it has one, with the step's environment.
func (a *Adapter) runIn(env []string, fenced *fencing) func(argv []string, dir string, out io.Writer) (Running, error) {
	return func(argv []string, dir string, out io.Writer) (Running, error) {
		if len(argv) == 0 {
			return nil, errors.New("no command")
		}
		path := argv[0]
		if !filepath.IsAbs(path) {
			found, err := lookPath(path, envMap(env)["PATH"])
			if err != nil {
				return nil, err
			}
			path = found
		}
		devnull, err := os.Open(os.DevNull)
		if err != nil {
			return nil, err
		}
		defer func() { _ = devnull.Close() }() // opened for reading
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		p, err := start(path, argv[1:], env, dir, devnull, w, w, fenced)
		_ = w.Close() // the child holds its own copy; closing ours loses nothing
		if err != nil {
			_ = r.Close() // never read
			return nil, err
		}
		run := &running{p: p, copied: make(chan struct{}), grace: a.grace}
		go func() {
			defer close(run.copied)
			_, _ = io.Copy(out, r) // out keeps what it bounds; the pipe ends when the group does
			_ = r.Close()
		}()
		return run, nil
	}
}

// lookPath finds a command on a PATH: the first absolute folder holding an executable regular file
// of that name.
func lookPath(name, pathVar string) (string, error) {
	if strings.ContainsRune(name, '/') {
		return "", fmt.Errorf("%s is neither an absolute path nor a command's name", text.Clip(name))
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s command is on the step's PATH", text.Clip(name))
}

// talk is what a conversing step holds beside the CLI's process: its dialect, its prompt, abcd's end
// of the agent's stdin and the session. A nil talk is a CLI that streams: each method then does
// nothing, or what a streaming step does.
type talk struct {
	conv    Conversant
	prompt  []byte
	catalog runner.Catalog
	inW     *os.File
	send    *sender
	session Session
}

// stdin is what the CLI reads: the prompt file, or for a conversing agent a pipe whose other end
// is abcd's side of the conversation.
func (t *talk) stdin(prompt *os.File) (*os.File, error) {
	if t == nil {
		return prompt, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.inW = w
	return r, nil
}

// started closes the CLI's end of its stdin pipe (the CLI holds its own), and abcd's when the CLI
// did not start.
func (t *talk) started(err error) {
	if t == nil || t.inW == nil {
		return
	}
	if err != nil {
		_ = t.inW.Close() // nothing was sent on it
	}
}

// begin is the parser of the step's stream: the dialect's, or the conversation's session, begun.
func (t *talk) begin(ctx context.Context, s *step, d Dialect, env []string, fenced *fencing) Parser {
	if t == nil {
		return d.NewParser()
	}
	t.send = newSender(t.inW)
	t.session = t.conv.Converse(t.conversation(ctx, s, env, fenced, t.send))
	if err := t.session.Begin(); err != nil {
		s.fail(runner.Failf(runner.CauseSpawn, "the agent could not be sent abcd's first request: %s", pathless(err)))
	}
	return t.session
}

// cancel asks the agent to stop its turn when the step ended without its answer (a bound broke, or
// Ctrl-C), before its group is ended, and stops sending.
func (t *talk) cancel(s *step) {
	if t == nil || t.session == nil {
		return
	}
	if s.terminal == nil {
		t.session.Cancel()
	}
	t.send.close()
}

// end ends what the agent started through abcd and records what it asked.
func (t *talk) end(s *step) {
	if t == nil || t.session == nil {
		return
	}
	t.session.Close()
	s.o.Receipt.Asks, s.o.Receipt.AsksMore = t.session.Asks()
}

// scrubAsks keeps every ask within a receipt's rules, scrubbed of the step's credentials.
func scrubAsks(sc *secret.Scrubber, asks []runner.Ask) {
	for i, a := range asks {
		asks[i].What, asks[i].Why = runner.Plain(sc.Scrub(a.What)), runner.Plain(sc.Scrub(a.Why))
		asks[i].Method, asks[i].CallID = receiptWord(sc.Scrub(a.Method)), receiptWord(sc.Scrub(a.CallID))
	}
}

func newTalk(conv Conversant, p *Prepared) (*talk, error) {
	prompt, err := io.ReadAll(io.LimitReader(p.Prompt, runner.MaxPromptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the step's prompt: %w", err)
	}
	return &talk{conv: conv, prompt: prompt, catalog: p.catalog}, nil
}

// conversation is what the step hands its Session: its folder and what in it is protected, the
// prompt, abcd's guard (asked with the step's environment, in its folder) and the step's fence for
// the commands the agent asks abcd to run.
func (t *talk) conversation(ctx context.Context, s *step, env []string, fenced *fencing, send *sender) Conversation {
	c := Conversation{Dir: s.req.Dir, Prompt: t.prompt, Policy: s.req.Policy, Model: s.req.Model, Catalog: t.catalog, Send: send.Send,
		Verdict: func(q Question) Verdict { return s.a.verdict(ctx, env, s.req.Dir, q) },
		Run:     s.a.runIn(env, fenced)}
	have := envMap(env)
	for _, k := range append(slices.Clone(s.req.Runner.CredentialEnv), s.req.Runner.PassEnv...) {
		if have[k] != "" && !slices.Contains(c.Passed, k) {
			c.Passed = append(c.Passed, k)
		}
	}
	if s.req.Sandbox != nil && !s.req.Sandbox.Off {
		c.Protect = append(c.Protect, s.req.Sandbox.Protect...)
	}
	if s.req.Dir != "" {
		c.Protect = append(c.Protect, filepath.Join(s.req.Dir, ".git"))
	}
	return c
}
