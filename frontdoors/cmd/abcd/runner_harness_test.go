//go:build unix

package main

// The runner route with the real coding-agent CLIs (make test-harness installs them from
// tools/harness and names their folder in ABCD_RUNNER_CLIS): abcd drives a spec's run with
// `implement run`, the implementer on Claude Code, whose every shell command passes abcd's guard hook,
// and the reviewers and the auditor on Codex, which holds their answers to the review_reply and
// audit_return schemas itself. Each CLI talks to a loopback stand-in of its vendor's API with a dummy
// key; the stand-ins answer each request from what it asks (which lane's brief, which reviewer, how
// far the conversation has gone), so the implementer edits the lane's worktree with a real tool call
// and the run goes on as it would with a model behind it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/ports/loop"
)

// The dummy keys the real CLIs are given: the stand-ins take any key, and nothing abcd prints or
// writes may hold them.
const (
	hnAnthropicKey = "sk-ant-harness-canary-5f0e1d2c3b4a"
	hnOpenAIKey    = "sk-openai-harness-canary-9a8b7c6d5e4f"
)

// What the runner route adds to every brief it hands a CLI (ports/loop/runnerroute.go), and what the
// adapter's proving call asks: the stand-ins tell the steps apart by them.
const (
	hnImplementer = "You run headless, as runner cc"
	hnValidator   = "You run headless: how you answer"
	hnProve       = "Reply with the single word OK"
	hnBlocked     = "git push --force origin main"
	hnServer      = "tail -f /dev/null"
)

// harnessRun is a repository with an open spec, and a machine on which `abcd ahoy connect` connected
// the real Claude Code as runner cc (the implementer's) and the real Codex as runner rv (the
// reviewers' and the auditor's), each against its stand-in.
type harnessRun struct {
	runnerWorld
	root       string
	anthropic  *runnertest.API
	openai     *runnertest.API
	env        []string
	processes  *hnProcesses
	lastStderr string
	// streams is where each CLI's stream is kept as it runs (ABCD_RECORD_FIXTURES=1), else "".
	streams string
}

// recording puts, with ABCD_RECORD_FIXTURES=1, a claude and a codex ahead of the real ones on the
// PATH abcd runs with: each runs the real CLI and keeps a copy of its stream, so the streams the
// real CLIs wrote through the loop become fixtures (keep). It returns the folder of the copies.
func recording(t *testing.T, root, clis string) string {
	t.Helper()
	if os.Getenv("ABCD_RECORD_FIXTURES") == "" {
		return ""
	}
	bin, streams := filepath.Join(root, "recording"), filepath.Join(root, "streams")
	assert.NilError(t, os.MkdirAll(bin, 0o755))
	assert.NilError(t, os.MkdirAll(streams, 0o755))
	for _, name := range []string{"claude", "codex"} {
		real, err := filepath.EvalSymlinks(filepath.Join(clis, name))
		assert.NilError(t, err)
		// The folders are the test's own, with no quote in them.
		script := fmt.Sprintf("#!/bin/sh\n'%s' \"$@\" | tee '%s'-$$.jsonl\n", real, filepath.Join(streams, name))
		assert.NilError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	return streams
}

// keep writes, with ABCD_RECORD_FIXTURES=1, the first stream a CLI wrote that holds every one of
// marks as the fixture scenario of its version, scrubbed of the keys, the stand-ins' ports and the
// test's folders.
func (h *harnessRun) keep(t *testing.T, cli, version, scenario string, marks ...string) {
	t.Helper()
	if h.streams == "" {
		return
	}
	files, err := filepath.Glob(filepath.Join(h.streams, cli+"-*.jsonl"))
	assert.NilError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		s := string(data)
		if !strings.HasPrefix(s, "{") || !containsAll(s, marks) {
			continue // a --version or --help, or another step's stream
		}
		for _, key := range []string{hnAnthropicKey, hnOpenAIKey} {
			s = strings.ReplaceAll(s, key, "[key]")
		}
		s = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(s, "127.0.0.1:9")
		s = strings.ReplaceAll(s, h.root, "/work")
		dir := filepath.Join("..", "..", "..", "adapters", "runner", cli, "testdata", version)
		assert.NilError(t, os.MkdirAll(dir, 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, scenario+".jsonl"), []byte(s), 0o644))
		return
	}
	t.Errorf("no %s stream holds %q", cli, marks)
}

