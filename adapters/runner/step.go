package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// Options configure the adapter at the composition root.
type Options struct {
	// Dialects are the CLIs abcd drives, by kind.
	Dialects []Dialect
	// Guard is the command a CLI runs before each of the implementer's shell commands: abcd's own
	// executable with guard hook.
	Guard []string
	// Environ is the environment abcd runs in (os.Environ when nil): the allowlist picks from it.
	Environ func() []string
	// TempDir holds the steps' private folders (os.TempDir when empty).
	TempDir string
	// Drain and Grace override runner.Drain and runner.Grace (tests shorten them).
	Drain, Grace time.Duration
	// Sandbox is the fence a step asked for one (RunnerStep.Sandbox) runs in; nil: abcd's own, its
	// helper the running executable (whose main calls sandbox.Helper first).
	Sandbox *sandbox.Fence
}

// Adapter is ports.Runners over the dialects it was given.
type Adapter struct {
	dialects map[runner.Kind]Dialect
	guard    []string
	environ  func() []string
	temp     string
	drain    time.Duration
	grace    time.Duration
	local    localSlots
	sandbox  *sandbox.Fence
}

var _ ports.Runners = (*Adapter)(nil)

// New is the adapter.
func New(o Options) *Adapter {
	a := &Adapter{dialects: map[runner.Kind]Dialect{}, guard: slices.Clone(o.Guard), environ: o.Environ, temp: o.TempDir,
		drain: cmp.Or(o.Drain, runner.Drain), grace: cmp.Or(o.Grace, runner.Grace), sandbox: o.Sandbox}
	for _, d := range o.Dialects {
		a.dialects[d.Kind()] = d
	}
	if a.environ == nil {
		a.environ = os.Environ
	}
	return a
}

// maxDepth bounds the nesting of one event: deeper than any CLI writes, shallow enough that a hostile
// line cannot exhaust the stack.
const maxDepth = 512

// dialect is the CLI's dialect, or the failure that says why abcd cannot drive it.
func (a *Adapter) dialect(k runner.Kind) (Dialect, *runner.Failure) {
	if why := k.Unsupported(); why != "" {
		return nil, runner.Failf(runner.CauseUnsupported, "%s", why)
	}
	d, ok := a.dialects[k]
	if !ok {
		return nil, runner.Failf(runner.CauseUnsupported, "this build of abcd drives no %s runner", text.Clip(string(k)))
	}
	return d, nil
}

// MarkVar names the variable each CLI abcd starts carries in its environment, with a value of its
// own, so that what it starts can be found wherever it went (Linux: see sweep).
const MarkVar = "ABCD_RUNNER_STEP"

// Step runs one step (ports.Runners).
func (a *Adapter) Step(ctx context.Context, req ports.RunnerStep) (runner.Outcome, error) {
	// Limits left unset are the runner's; a bound still unset is the default: never no bound at all.
	if req.Limits == (runner.Limits{}) {
		req.Limits = req.Runner.Limits
	}
	req.Limits = req.Limits.Or(runner.DefaultLimits())
	o := newOutcome(req.Runner, req.Model)
	s := &step{a: a, req: req, o: &o, stderr: &ring{max: runner.MaxStderrBytes}}
	release, f, err := a.slot(ctx, req.Runner, req.Waiting)
	if f != nil || err != nil {
		s.fail(f)
		s.finish()
		return o, err
	}
	defer release()
	begun := time.Now()
	err = s.run(ctx)
	o.Receipt.DurationMS = time.Since(begun).Milliseconds()
	s.finish()
	return o, err
}

func newOutcome(r runner.Runner, model string) runner.Outcome {
	return runner.Outcome{Receipt: runner.Receipt{Runner: r.Name, CLI: r.CLI, ModelAsked: model, ModelsReported: []string{},
		ExitCode: -1, Commits: []string{}, Outcome: runner.Failed}}
}

// step is one step's state while it runs.
type step struct {
	a     *Adapter
	req   ports.RunnerStep
	o     *runner.Outcome
	scrub *secret.Scrubber
	// what the stream said
	handshake bool // the CLI's handshake came: a terminal event after it counts
	terminal  *Terminal
	ledger    *runner.Ledger
	note      string
	stderr    *ring
	turns     int
	told      int // lines of what the CLI is doing told to the caller
	// proof is how the step tells that its CLI loaded abcd's settings; watch reads its stderr for the
	// words by which it says it did not.
	proof proof
	watch stderrWatch
}

func (s *step) fail(f *runner.Failure) { s.o.Fail(f) }

func (s *step) run(ctx context.Context) (err error) {
	p, f, err := s.a.Prepare(s.req)
	if err != nil || f != nil {
		s.fail(f)
		return err
	}
	defer func() { err = errors.Join(err, p.Close()) }()
	s.scrub = p.Scrubber
	s.o.Receipt.SchemaEnforced = p.SchemaEnforced
	// A conversing agent is handed no settings to prove: abcd answers its every permission itself.
	s.proof = proof{kind: s.req.Runner.CLI, nonce: p.nonce, marker: p.marker, servers: p.servers, loaded: s.req.Runner.CLI.Conversational()}
	s.watch = stderrWatch{words: p.refusals}
	fenced, cleanup, err := s.a.fencing(s.req, p)
	if err != nil {
		return err
	}
	defer cleanup()
	var t *talk
	if conv, ok := p.dialect.(Conversant); ok {
		if t, err = newTalk(conv, p); err != nil {
			return err
		}
	}
	return s.drive(ctx, p.dialect, p.Args, p.Env, p.Prompt, fenced, t)
}

// Prepared is a step ready to start: the CLI's command line, environment and working folder, its
// prompt opened for stdin, and the private folder holding the files it is handed and the settings
// home it runs in (Home). Close removes them.
type Prepared struct {
	Path, Dir string
	Args, Env []string
	Prompt    *os.File
	// Home is the settings home abcd gives the CLI (HOME points there).
	Home string
	// Scrubber holds the credentials the step holds; SchemaEnforced says the CLI holds the answer to
	// the step's schema.
	Scrubber       *secret.Scrubber
	SchemaEnforced bool
	private        string
	dialect        Dialect
	// what proves the CLI loaded abcd's settings (see proof)
	nonce, marker string
	servers       []string
	refusals      []string
	catalog       runner.Catalog
}

// tempDir makes the folder the steps' private folders live in, its owner's alone (0700): each CLI's
// settings home lives there, and what a CLI reads as abcd's settings must be no one else's to write.
func (a *Adapter) tempDir() error {
	if a.temp == "" {
		return nil
	}
	if err := os.MkdirAll(a.temp, 0o700); err != nil {
		return fmt.Errorf("making the runners' folder: %w", err)
	}
	return ownerOnly(a.temp)
}

// Close releases the prompt and removes the private folder, whose files hold what the step was
// handed: one that cannot be removed is an error, never left unsaid.
func (p *Prepared) Close() error {
	_ = p.Prompt.Close() // opened for reading: its error loses nothing
	return os.RemoveAll(p.private)
}