func containsAll(s string, marks []string) bool {
	for _, m := range marks {
		if !strings.Contains(s, m) {
			return false
		}
	}
	return true
}

func newHarnessRun(t *testing.T, steps string, limits map[string]any) *harnessRun {
	t.Helper()
	dir := os.Getenv("ABCD_RUNNER_CLIS")
	if dir == "" {
		t.Skip("make test-harness runs the real coding-agent CLIs (ABCD_RUNNER_CLIS names their folder)")
	}
	w := newRunnerWorld(t, steps)
	root := filepath.Dir(w.c.dir)
	// The machine's configuration is made again below, as a person makes it.
	assert.NilError(t, os.Remove(filepath.Join(w.c.home, ".abcd", "config.json")))
	h := &harnessRun{runnerWorld: w, root: root, anthropic: runnertest.Anthropic(), openai: runnertest.OpenAI()}
	t.Cleanup(h.anthropic.Close)
	t.Cleanup(h.openai.Close)
	prove := runnertest.Rule{When: []string{hnProve}, Reply: runnertest.Reply{Text: "OK"}}
	h.anthropic.Route(prove)
	h.openai.Route(prove)

	h.streams = recording(t, root, dir)
	path := dir
	if h.streams != "" {
		path = filepath.Join(root, "recording") + string(os.PathListSeparator) + dir
	}
	env := w.c.env()
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + path + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	env = append(env, "ANTHROPIC_API_KEY="+hnAnthropicKey, "ANTHROPIC_BASE_URL="+h.anthropic.URL,
		"OPENAI_API_KEY="+hnOpenAIKey, "OPENAI_BASE_URL="+h.openai.URL+"/v1")
	h.env = env

	// Connected as the README says: each CLI found on PATH, checked and proven with one call, and
	// the agents it takes named.
	h.abcdOK(t, "ahoy", "connect", "--runner", "cc", "--cli", "claude", "--credential-env", "ANTHROPIC_API_KEY",
		"--pass-env", "ANTHROPIC_BASE_URL", "--model", "claude-sonnet-4-5", "--tier", "frontier=claude-sonnet-4-5", "--role", "implementer")
	h.abcdOK(t, "ahoy", "connect", "--runner", "rv", "--cli", "codex", "--credential-env", "OPENAI_API_KEY",
		"--pass-env", "OPENAI_BASE_URL", "--model", "gpt-5-codex", "--tier", "frontier=gpt-5-codex", "--tier", "economy=gpt-5-codex", "--tier", "local=gpt-5-codex",
		"--role", "ruthless-reviewer", "--role", "security-reviewer", "--role", "intent-auditor")
	assert.Check(t, is.Equal(h.anthropic.Count(), 1), "one proving call")
	assert.Check(t, is.Equal(h.openai.Count(), 1), "one proving call")

	// Then the runners' concurrency and bounds, in the machine's file.
	config := filepath.Join(w.c.home, ".abcd", "config.json")
	data, err := os.ReadFile(config)
	assert.NilError(t, err)
	var machine map[string]any
	assert.NilError(t, json.Unmarshal(data, &machine))
	oracle := machine["oracle"].(map[string]any)
	roles := oracle["roles"].(map[string]any)
	assert.Check(t, is.Len(roles, 4), "%v", roles)
	runners := oracle["runner"].(map[string]any)
	for name, n := range map[string]int{"cc": 2, "rv": 4} {
		r := runners[name].(map[string]any)
		r["concurrency"] = n
		r["limits"] = limits
	}
	data, err = json.Marshal(machine)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(config, data, 0o600))
	h.processes = watchProcesses(t, root)
	return h
}

// toolResult is what Claude Code told the model a tool call of its came to: the tool_result for id
// in the first request that carries one.
func (h *harnessRun) toolResult(t *testing.T, id string) string {
	t.Helper()
	for _, raw := range h.anthropic.Matching(`"tool_use_id":"` + id + `"`) {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		assert.NilError(t, json.Unmarshal([]byte(raw), &body))
		for _, m := range body.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue // a message whose content is a string holds no tool result
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && b.ToolUseID == id {
					return string(b.Content)
				}
			}
		}
	}
	t.Errorf("no request carried the result of tool call %s", id)
	return ""
}

// sawRunning reports whether the watcher saw a process of the run running cmd (the command itself,
// or the shell a CLI started it in).
func (h *harnessRun) sawRunning(cmd string) bool {
	for _, what := range h.processes.stop() {
		if strings.Contains(what, cmd) {
			return true
		}
	}
	return false
}

func (h *harnessRun) abcdOK(t *testing.T, args ...string) *icmd.Result {
	t.Helper()
	res := icmd.RunCmd(icmd.Command(binary, append(args, "--json")...), icmd.Dir(h.c.dir), icmd.WithEnv(h.env...))
	res.Assert(t, icmd.Success)
	return res
}

// implementRun runs `abcd implement run` on the spec and asserts what holds of every run through
// the real CLIs: exit 0, no key in anything abcd printed or wrote, every request answered by a rule,
// and no process of the run's alive once abcd has exited.
func (h *harnessRun) implementRun(t *testing.T) loop.ImplementRunResult {
	t.Helper()
	began := time.Now()
	res := icmd.RunCmd(icmd.Command(binary, "implement", "run", h.spec, "--json"), icmd.Dir(h.c.dir), icmd.WithEnv(h.env...))
	t.Logf("implement run took %s", time.Since(began).Round(time.Millisecond))
	h.lastStderr = res.Stderr()
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	for _, key := range []string{hnAnthropicKey, hnOpenAIKey} {
		assert.Check(t, !strings.Contains(res.Stdout()+res.Stderr(), key), "the key leaked")
		assert.Check(t, is.Len(filesHolding(t, filepath.Join(h.c.dir, ".abcd"), key), 0), "the key was written")
		assert.Check(t, is.Len(filesHolding(t, filepath.Join(h.c.home, ".abcd"), key), 0), "the key was written")
	}
	assert.Check(t, is.Equal(h.anthropic.Unmatched(), 0), "a request Claude Code made that no rule answers")
	assert.Check(t, is.Equal(h.openai.Unmatched(), 0), "a request Codex made that no rule answers")
	h.checkNoneLeft(t, res.Stderr())
	return out
}

// checkNoneLeft holds that every process of the run is gone now that abcd has exited: every process
// group abcd reported starting, and every process the watcher saw working for the run (its
// environment or its folder inside the test's), the CLIs' children and grandchildren included.
func (h *harnessRun) checkNoneLeft(t *testing.T, stderr string) {
	t.Helper()
	groups := regexp.MustCompile(`process group (\d+)`).FindAllStringSubmatch(stderr, -1)
	assert.Check(t, len(groups) > 0, "abcd named no process group it started: %s", stderr)
	for _, g := range groups {
		pgid, err := strconv.Atoi(g[1])
		assert.NilError(t, err)
		// A member that exited and waits for init to reap it (a zombie) holds nothing.
		if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
			assert.Check(t, is.Len(liveMembers(t, pgid), 0), "process group %d outlived the run", pgid)
		}
	}
	seen := h.processes.stop()
	assert.Check(t, len(seen) >= len(groups), "the watcher saw %d processes for %d groups", len(seen), len(groups))
	for pid, what := range seen {
		assert.Check(t, !running(strconv.Itoa(pid)), "process %d (%s) outlived the run", pid, text80(what))
	}
	t.Logf("%d process groups, %d processes seen working for the run, none left", len(groups), len(seen))
}

// hnProcesses watches /proc while a run goes on and keeps every process working for it: one whose
// environment or working folder names the test's folder (abcd, the CLIs, the guard hooks, the
// shells their tools start, anything those start).
type hnProcesses struct {
	mu   sync.Mutex
	seen map[int]string
	// errs are reads of /proc that failed for another reason than the process being gone or not the
	// test's to read: the watch saw less than it should, so the test fails.
	errs []error
	done chan struct{}
	wg   sync.WaitGroup
}