// Prepare decides everything a step hands its CLI, before anything is started: the dialect, the
// catalog within its bounds, the executable, the prompt file, the command line and the files it names,
// and the allowlisted environment with every credential it names set. A step that cannot start is a
// Failure with its cause; an error is a fault (an unexpected one met building the catalog is returned
// as it is, never rewritten as the catalog's refusal). Step runs what Prepare made; a benchmark or a
// recording runs the same command directly.
func (a *Adapter) Prepare(req ports.RunnerStep) (*Prepared, *runner.Failure, error) {
	d, f := a.dialect(req.Runner.CLI)
	if f != nil {
		return nil, f, nil
	}
	servers := req.MCP
	if conv, ok := d.(Conversant); ok && servers == nil {
		// A conversing agent is handed abcd's own read verbs for the step, unless the caller named a
		// catalog: built for this request, and held to the same bounds.
		var err error
		if servers, err = conv.Catalog(req.Dir); err != nil {
			return nil, nil, err
		}
	}
	catalog, err := runner.BuildCatalog(servers)
	var ce *runner.CatalogError
	if errors.As(err, &ce) {
		return nil, runner.Failf(runner.CauseCatalog, "%s", ce.Error()), nil
	} else if err != nil {
		return nil, nil, err // not a bound: a fault, returned as it is
	}
	if f := checkExecutable(req.Runner.Executable); f != nil {
		return nil, f, nil
	}
	prompt, f := openPrompt(req.PromptFile)
	if f != nil {
		return nil, f, nil
	}
	// The prompt was opened for reading: closing it loses nothing, so its error is dropped.
	if err := a.tempDir(); err != nil {
		_ = prompt.Close()
		return nil, nil, err
	}
	private, err := os.MkdirTemp(a.temp, "abcd-runner-")
	if err != nil {
		_ = prompt.Close()
		return nil, nil, fmt.Errorf("making the step's private folder: %w", err)
	}
	nonce, err := newNonce()
	if err != nil {
		return nil, nil, errors.Join(err, prompt.Close(), os.RemoveAll(private))
	}
	p := &Prepared{Path: req.Runner.Executable, Dir: req.Dir, Prompt: prompt, private: private, dialect: d, nonce: nonce, catalog: catalog}
	for _, s := range catalog.Servers {
		p.servers = append(p.servers, s.Name)
	}
	f, err = p.command(a, req, d, catalog)
	if f != nil || err != nil {
		return nil, f, errors.Join(err, p.Close())
	}
	return p, nil, nil
}

func (p *Prepared) command(a *Adapter, req ports.RunnerStep, d Dialect, catalog runner.Catalog) (*runner.Failure, error) {
	before, _, _ := runner.Environment(a.environ(), req.Runner, nil)
	in := Invocation{Dir: req.Dir, Private: p.private, Policy: req.Policy, Model: req.Model, Limits: req.Limits, Catalog: catalog, Guard: a.guard,
		Fenced: req.Sandbox != nil && !req.Sandbox.Off, Home: filepath.Join(p.private, homeName), Nonce: p.nonce, Env: envMap(before),
		CredentialEnv: slices.Clone(req.Runner.CredentialEnv), Args: slices.Clone(req.Runner.Args)}
	if len(req.Schema) > 0 {
		in.Schema, in.SchemaFile = req.Schema, filepath.Join(p.private, "schema.json")
	}
	cmd, err := d.Invocation(in)
	var f *runner.Failure
	switch {
	case errors.As(err, &f):
		return f, nil
	case err != nil:
		return runner.Failf(runner.CauseFlags, "%s", err.Error()), nil
	}
	p.SchemaEnforced = cmd.SchemaEnforced && len(req.Schema) > 0
	if in.SchemaFile != "" {
		if cmd.Files == nil {
			cmd.Files = map[string][]byte{}
		}
		cmd.Files["schema.json"] = req.Schema
	}
	for name, data := range cmd.Files {
		if err := os.WriteFile(filepath.Join(p.private, name), data, 0o600); err != nil {
			return nil, fmt.Errorf("writing the step's %s: %w", name, err)
		}
	}
	home, err := writeHome(p.private, d.Kind(), cmd.HomeFiles)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(home, cmd.Marker); cmd.Marker != "" && (err != nil || !filepath.IsLocal(rel)) {
		return nil, fmt.Errorf("the dialect names a marker outside the CLI's settings home: %q", cmd.Marker)
	}
	p.Home, p.marker, p.refusals = home, cmd.Marker, cmd.StderrRefusals
	// The home wins over whatever else names one: the CLI reads no settings of the person's.
	extra := map[string]string{}
	maps.Copy(extra, cmd.Env)
	maps.Copy(extra, d.Kind().HomeEnv(home))
	env, creds, missing := runner.Environment(a.environ(), req.Runner, extra)
	p.Args, p.Env = cmd.Args, env
	p.Scrubber = secret.NewScrubber(append(creds, req.Scrub...)...)
	if len(missing) > 0 {
		return runner.Failf(runner.CauseCredentials, "%s, which the runner's credential_env names, is not set in abcd's environment", strings.Join(missing, ", ")), nil
	}
	return nil, nil
}

// drive starts the CLI and reads its stream until the step's outcome is fixed, then ends the group.
// A conversing dialect's step (talk not nil) gives the CLI a pipe for stdin, abcd's side of the
// conversation, and reads its stdout through the dialect's Session, which answers as it reads.
func (s *step) drive(ctx context.Context, d Dialect, args, env []string, prompt *os.File, fenced *fencing, talk *talk) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	// Closing a pipe's end loses nothing (its error would name a descriptor already gone): those
	// errors are dropped here and below.
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = outR.Close()
		_ = outW.Close()
		return err
	}
	stdin, err := talk.stdin(prompt)
	if err != nil {
		_, _, _, _ = outR.Close(), outW.Close(), errR.Close(), errW.Close()
		return err
	}
	p, err := start(s.req.Runner.Executable, args, env, s.req.Dir, stdin, outW, errW, fenced)
	// The CLI holds its own copies of the write ends; EOF comes when the last of its group closes
	// them. Closing a pipe end loses nothing.
	_ = outW.Close()
	_ = errW.Close()
	talk.started(err)
	if err != nil {
		_ = outR.Close()
		_ = errR.Close()
		f, err := startFailure(err)
		if f != nil {
			s.fail(f)
		}
		return err
	}
	defer func() { s.o.Receipt.Sandbox = sandboxReceipt(s.req, p); p.fenced.Close() }()
	if s.req.Started != nil {
		s.req.Started(p.pgid)
	}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := errR.Read(buf)
			_, _ = s.stderr.Write(buf[:n]) // a ring: its Write never fails
			s.watch.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	lines := make(chan line)
	done := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		readLines(outR, lines, done, runner.MaxLineBytes, runner.MaxStreamBytes)
	}()
	s.ledger = runner.NewLedger()
	parser := talk.begin(ctx, s, d, env, fenced)
	if s.o.Failure == nil {
		s.read(ctx, parser, lines)
	}
	close(done)
	talk.cancel(s)
	if left := p.end(s.a.grace); len(left) > 0 {
		s.o.Receipt.Leftovers = left
	}
	talk.end(s)
	// Every process of the group is gone, so the pipes close; a process that left the group (a
	// daemon) may still hold them, and is not waited for.
	_ = outR.Close()
	_ = errR.Close()
	<-readerDone
	<-stderrDone
	code, sig := p.exit()
	s.o.Receipt.ExitCode, s.o.Receipt.Signal = code, sig
	if said := s.watch.said; said != "" {
		// Said on stderr alone, and read in full only now: before the step's work counts.
		s.fail(runner.Failf(runner.CauseSettingsIgnored, "%s said %q on its stderr: part of the settings abcd gave it (an MCP server abcd handed it) did not load",
			d.Kind().Name(), said))
	}
	if s.o.Failure == nil && s.terminal == nil {
		// The stream ended with no terminal event: the step failed, whatever the exit code says. A code
		// the CLI documents names why.
		cause := runner.CauseNoTerminal
		if code >= 0 {
			if c := d.ExitCause(code); c != "" {
				cause = c
			}
		}
		s.fail(runner.Failf(cause, "the CLI's stream ended with no terminal event (%s)%s", exitWords(code, sig), s.context()))
	}
	return nil
}

func exitWords(code int, sig string) string {
	switch {
	case sig != "":
		return "ended by " + sig
	case code >= 0:
		return fmt.Sprintf("exit %d", code)
	}
	return "still running"
}