func watchProcesses(t *testing.T, root string) *hnProcesses {
	t.Helper()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("the process watcher reads /proc")
	}
	p := &hnProcesses{seen: map[int]string{}, done: make(chan struct{})}
	self := os.Getpid()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			p.scan(root, self)
			select {
			case <-p.done:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() {
		p.stop()
		p.mu.Lock()
		defer p.mu.Unlock()
		assert.Check(t, is.Len(p.errs, 0), "the process watcher could not read /proc: %v", p.errs)
	})
	return p
}

// gone is a read of a process's /proc entry that failed because the process ended (or ended while
// it was read) or belongs to someone the test cannot read: neither is a process of the run.
func gone(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.ESRCH)
}

func (p *hnProcesses) failed(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.errs) < 8 {
		p.errs = append(p.errs, err)
	}
}

func (p *hnProcesses) scan(root string, self int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		p.failed(err)
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "/proc/" + e.Name()
		env, err := os.ReadFile(dir + "/environ")
		if err != nil && !gone(err) {
			p.failed(err)
		}
		cwd, err := os.Readlink(dir + "/cwd")
		if err != nil && !gone(err) {
			p.failed(err)
		}
		if !strings.Contains(string(env), root) && !strings.HasPrefix(cwd, root) {
			continue
		}
		cmd, err := os.ReadFile(dir + "/cmdline")
		if err != nil && !gone(err) {
			p.failed(err)
		}
		p.mu.Lock()
		if _, ok := p.seen[pid]; !ok {
			p.seen[pid] = strings.ReplaceAll(string(cmd[:min(len(cmd), 4096)]), "\x00", " ")
		}
		p.mu.Unlock()
	}
}

// saw reports whether the watcher has seen a process running cmd (the command, or a shell running it).
func (p *hnProcesses) saw(cmd string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, what := range p.seen {
		if strings.Contains(what, cmd) {
			return true
		}
	}
	return false
}

// stop ends the watch (after one last look) and returns what it saw.
func (p *hnProcesses) stop() map[int]string {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[int]string{}
	for k, v := range p.seen {
		out[k] = v
	}
	return out
}

// liveMembers lists the processes of a process group that are not zombies, with their command.
func liveMembers(t *testing.T, pgid int) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir("/proc")
	assert.NilError(t, err)
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue // not a process
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if gone(err) {
			continue
		}
		assert.NilError(t, err)
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil && !gone(err) {
				t.Errorf("reading /proc/%s/cmdline: %v", e.Name(), err)
			}
			out = append(out, fmt.Sprintf("%s %s ppid %s: %s", e.Name(), f[0], f[1], text80(strings.ReplaceAll(string(cmd), "\x00", " "))))
		}
	}
	return out
}

func text80(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// filesHolding lists the files under dir that hold s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), s) {
			found = append(found, p)
		}
		return nil
	})
	if !errors.Is(err, os.ErrNotExist) {
		assert.NilError(t, err)
	}
	return found
}

// worktreeOf is the folder a runner's brief tells the implementer to work in.
var worktreeOf = regexp.MustCompile(`Work in (/[^ "\\]+) and nowhere else`)

// writeFile is Claude Code's Write tool putting a file in the worktree the request's brief names.
func writeFile(id, name, content string) func(body string) runnertest.Reply {
	return func(body string) runnertest.Reply {
		m := worktreeOf.FindStringSubmatch(body)
		if m == nil {
			return runnertest.Reply{Text: "The brief names no worktree."}
		}
		return runnertest.Reply{Text: "Writing " + name + ".", Tools: []runnertest.ToolCall{{ID: id, Name: "Write",
			Input: map[string]any{"file_path": m[1] + "/" + name, "content": content}}}}
	}
}