// context is what the CLI said that explains a failure: its last error note or stderr's last line.
func (s *step) context() string {
	if s.note != "" {
		return ": " + s.note
	}
	if last := lastLine(s.stderr.String()); last != "" {
		return "; its stderr ends: " + last
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// read reads the stream under the step's bounds until the outcome is fixed: a failure, or the
// terminal event followed by the drain. Nothing but a successful terminal event completes the step.
func (s *step) read(ctx context.Context, parser Parser, lines <-chan line) {
	lim := s.req.Limits
	wall := time.NewTimer(lim.WallClock)
	defer wall.Stop()
	idle := time.NewTimer(lim.FirstEvent)
	defer idle.Stop()
	var drain <-chan time.Time
	first := true
	for {
		select {
		case <-ctx.Done():
			if s.terminal == nil {
				s.fail(runner.Failf(runner.CauseInterrupted, "the step was interrupted (%s)", ctxWords(ctx)))
			}
			return
		case <-wall.C:
			if s.terminal == nil {
				s.fail(runner.Failf(runner.CauseWallClock, "the step ran for %s, its wall-clock bound", lim.WallClock))
			}
			return
		case <-idle.C:
			if first {
				s.fail(runner.Failf(runner.CauseFirstEvent, "the CLI printed no event within %s of starting%s", lim.FirstEvent, s.context()))
			} else {
				s.fail(runner.Failf(runner.CauseSilence, "the CLI printed nothing for %s between two events%s", lim.Silence, s.context()))
			}
			return
		case <-drain:
			return
		case l := <-lines:
			if l.err != nil {
				s.streamEnded(l.err)
				return
			}
			if first {
				first = false
			}
			if drain == nil { // the silence bound holds until the terminal event; the drain after it
				idle.Reset(lim.Silence)
			}
			if !s.line(parser, l) {
				return
			}
			if s.terminal != nil && drain == nil {
				idle.Stop()
				t := time.NewTimer(s.a.drain)
				defer t.Stop() //nolint:gocritic // deferInLoop: once, when the terminal event arrives (drain is nil until then)
				drain = t.C
			}
		}
	}
}

func ctxWords(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "the caller's deadline came first"
	}
	return "Ctrl-C or SIGTERM"
}

// streamEnded takes the reader's last word: EOF is the end of the stream (decided by what came
// before it), a bound broken is a failure.
func (s *step) streamEnded(err error) {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, os.ErrClosed):
	case errors.Is(err, errLineTooLong):
		s.fail(runner.Failf(runner.CauseLineTooLong, "the CLI printed a line longer than %d bytes", runner.MaxLineBytes))
	case errors.Is(err, errStreamTooLong):
		s.fail(runner.Failf(runner.CauseStreamTooLong, "the CLI's stream passed %d bytes", runner.MaxStreamBytes))
	default:
		s.fail(runner.Failf(runner.CauseBadLine, "reading the CLI's stream failed: %s", pathless(err)))
	}
}

// line takes one line; false when the step's outcome is fixed by it (a failure).
func (s *step) line(parser Parser, l line) bool {
	if err := strictjson.CheckObject(l.data, strictjson.Limits{MaxDepth: maxDepth}); err != nil || len(l.data) == 0 {
		what := "is not one JSON object"
		switch {
		case len(l.data) == 0:
			what = "is empty"
		case l.data[0] == 0x1b:
			what = "starts with a terminal escape sequence"
		case l.cut:
			what = "was cut off where the stream ended"
		}
		s.fail(runner.Failf(runner.CauseBadLine, "a line of the CLI's stream %s", what))
		return false
	}
	ev, err := parser.Event(l.data)
	if err != nil {
		s.fail(runner.Failf(runner.CauseBadLine, "a %s event breaks the CLI's protocol: %s", text.Clip(ev.Type), err.Error()))
		return false
	}
	if s.terminal != nil {
		if ev.Terminal != nil {
			s.terminal = nil
			s.fail(runner.Failf(runner.CauseSecondTerminal, "the CLI printed a second terminal event (%s) after its first", text.Clip(ev.Terminal.Event)))
			return false
		}
		return true // after the terminal event, lines are drained, not taken
	}
	if f := s.proof.check(ev); f != nil {
		s.fail(f)
		return false
	}
	if !ev.Known {
		s.o.Receipt.UnknownEvents++
	}
	s.names(ev)
	s.doing(ev.Doing)
	if ev.Note != "" {
		s.note = ev.Note
	}
	for _, c := range ev.Opened {
		if f := s.ledger.Open(c.ID, c.Content); f != nil {
			s.fail(f)
			return false
		}
	}
	for _, c := range ev.Closed {
		if f := s.ledger.Close(c.ID, c.Result); f != nil {
			s.fail(f)
			return false
		}
	}
	for _, c := range ev.Whole {
		if f := s.ledger.Whole(c.ID, c.Content, c.Result); f != nil {
			s.fail(f)
			return false
		}
	}
	s.o.Receipt.PermissionDenials += ev.Denials
	if ev.Turn {
		s.turns++
		if s.turns > s.req.Limits.Turns {
			s.fail(runner.Failf(runner.CauseMaxTurns, "the CLI began turn %d, past the step's bound of %d", s.turns, s.req.Limits.Turns))
			return false
		}
	}
	if f := s.retries(ev); f != nil {
		s.fail(f)
		return false
	}
	s.handshake = s.handshake || ev.Handshake
	if ev.Terminal != nil {
		if !s.handshake && ev.Terminal.Failure == nil {
			// A success on a stream that did not start as the CLI's does is no CLI's answer (a wrapper,
			// a replay, a forgery): it completes nothing. A failure stands with its own cause.
			s.fail(runner.Failf(runner.CauseBadLine, "the CLI's terminal event (%s) came before its handshake, the event that starts its session: a stream that did not start as the CLI's completes no step",
				text.Clip(ev.Terminal.Event)))
			return false
		}
		s.terminal = ev.Terminal
		s.take(ev.Terminal)
	}
	return true
}

// retries counts the API retries an event reports: one after a 401 or 403, or one past the step's
// bound, is the step's failure.
func (s *step) retries(ev Event) *runner.Failure {
	if ev.Retries <= 0 {
		return nil
	}
	s.o.Receipt.APIRetries += ev.Retries
	switch {
	case ev.RetryStatus == 401 || ev.RetryStatus == 403:
		return runner.Failf(runner.CauseAuth, "the vendor's API answered %d, and the CLI began retrying it%s", ev.RetryStatus, s.context())
	case s.o.Receipt.APIRetries > s.req.Limits.APIRetries:
		cause := runner.CauseAPIRetries
		if ev.RetryStatus == 429 {
			cause = runner.CauseRateLimit
		}
		return runner.Failf(cause, "the CLI retried its API %d times, past the step's bound of %d (last status %d)%s", s.o.Receipt.APIRetries, s.req.Limits.APIRetries, ev.RetryStatus, s.context())
	}
	return nil
}

// maxDoingBytes bounds one line of what a CLI is doing: one line of a terminal, about.
const maxDoingBytes = 160

// doing reports what the CLI says it is doing to the step's caller, each line plain, clipped and
// scrubbed of the step's credentials, at most ports.MaxDoing lines and one more saying how many
// were left out.
func (s *step) doing(lines []string) {
	if s.req.Doing == nil {
		return
	}
	for _, l := range lines {
		s.told++
		switch {
		case s.told <= ports.MaxDoing:
			s.req.Doing(text.ClipAt(runner.Plain(s.scrub.Scrub(l)), maxDoingBytes))
		case s.told == ports.MaxDoing+1:
			s.req.Doing(fmt.Sprintf("(what it does next is not told here: %d lines a step at most)", ports.MaxDoing))
		}
	}
}

// names takes what an event names: the version its handshake says, its session, its models.
func (s *step) names(ev Event) {
	if ev.Version != "" {
		s.o.Receipt.CLIVersion = ev.Version
	}
	if ev.Session != "" && s.o.Receipt.SessionID == "" {
		s.o.Receipt.SessionID = ev.Session
	}
	s.models(ev.Models)
}

func (s *step) models(ms []string) {
	for _, m := range ms {
		if m != "" && !slices.Contains(s.o.Receipt.ModelsReported, m) && len(s.o.Receipt.ModelsReported) < runner.MaxModelsReported {
			s.o.Receipt.ModelsReported = append(s.o.Receipt.ModelsReported, m)
		}
	}
}