// implementerRules is each lane's implementer, as a model would answer on Claude Code: it writes its
// lane's file with the Write tool, then ends with its summary. Lane 1 also tries a force push, which
// abcd's guard hook blocks; lane 2 first starts a server in the background (run_in_background), which
// must not outlive the step; lane 3 first tries to write the guard's own rules file with the Write
// tool, which the guard's hook blocks as it does in a person's session.
func implementerRules() []runnertest.Rule {
	bash := func(id string, input map[string]any) func(string) runnertest.Reply {
		return func(string) runnertest.Reply {
			return runnertest.Reply{Tools: []runnertest.ToolCall{{ID: id, Name: "Bash", Input: input}}}
		}
	}
	var rules []runnertest.Rule
	for n, word := range []string{"one", "two", "three"} {
		step := fmt.Sprintf("Step %d of spec", n+1)
		write := fmt.Sprintf("toolu_write_%d", n+1)
		type call struct {
			id   string
			make func(string) runnertest.Reply
		}
		calls := []call{{write, writeFile(write, fmt.Sprintf("DONE-%d", n+1), word+"\n")}}
		switch n {
		case 0:
			calls = append(calls, call{"toolu_push", bash("toolu_push", map[string]any{"command": hnBlocked, "description": "Publish"})})
		case 1:
			calls = append([]call{{"toolu_serve", bash("toolu_serve", map[string]any{"command": hnServer, "run_in_background": true, "description": "Serve"})}}, calls...)
		case 2:
			calls = append([]call{{"toolu_guardfile", writeFile("toolu_guardfile", ".abcd/guard.json", `{"schema_version":1,"rules":[]}`)}}, calls...)
		}
		when := []string{hnImplementer, step}
		for _, c := range calls {
			rules = append(rules, runnertest.Rule{When: when, Unless: []string{c.id}, Make: c.make})
			when = append(when[:len(when):len(when)], c.id)
		}
		rules = append(rules, runnertest.Rule{When: when, Reply: runnertest.Reply{Text: fmt.Sprintf("Do part %s\n\nWrote DONE-%d.", word, n+1)}})
	}
	return rules
}

// validatorRules is each reviewer and the auditor, as a model answers on Codex: one JSON object in
// its reply's schema, which Codex was handed with --output-schema.
func validatorRules(intent string) []runnertest.Rule {
	return []runnertest.Rule{
		{When: []string{hnValidator, "# ruthless-reviewer:"}, Reply: runnertest.Reply{Text: `{"summary":"Read the change.","verdict":"SHIP","findings":[]}`}},
		{When: []string{hnValidator, "# security-reviewer:"}, Reply: runnertest.Reply{Text: `{"summary":"Nothing to fear.","verdict":"APPROVE","findings":[]}`}},
		{When: []string{hnValidator, "# intent-auditor:"}, Reply: runnertest.Reply{Text: `{"schema_version":1,"intent":"` + intent +
			`","summary":"The criterion is met.","verdicts":[{"criterion":"ac-1","verdict":"MET","evidence":"DONE-1, DONE-2 and DONE-3 stand.","concerns":""}]}`}},
	}
}

var harnessLimits = map[string]any{"wall_clock_s": 300, "first_event_s": 120, "silence_s": 120}