// take records the terminal event: the outcome it fixes, unless a call is still open or the answer
// does not fit its schema.
func (s *step) take(t *Terminal) {
	r := &s.o.Receipt
	r.TerminalEvent, r.TerminalReason = t.Event, t.Reason
	if t.Session != "" {
		r.SessionID = t.Session
	}
	s.models(t.Models)
	if t.Turns > 0 {
		r.Turns = t.Turns
	}
	r.CostUSD, r.CostReported, r.Usage = t.CostUSD, t.CostReported, t.Usage
	if t.Denials > r.PermissionDenials {
		r.PermissionDenials = t.Denials
	}
	if t.Failure != nil {
		s.fail(t.Failure)
		return
	}
	if f := s.ledger.AtEnd(); f != nil {
		s.fail(f)
		return
	}
	s.o.Final = t.Final
	if len(s.req.Schema) > 0 {
		answer := t.Structured
		if answer == nil {
			answer = jsonAnswer(t.Final)
		}
		if answer == nil {
			s.fail(runner.Failf(runner.CauseSchema, "the CLI's answer is not one JSON object, which its schema asks for"))
			return
		}
		s.o.Structured = answer
	}
	r.Outcome = runner.Completed
}

// jsonAnswer is the final message as one JSON object (fenced in a code block or not), or nil.
func jsonAnswer(final string) json.RawMessage {
	t := strings.TrimSpace(final)
	if rest, ok := strings.CutPrefix(t, "```"); ok {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			if body, ok := strings.CutSuffix(strings.TrimSpace(rest[nl+1:]), "```"); ok {
				t = strings.TrimSpace(body)
			}
		}
	}
	if strictjson.CheckObject([]byte(t), strictjson.Limits{MaxDepth: maxDepth}) != nil || !strings.HasPrefix(t, "{") {
		return nil
	}
	return json.RawMessage(t)
}

// finish scrubs every text of the outcome: nothing the CLI said reaches a caller with a credential
// in it, on the success path as on the failure path.
func (s *step) finish() {
	o := s.o
	if s.turns > o.Receipt.Turns {
		o.Receipt.Turns = s.turns
	}
	if s.ledger != nil {
		o.Receipt.ToolCalls = s.ledger.Calls()
	}
	sc := s.scrub
	o.Final = sc.Scrub(o.Final)
	if o.Structured != nil {
		o.Structured = json.RawMessage(sc.Bytes(o.Structured))
	}
	r := &o.Receipt
	r.Settle(s.req.Runner.Billing)
	r.SessionID = receiptWord(sc.Scrub(r.SessionID))
	r.TerminalEvent = receiptWord(sc.Scrub(r.TerminalEvent))
	r.TerminalReason = receiptWord(sc.Scrub(r.TerminalReason))
	for i, m := range r.ModelsReported {
		r.ModelsReported[i] = receiptWord(sc.Scrub(m))
	}
	scrubAsks(sc, r.Asks)
	if r.Sandbox == nil {
		r.Sandbox = sandboxReceipt(s.req, nil) // off, when the step never started
	} else {
		for i, h := range r.Sandbox.Refused { // where the CLI tried to connect: its words
			r.Sandbox.Refused[i] = receiptWord(sc.Scrub(h))
		}
	}
	if o.Failure != nil {
		// A failed step answers nothing: what it said before failing is not an answer.
		o.Final, o.Structured = "", nil
		o.Failure.Detail = runner.Plain(sc.Scrub(o.Failure.Detail))
		r.Detail = o.Failure.Detail
	}
	if v, ok := runner.VersionIn(s.req.Runner.Version); ok && r.CLIVersion == "" {
		r.CLIVersion = v.String()
	}
}

// receiptWord keeps a word the CLI gave within a receipt's rules: one plain line of at most 200 bytes.
func receiptWord(s string) string {
	s = strings.Map(func(r rune) rune {
		if text.Hidden(r) != "" {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	if len(s) > 200 {
		s = text.Clip(s)
	}
	return s
}

// envMap reads KEY=value lines into a map (a later duplicate wins).
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// pathless is an error's words without the paths and addresses it may name.
func pathless(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