// A three-lane spec, lane 3 building on lanes 1 and 2, taken to a finished, audited run by the real
// CLIs, unattended: every step on the route asked, one commit by abcd per implementer step holding
// that lane's file alone, the guard in the implementer's loop, the verdicts recorded, and no process
// left.
func TestHarnessImplementRunWithTheRealCLIs(t *testing.T) {
	h := newHarnessRun(t, "1. Part one of the work.\n2. Part two of the work.\n3. (after 1, 2) Part three of the work.", harnessLimits)
	h.anthropic.Route(append(implementerRules(), runnertest.Rule{When: []string{hnProve}, Reply: runnertest.Reply{Text: "OK"}})...)
	h.openai.Route(validatorRules(h.intent)...)
	out := h.implementRun(t)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v\n%s", out, h.lastStderr)
	assert.Check(t, out.Run.Finished)
	assert.Check(t, is.Equal(out.Routed, 10), "three implementers, six reviews, one audit")
	assert.Check(t, is.Equal(out.FellBack, 0), h.lastStderr)

	// What each stand-in was asked: each implementer's brief once a tool call and once more for its
	// summary, and each validator's request once, after the proving calls.
	assert.Check(t, is.Equal(h.anthropic.Count(), 1+3+3+3))
	assert.Check(t, is.Equal(h.openai.Count(), 1+7))
	// The guard was in Claude Code's loop, for its shell and its file tools: lane 1's force push and
	// lane 3's Write of the guard's own rules file (.abcd/guard.json) came back to the model blocked,
	// and the lanes went on (lane 3's commit holds DONE-3 alone, below).
	assert.Check(t, is.Contains(h.toolResult(t, "toolu_push"), "abcd guard blocked this command (rule git-push-force)"))
	assert.Check(t, is.Contains(h.toolResult(t, "toolu_guardfile"), "abcd guard blocked this write (rule guard-file-write)"))
	// Lane 2's server ran in the background, and is gone with the step (implementRun held that no
	// process of the run is left).
	assert.Check(t, h.sawRunning(hnServer), "the background server never ran: %s", h.toolResult(t, "toolu_serve"))
	// Codex held each validator's answer to its schema: the request carried it as a strict format.
	for _, role := range []string{"# ruthless-reviewer:", "# security-reviewer:", "# intent-auditor:"} {
		for _, body := range h.openai.Matching(role) {
			assert.Check(t, is.Contains(body, `"type":"json_schema"`), "%s's request", role)
		}
	}

	var story loop.ImplementRecordResult
	h.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Assert(t, is.Len(story.Implementations, 3))
	files := map[string]string{"lane-1": "DONE-1", "lane-2": "DONE-2", "lane-3": "DONE-3"}
	for _, im := range story.Implementations {
		assert.Check(t, is.Equal(im.Receipt.ConnectionTried, "cc"), "%+v", im.Receipt)
		assert.Check(t, is.Equal(im.Receipt.ConnectionUsed, "cc"), "%+v", im.Receipt)
		assert.Assert(t, im.Runner != nil)
		assert.Check(t, is.Equal(string(im.Runner.CLI), "claude"))
		assert.Check(t, is.Equal(im.Runner.Outcome, "completed"))
		assert.Check(t, im.Runner.CLIVersion != "" && im.Runner.SessionID != "", "%+v", im.Runner)
		assert.Check(t, im.Runner.ToolCalls >= 1, "%+v", im.Runner)
		// One commit by abcd per step, holding the lane's file alone, with the agent's summary.
		assert.Assert(t, is.Len(im.Commits, 1))
		assert.Check(t, is.DeepEqual(im.Runner.Commits, im.Commits))
		assert.Check(t, is.Equal(h.c.git(t, "show", "--name-only", "--format=", im.Commits[0]), files[im.Lane]), "%s's commit", im.Lane)
		msg := h.c.git(t, "log", "-1", "--format=%s%n%b", im.Commits[0])
		assert.Check(t, strings.HasPrefix(msg, "Do part "), msg)
		assert.Check(t, is.Contains(msg, "Abcd-Runner: cc (claude "+im.Runner.CLIVersion+")"))
	}
	assert.Check(t, is.Len(story.Verdicts, 7))
	for _, v := range story.Verdicts {
		assert.Check(t, is.Equal(v.Receipt.ConnectionTried, "rv"), "%+v", v)
		assert.Check(t, is.Equal(v.Ran, "rv"), "%+v", v)
		assert.Check(t, v.Pass, "%+v", v)
		assert.Assert(t, v.Runner != nil)
		assert.Check(t, is.Equal(string(v.Runner.CLI), "codex"))
		assert.Check(t, v.Runner.SchemaEnforced, "Codex enforced the reply's schema")
	}
	assert.Check(t, is.Len(story.Fallbacks, 0))
	integration := out.Run.Lanes[len(out.Run.Lanes)-1].Branch
	for lane, file := range files {
		word := map[string]string{"lane-1": "one", "lane-2": "two", "lane-3": "three"}[lane]
		assert.Check(t, is.Equal(h.c.git(t, "show", integration+":"+file), word))
	}
	assert.Check(t, is.Equal(h.c.git(t, "show", out.Run.Lanes[2].Branch+":DONE-1"), "one"), "lane 3 built on lane 1")
	assert.Check(t, is.Equal(h.c.git(t, "show", out.Run.Lanes[2].Branch+":DONE-2"), "two"), "lane 3 built on lane 2")
	assert.Check(t, is.Len(strings.Split(h.c.git(t, "worktree", "list"), "\n"), 1))

	// The streams the real CLIs wrote through the loop, kept as fixtures with ABCD_RECORD_FIXTURES=1:
	// lane 1's implementer (a write, a blocked push, its summary), and a review and the audit.
	h.keep(t, "claude", story.Implementations[0].Runner.CLIVersion, "loop-implement", "toolu_push", "Do part one")
	h.keep(t, "codex", story.Verdicts[0].Runner.CLIVersion, "loop-review", `\"verdict\":\"SHIP\"`)
	h.keep(t, "codex", story.Verdicts[0].Runner.CLIVersion, "loop-audit", `\"verdicts\":`)
}

// A real CLI's failure through the loop falls back to the host with its cause in the receipt, the
// lane put back where the step started, and no process left: on Claude Code's implementer, the vendor
// refusing the key, a step that ends in success having changed nothing, a vendor that stops answering
// mid-step and a shell command that never ends (abcd's silence bound ends the CLI's process group, and
// the shell Claude Code ran it in, in a session of its own); on Codex's reviewer, an
// answer that breaks the review_reply schema's rules beyond what its strict format holds, and a
// vendor that stops answering.
func TestHarnessARealCLIsFailureFallsBackToTheHost(t *testing.T) {
	quiet := map[string]any{"wall_clock_s": 300, "first_event_s": 120, "silence_s": 5}
	for _, tc := range []struct {
		name   string
		role   string
		reply  runnertest.Reply
		limits map[string]any
		cause  string
		reason string
	}{
		{"the vendor refuses the implementer's key", "implementer", runnertest.Reply{Status: 401, ErrorType: "authentication_error"}, harnessLimits, "auth", "refused"},
		{"the implementer changes nothing", "implementer", runnertest.Reply{Text: "Do the part\n\nNothing needed doing."}, harnessLimits, "no_changes", "invalid"},
		{"the implementer's vendor hangs", "implementer", runnertest.Reply{Hang: true}, quiet, "silence_timeout", "timeout"},
		{"the implementer's command hangs", "implementer", runnertest.Reply{Tools: []runnertest.ToolCall{{ID: "toolu_hang", Name: "Bash",
			Input: map[string]any{"command": hnServer, "description": "Follow nothing"}}}}, quiet, "silence_timeout", "timeout"},
		{"the reviewer's answer breaks its schema", "ruthless-reviewer", runnertest.Reply{Text: `{"summary":"","verdict":"SHIP","findings":[]}`}, harnessLimits, "schema", "invalid"},
		{"the reviewer's vendor hangs", "ruthless-reviewer", runnertest.Reply{Hang: true}, quiet, "silence_timeout", "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessRun(t, "1. Part one of the work.", tc.limits)
			if tc.role == "implementer" {
				h.anthropic.Route(runnertest.Rule{When: []string{hnImplementer}, Reply: tc.reply})
			} else {
				h.anthropic.Route(implementerRules()...)
				h.openai.Route(append([]runnertest.Rule{{When: []string{hnValidator, "# " + tc.role + ":"}, Reply: tc.reply}}, validatorRules(h.intent)...)...)
			}
			out := h.implementRun(t)
			assert.Check(t, is.Equal(out.Ended, loop.EndedHost), "%+v", out)
			assert.Check(t, is.Equal(out.FellBack, 1), h.lastStderr)
			var story loop.ImplementRecordResult
			h.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
			assert.Assert(t, is.Len(story.Fallbacks, 1))
			f := story.Fallbacks[0]
			cli, asked := "claude", "cc"
			if tc.role != "implementer" {
				cli, asked = "codex", "rv"
			}
			assert.Check(t, is.Equal(f.Role, tc.role))
			assert.Check(t, is.Equal(f.Asked, asked))
			assert.Check(t, is.Equal(f.Ran, "host"))
			assert.Check(t, is.Equal(string(f.Cause), tc.cause), "%+v", f)
			assert.Check(t, is.Equal(f.Reason, tc.reason), "%+v", f)
			assert.Assert(t, f.Runner != nil)
			assert.Check(t, is.Equal(string(f.Runner.CLI), cli))
			// The step is the host's, with its brief, and the next lines say so.
			open := awaitOf(out.Run, tc.role)
			assert.Assert(t, open != nil, "%+v", out.Run.Awaits)
			assert.Check(t, is.Contains(open.Next.Text, "did not take this"), open.Next.Text)
			// The lane is put back (an implementer's step: nothing left in its worktree, on its branch
			// at its start; a reviewer's: the lane as the implementer's commit left it).
			ln := out.Run.Lanes[0]
			wt := teamClone{name: h.c.name, dir: ln.Worktree, home: h.c.home}
			assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""))
			assert.Check(t, is.Equal(wt.git(t, "symbolic-ref", "HEAD"), "refs/heads/"+ln.Branch))
			if tc.role == "implementer" {
				assert.Check(t, is.Equal(wt.git(t, "rev-parse", "HEAD"), ln.Start))
				assert.Check(t, is.Equal(h.openai.Count(), 1), "no reviewer ran")
			} else {
				assert.Check(t, is.Equal(wt.git(t, "rev-parse", "HEAD"), ln.Head))
				assert.Check(t, is.Equal(wt.git(t, "show", "HEAD:DONE-1"), "one"))
			}
		})
	}
}

// Ctrl-C while the real Claude Code runs a command that never ends: abcd ends the CLI's group and the
// shell it ran the command in (a session of its own), exits 3 with the run interrupted and the lane
// put back, and leaves no process; the same command then hands the step to the runner again and
// takes the run to its end.
func TestHarnessAnInterruptedRunGoesOnWithTheRealCLIs(t *testing.T) {
	h := newHarnessRun(t, "1. Part one of the work.", harnessLimits)
	h.anthropic.Route(runnertest.Rule{When: []string{hnImplementer}, Reply: runnertest.Reply{Tools: []runnertest.ToolCall{{ID: "toolu_hang", Name: "Bash",
		Input: map[string]any{"command": hnServer, "description": "Follow nothing"}}}}})
	h.openai.Route(validatorRules(h.intent)...)
	started := icmd.StartCmd(icmd.Command(binary, "implement", "run", h.spec, "--json"), icmd.Dir(h.c.dir), icmd.WithEnv(h.env...))
	assert.NilError(t, started.Error)
	deadline := time.Now().Add(90 * time.Second)
	for !h.processes.saw(hnServer) {
		assert.Assert(t, time.Now().Before(deadline), "the command never ran: %s", started.Stderr())
		time.Sleep(50 * time.Millisecond)
	}
	assert.NilError(t, started.Cmd.Process.Signal(os.Interrupt))
	res := icmd.WaitOnCmd(60*time.Second, started)
	res.Assert(t, icmd.Expected{ExitCode: 3})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedInterrupted))
	h.checkNoneLeft(t, res.Stderr())
	ln := out.Run.Lanes[0]
	wt := teamClone{name: h.c.name, dir: ln.Worktree, home: h.c.home}
	assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""), "the lane is put back")
	assert.Check(t, is.Equal(wt.git(t, "rev-parse", "HEAD"), ln.Start))

	h.anthropic.Route(implementerRules()...)
	h.processes = watchProcesses(t, h.root)
	again := h.implementRun(t)
	assert.Check(t, is.Equal(again.Ended, loop.EndedFinished), "%s", h.lastStderr)
	assert.Check(t, is.Contains(h.lastStderr, "interrupted before, goes to runner cc again"))
	assert.Check(t, is.Equal(again.FellBack, 0))
}
