//go:build unix

package main

// The runner route end to end: abcd drives a spec's run with `implement run`, every step taken by a
// runner, with the fake CLI (this test binary, started again by abcd as Claude Code; see
// adapters/runner/runnertest) playing the implementer, who edits the lane's worktree, and the
// reviewers and the auditor, who answer in their published schemas. abcd commits the implementer's
// work itself, runs the definition of done and writes the receipt; the run ends merged, reviewed and
// audited, with nothing left for the host.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	dloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
)

// Claude Code's lines, as 2.1.x writes them, for the fake to play.
const (
	rnInit = `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":["Read","Edit","Bash"],"model":"claude-x","permissionMode":"dontAsk","claude_code_version":"2.1.332"}`
	rnText = `{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"working"}]},"session_id":"sess-1","parent_tool_use_id":null}`
)

// rnResult is a successful result line with the final message, and the structured answer when one
// is given.
func rnResult(t *testing.T, final string, structured any) string {
	t.Helper()
	ev := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": final, "num_turns": 2,
		"total_cost_usd": 0.01, "usage": map[string]any{"input_tokens": 100, "output_tokens": 20}, "permission_denials": []any{},
		"terminal_reason": "completed", "api_error_status": nil, "session_id": "sess-1"}
	if structured != nil {
		ev["structured_output"] = structured
	}
	b, err := json.Marshal(ev)
	assert.NilError(t, err)
	return string(b)
}

// runnerWorld is a repository with a planned intent and an open spec of the steps given, and a
// machine whose runners take every role: cc the implementer, rv the reviewers and the auditor.
type runnerWorld struct {
	c      teamClone
	spec   string
	intent string
	script string
}

func newRunnerWorld(t *testing.T, steps string) runnerWorld {
	t.Helper()
	return newRunnerWorldAt(t, realDir(t), steps)
}

// newRunnerWorldAt is newRunnerWorld with its repository and home in root.
func newRunnerWorldAt(t *testing.T, root, steps string) runnerWorld {
	t.Helper()
	c := teamClone{name: "ada", dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}
	assert.NilError(t, os.MkdirAll(c.home, 0o700))
	assert.NilError(t, os.MkdirAll(c.dir, 0o755))
	c.git(t, "init", "-q", "-b", "main")
	c.git(t, "commit", "-q", "--allow-empty", "-m", "base")
	c.abcd(t, 0, nil, "ahoy", "install", "--yes")
	c.write(t, ".abcd/config.json", fmt.Sprintf("{\n  \"schema_version\": 1,\n  \"setup_version\": %d,\n  \"build\": {\"dod\": \"test -f DONE-1 || test -f DONE-2 || test -f DONE-3\"}\n}\n", setup.SetupVersion))
	var it record.RecordCreated
	c.abcd(t, 0, &it, "intent", "new", "Faster cold start")
	c.fill(t, it.Record.Path, "Press Release", "abcd starts fast.")
	c.fill(t, it.Record.Path, "Acceptance Criteria", "- ac-1: Given a binary, when I run it, then it answers quickly.")
	var plan record.IntentPlanResult
	c.abcd(t, 0, &plan, "intent", "plan", it.Record.ID)
	c.fill(t, plan.Spec.Path, "Steps", steps)
	c.git(t, "add", "-A")
	c.git(t, "commit", "-q", "-m", "the record")

	exe, err := os.Executable()
	assert.NilError(t, err)
	// The implementer on one runner, the reviewers and the auditor on another.
	roles := map[string]any{"implementer": map[string]any{"runner": "cc"}}
	for _, r := range []string{"ruthless-reviewer", "security-reviewer", "intent-auditor"} {
		roles[r] = map[string]any{"runner": "rv"}
	}
	// These tests are about the loop, and the fake's script, dumps and marks live under /tmp, which
	// the sandbox hides: the runners run unconfined here. The sandbox's own run is
	// TestTheSandboxHoldsAFakeImplementersAttacks.
	block := func(concurrency int) map[string]any {
		return map[string]any{"cli": "claude", "executable": exe, "version": "2.1.332", "sandbox": "off",
			"credential_env": []string{"ANTHROPIC_API_KEY"}, "pass_env": []string{runnertest.ScriptVar, "FAKE_CLI_HELP"}, "concurrency": concurrency,
			"limits": map[string]any{"wall_clock_s": 60, "first_event_s": 30, "silence_s": 30}}
	}
	machine := map[string]any{"schema_version": 1, "oracle": map[string]any{
		"runner": map[string]any{"cc": block(2), "rv": block(4)}, "roles": roles}}
	data, err := json.Marshal(machine)
	assert.NilError(t, err)
	assert.NilError(t, os.MkdirAll(filepath.Join(c.home, ".abcd"), 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(c.home, ".abcd", "config.json"), data, 0o600))
	return runnerWorld{c: c, spec: plan.Spec.ID, intent: it.Record.ID, script: filepath.Join(root, "script.jsonl")}
}

// play writes the fake's script, played by a Claude Code that loads abcd's settings and runs its
// start-up hook.
func (w runnerWorld) play(t *testing.T, ds ...runnertest.Directive) {
	t.Helper()
	var b strings.Builder
	for _, d := range append([]runnertest.Directive{{SessionStart: "claude"}}, ds...) {
		line, err := json.Marshal(d)
		assert.NilError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	assert.NilError(t, os.WriteFile(w.script, []byte(b.String()), 0o600))
}

// env is the clone's, with what the fake needs passed through the runner's pass_env and a canary
// credential the runner is given.
func (w runnerWorld) env() []string {
	help := "Usage: claude [options]\n  " + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
	return append(w.c.env(), runnertest.ScriptVar+"="+w.script, "FAKE_CLI_HELP="+help, "ANTHROPIC_API_KEY="+rnCanary)
}

const rnCanary = "sk-ant-canary-77e1c0de9a8b4f21"

func (w runnerWorld) abcd(t *testing.T, args ...string) *icmd.Result {
	t.Helper()
	return icmd.RunCmd(icmd.Command(binary, args...), icmd.Dir(w.c.dir), icmd.WithEnv(w.env()...))
}

// agents is a script in which every role does its part well: the implementer of each lane writes
// its file, each reviewer passes, the auditor finds the criterion met.
func (w runnerWorld) agents(t *testing.T) []runnertest.Directive {
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	review := map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}}
	security := map[string]any{"summary": "Nothing to fear.", "verdict": "APPROVE",
		"findings": []any{map[string]any{"title": "A note", "location": "DONE-1:1", "severity": "low", "what": "a note", "fix": ""}}}
	audit := map[string]any{"schema_version": 1, "intent": w.intent, "summary": "The criterion is met.",
		"verdicts": []any{map[string]any{"criterion": "ac-1", "verdict": "MET", "evidence": "DONE-1 and DONE-2 stand.", "concerns": ""}}}
	return []runnertest.Directive{
		{Out: rnInit},
		{When: []string{impl, "Part one"}, Write: "DONE-1", Content: "one\n"},
		{When: []string{impl, "Part two"}, Write: "DONE-2", Content: "two\n"},
		{When: []string{impl, "Part three"}, Write: "DONE-3", Content: "three\n"},
		{When: []string{impl}, Out: rnText},
		{When: []string{impl}, Out: rnResult(t, "Do the part\n\nWrote the part's file.", nil)},
		{When: []string{answer, "# ruthless-reviewer:"}, Out: rnResult(t, "", review)},
		{When: []string{answer, "# security-reviewer:"}, Out: rnResult(t, "", security)},
		{When: []string{answer, "# intent-auditor:"}, Out: rnResult(t, "", audit)},
	}
}

// A three-lane spec, one lane building on the other two, taken to a finished, audited run with the
// implementer on one runner and the validators on another, unattended.
func TestImplementRunTakesASpecToItsEndOnARunner(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.\n3. (after 1, 2) Part three of the work.")
	w.play(t, w.agents(t)...)
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	assert.Check(t, out.Run.Finished)
	assert.Check(t, is.Equal(out.Routed, 10), "three implementers, six reviews, one audit")
	assert.Check(t, is.Equal(out.FellBack, 0))
	// Its runners' blocks say "sandbox": "off": the run names every step they ran unconfined, and
	// status says so in words.
	assert.Check(t, is.Len(out.Run.Unfenced, 10), "%v", out.Run.Unfenced)
	assert.Check(t, is.Contains(out.Run.Unfenced, "lane-1 implementer round 0 on runner cc"))
	assert.Check(t, is.Contains(out.Run.Unfenced, "integration intent-auditor round 1 on runner rv"))
	status := w.abcd(t, "implement", "status")
	status.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(status.Stdout(), "  sandbox off: lane-2 implementer round 0 on runner cc ran unconfined\n"))
	// Progress went to stderr as it happened, one line an event, and stdout holds the result alone.
	errs := res.Stderr()
	for _, want := range []string{"abcd: lane-1 implementer: cc takes the step (round 0)", "abcd: lane-1: abcd committed the runner's work as ",
		"abcd: integration: intent-auditor's audit (round 1) was answered by rv: PASS", "abcd: run " + out.Run.Run + ": finished"} {
		assert.Check(t, is.Contains(errs, want))
	}
	assert.Check(t, !strings.Contains(res.Stdout()+errs, rnCanary), "the canary leaked")
	// Off a terminal the lines are plain: not one escape byte (on one, a board: board_e2e_linux_test.go).
	assert.Check(t, !strings.ContainsRune(errs, '\x1b'), "%q", errs)
	// The definition of done abcd ran on each runner's commit is that head's check: it is not run
	// again before the reviews (the integration, which abcd merged itself, has its own).
	for _, lane := range []string{"lane-1", "lane-2", "lane-3"} {
		assert.Check(t, is.Contains(errs, "abcd: "+lane+": abcd ran build.dod `test -f DONE-1 || test -f DONE-2 || test -f DONE-3` on "))
		assert.Check(t, !strings.Contains(errs, "abcd: "+lane+": abcd runs build.dod"), "run twice on %s", lane)
	}
	assert.Check(t, is.Contains(errs, "abcd: integration: abcd runs build.dod"))

	// The record: each implementation by the runner, committed by abcd with the agent's summary; every
	// verdict answered by the runner; no fallback.
	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Assert(t, is.Len(story.Implementations, 3))
	for _, im := range story.Implementations {
		assert.Check(t, is.Equal(im.Receipt.ConnectionUsed, "cc"), "%+v", im.Receipt)
		assert.Check(t, is.Equal(im.Receipt.ConnectionTried, "cc"))
		assert.Assert(t, im.Runner != nil)
		assert.Check(t, is.Equal(im.Runner.Outcome, "completed"))
		assert.Check(t, is.DeepEqual(im.Runner.Commits, im.Commits))
		assert.Check(t, is.Len(im.Commits, 1))
		msg := w.c.git(t, "log", "-1", "--format=%s%n%b", im.Commits[0])
		assert.Check(t, strings.HasPrefix(msg, "Do the part\nWrote the part's file."), msg)
		assert.Check(t, is.Contains(msg, "Abcd-Runner: cc (claude 2.1.332)"))
	}
	assert.Check(t, is.Len(story.Verdicts, 7))
	for _, v := range story.Verdicts {
		assert.Check(t, is.Equal(v.Ran, "rv"), "%+v", v)
		assert.Check(t, v.Pass, "%+v", v)
		assert.Check(t, v.Runner != nil)
	}
	assert.Check(t, is.Len(story.Fallbacks, 0))
	// The audit per criterion, read back from the auditor's return.
	audit := story.Verdicts[len(story.Verdicts)-1]
	assert.Check(t, is.Equal(audit.Role, "intent-auditor"))
	assert.Check(t, is.DeepEqual(audit.Criteria, []review.CriterionVerdict{{Criterion: "ac-1", Verdict: "MET", Evidence: "DONE-1 and DONE-2 stand."}}), audit.AuditNote)
	// The same story as markdown, for a pull request: the lane graph as Mermaid, lane-3 after the
	// other two, merged into the integration.
	md := w.abcd(t, "implement", "record", "--run", out.Run.Run, "--markdown")
	md.Assert(t, icmd.Success)
	for _, want := range []string{"```mermaid\nflowchart LR\n", "  n0 --> n2\n", "  n1 --> n2\n", "  n2 -.-> n3\n", "| ac-1 | MET |\n", "#### Steps\n"} {
		assert.Check(t, is.Contains(md.Stdout(), want))
	}
	// The integration holds both lanes' work; the checkout holds only the record's new lines (the
	// spec's Progress, the intent's audit notes), and no worktree is left.
	integration := out.Run.Lanes[len(out.Run.Lanes)-1].Branch
	assert.Check(t, is.Equal(w.c.git(t, "show", integration+":DONE-1"), "one"))
	assert.Check(t, is.Equal(w.c.git(t, "show", integration+":DONE-2"), "two"))
	assert.Check(t, is.Equal(w.c.git(t, "show", integration+":DONE-3"), "three"))
	// Lane 3 built on lanes 1 and 2: its branch holds their work under its own.
	assert.Check(t, is.Equal(w.c.git(t, "show", out.Run.Lanes[2].Branch+":DONE-1"), "one"))
	for _, l := range strings.Split(w.c.git(t, "status", "--porcelain"), "\n") {
		assert.Check(t, is.Contains(l, " .abcd/development/"))
	}
	assert.Check(t, is.Len(strings.Split(w.c.git(t, "worktree", "list"), "\n"), 1))
}

// Every way a runner's step can fail falls back to the host with a receipt naming its cause: the
// await is the harness's with the same brief, the lane's worktree is as the step found it, and what
// an implementer did is kept on a branch of its own. implement run ends at the host's work and says
// what it is.
func TestARunnersFailureFallsBackToTheHostWithItsCause(t *testing.T) {
	if testing.Short() {
		t.Skip("a run a case: in make test, not under -short")
	}
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	pass := map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}}
	wrote := runnertest.Directive{When: []string{impl}, Write: "DONE-1", Content: "one\n"}
	done := func(t *testing.T) runnertest.Directive {
		return runnertest.Directive{When: []string{impl}, Out: rnResult(t, "Do the part", nil)}
	}
	for _, tc := range []struct {
		name   string
		script func(t *testing.T) []runnertest.Directive
		role   string
		cause  string
		reason string
		kept   bool // what the implementer did is kept on an attempt branch
	}{
		{"the definition of done fails", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, {When: []string{impl}, Write: "OTHER", Content: "x\n"}, done(t)}
		}, "implementer", "dod_failed", "invalid", true},
		{"nothing changed", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, done(t)}
		}, "implementer", "no_changes", "invalid", false},
		{"the agent committed itself", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, wrote, {When: []string{impl}, Run: []string{"git", "add", "DONE-1"}},
				{When: []string{impl}, Run: []string{"git", "commit", "-q", "-m", "stray"}}, done(t)}
		}, "implementer", "refs_moved", "invalid", true},
		{"a hook was written", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, wrote,
				{When: []string{impl}, Run: []string{"sh", "-c", `printf '#!/bin/sh\n' > "$(git rev-parse --git-path hooks)/pre-commit"`}}, done(t)}
		}, "implementer", "hooks_changed", "invalid", true},
		{"the guard's file and the harness's settings were written behind the hook's back", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, wrote,
				{When: []string{impl}, Write: ".abcd/guard.json", Content: `{"schema_version":1,"enabled":false}` + "\n"},
				{When: []string{impl}, Write: ".claude/settings.json", Content: "{}\n"}, done(t)}
		}, "implementer", "guarded_path_changed", "invalid", true},
		{"the credentials are refused", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, wrote, {Out: `{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key","api_error_status":401,"terminal_reason":"api_error","session_id":"sess-1","num_turns":1}`}}
		}, "implementer", "auth", "refused", true},
		{"the stream ends with no terminal event", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, wrote, {Out: rnText}, {ExitZero: true}}
		}, "implementer", "no_terminal_event", "unparsable", true},
		{"a reviewer's answer breaks its schema", func(t *testing.T) []runnertest.Directive {
			return []runnertest.Directive{{Out: rnInit}, wrote, done(t),
				{When: []string{answer, "# ruthless-reviewer:"}, Out: rnResult(t, "", map[string]any{"summary": "x", "verdict": "MAYBE", "findings": []any{}})},
				{When: []string{answer, "# security-reviewer:"}, Out: rnResult(t, "", map[string]any{"summary": "x", "verdict": "APPROVE", "findings": []any{}})},
				{When: []string{answer, "# intent-auditor:"}, Out: rnResult(t, "", pass)}}
		}, "ruthless-reviewer", "schema", "invalid", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newRunnerWorld(t, "1. Part one of the work.")
			w.play(t, tc.script(t)...)
			res := w.abcd(t, "implement", "run", w.spec, "--json")
			res.Assert(t, icmd.Expected{ExitCode: 0})
			var out loop.ImplementRunResult
			decodeOne(t, res.Stdout(), &out)
			assert.Check(t, is.Equal(out.Ended, loop.EndedHost), "%+v", out)
			assert.Check(t, is.Equal(out.FellBack, 1))
			assert.Check(t, !strings.Contains(res.Stdout()+res.Stderr(), rnCanary), "the canary leaked")
			// The step is the host's, with its brief, and the next lines say so.
			open := awaitOf(out.Run, tc.role)
			assert.Assert(t, open != nil, "%+v", out.Run.Awaits)
			assert.Check(t, is.Contains(open.Next.Text, "did not take this"), open.Next.Text)
			var story loop.ImplementRecordResult
			w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
			assert.Assert(t, is.Len(story.Fallbacks, 1))
			f := story.Fallbacks[0]
			assert.Check(t, is.Equal(f.Role, tc.role))
			assert.Check(t, is.Equal(f.Asked, map[bool]string{true: "cc", false: "rv"}[tc.role == "implementer"]))
			assert.Check(t, is.Equal(f.Ran, "host"))
			assert.Check(t, is.Equal(string(f.Cause), tc.cause), "%+v", f)
			assert.Check(t, is.Equal(f.Reason, tc.reason), "%+v", f)
			assert.Assert(t, f.Runner != nil)
			if tc.cause == "guarded_path_changed" {
				assert.Check(t, is.Contains(f.Detail, `".abcd/guard.json" (and 1 other guarded path), which the guard's rule guard-file-write blocks`), f.Detail)
			}
			// The lane's worktree is as the step found it: nothing left, on its branch at its start.
			ln := out.Run.Lanes[0]
			wt := teamClone{name: w.c.name, dir: ln.Worktree, home: w.c.home}
			if tc.role == "implementer" {
				assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""))
				assert.Check(t, is.Equal(wt.git(t, "rev-parse", "HEAD"), ln.Start))
				assert.Check(t, is.Equal(wt.git(t, "symbolic-ref", "HEAD"), "refs/heads/"+ln.Branch))
			}
			attempts := w.c.git(t, "for-each-ref", "--format=%(refname:short)", "refs/heads/abcd/"+out.Run.Run+"/attempts/")
			if tc.kept {
				assert.Check(t, attempts != "", "what the runner did is kept")
				assert.Check(t, is.Contains(f.Detail, "kept on branch "+attempts))
			} else {
				assert.Check(t, is.Equal(attempts, ""))
			}
		})
	}
}

// A runner that writes its own credential into the worktree (as it is, and in base64) is never
// committed: the step falls back with credential_in_change, the lane is put back, no object of the
// repository and no file of the run or of $ABCD_HOME holds the credential in any spelling, what is
// kept is a patch with it taken out, and no reviewer ran. One that commits it itself falls back for
// that (refs_moved), and what it did is kept the same way, never on a branch.
func TestARunnersChangeCarryingItsCredentialIsNeverCommitted(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run a case: in make test, not under -short")
	}
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	pass := map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}}
	leak := runnertest.Directive{When: []string{impl}, Run: []string{"sh", "-c", `printf 'ANTHROPIC_API_KEY=%s\n' "$ANTHROPIC_API_KEY" > .env.local && ` +
		`printf '%s' "$ANTHROPIC_API_KEY" | base64 > docs-key.txt`}}
	for _, tc := range []struct {
		name, cause, where string
		commits            bool // the CLI commits the credential itself: its objects are in git's store, no ref reaches them
	}{
		{"written into files", "credential_in_change", `the step's change carries a credential abcd holds (in ".env.local", "docs-key.txt")`, false},
		{"committed by the agent", "refs_moved", "the CLI committed itself", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newRunnerWorld(t, "1. Part one of the work.")
			script := []runnertest.Directive{{Out: rnInit}, {When: []string{impl}, Write: "DONE-1", Content: "one\n"}, leak}
			if tc.commits {
				script = append(script, runnertest.Directive{When: []string{impl}, Run: []string{"git", "add", "-A"}},
					runnertest.Directive{When: []string{impl}, Run: []string{"sh", "-c", `git commit -qm "add the key $ANTHROPIC_API_KEY"`}})
			}
			w.play(t, append(script, runnertest.Directive{When: []string{impl}, Out: rnResult(t, "Do the part", nil)},
				runnertest.Directive{When: []string{answer}, Out: rnResult(t, "", pass)})...)
			res := w.abcd(t, "implement", "run", w.spec, "--json")
			res.Assert(t, icmd.Expected{ExitCode: 0})
			var out loop.ImplementRunResult
			decodeOne(t, res.Stdout(), &out)
			assert.Check(t, is.Equal(out.Ended, loop.EndedHost), "%+v", out)
			assert.Check(t, is.Equal(out.FellBack, 1))
			assert.Check(t, is.Equal(out.Routed, 1), "the implementer's step alone was sent anywhere")
			held := secret.NewScrubber(rnCanary)
			assert.Check(t, !held.Carries(res.Stdout()+res.Stderr()), "the canary leaked")

			var story loop.ImplementRecordResult
			w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
			assert.Assert(t, is.Len(story.Fallbacks, 1))
			f := story.Fallbacks[0]
			assert.Check(t, is.Equal(string(f.Cause), tc.cause), "%+v", f)
			assert.Check(t, is.Equal(f.Reason, "invalid"))
			assert.Check(t, is.Contains(f.Detail, tc.where), f.Detail)
			assert.Check(t, is.Contains(f.Detail, "what it did is kept as a patch with the credentials abcd holds taken out: "), f.Detail)
			assert.Check(t, is.Len(story.Implementations, 0))
			assert.Check(t, is.Len(story.Verdicts, 0), "no reviewer ran")
			for _, aw := range out.Run.Awaits {
				assert.Check(t, is.Equal(aw.Role, "implementer"), "the host's implementer is next, no review: %+v", aw)
			}

			// The lane is as the step found it, and no branch was made of the attempt.
			ln := out.Run.Lanes[0]
			wt := teamClone{name: w.c.name, dir: ln.Worktree, home: w.c.home}
			assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""))
			assert.Check(t, is.Equal(wt.git(t, "rev-parse", "HEAD"), ln.Start))
			assert.Check(t, is.Equal(w.c.git(t, "for-each-ref", "--format=%(refname:short)", "refs/heads/abcd/"+out.Run.Run+"/attempts/"), ""))

			// No object a ref reaches holds the credential; nor any object at all, when the agent did
			// not write one itself (reading the change wrote none).
			var ids []string
			for _, line := range strings.Split(w.c.git(t, "rev-list", "--objects", "--all"), "\n") {
				if id, _, _ := strings.Cut(line, " "); id != "" {
					ids = append(ids, id)
				}
			}
			assert.Check(t, len(ids) > 3, "%v", ids)
			reached := icmd.RunCmd(icmd.Command("git", "cat-file", "--batch"), icmd.Dir(w.c.dir), icmd.WithStdin(strings.NewReader(strings.Join(ids, "\n")+"\n")))
			reached.Assert(t, icmd.Success)
			assert.Check(t, !held.Carries(reached.Stdout()), "an object the refs reach holds the canary")
			if !tc.commits {
				all := icmd.RunCmd(icmd.Command("git", "cat-file", "--batch-all-objects", "--batch"), icmd.Dir(w.c.dir))
				all.Assert(t, icmd.Success)
				assert.Check(t, !held.Carries(all.Stdout()), "an object of the repository holds the canary")
			}

			// No file abcd wrote holds it: the run's folder, $ABCD_HOME; the attempt is a scrubbed patch.
			data, err := os.ReadFile(filepath.Join(w.c.dir, filepath.FromSlash(dloop.LaneDir(out.Run.Run, "lane-1")), "implement", "runner-attempt.patch"))
			assert.NilError(t, err)
			assert.Check(t, is.Contains(string(data), "+++ b/.env.local"))
			assert.Check(t, is.Contains(string(data), "+ANTHROPIC_API_KEY="+secret.Mark))
			assert.Check(t, is.Contains(string(data), "+one"), "what is not a credential is kept as it was")
			files := 0
			for _, root := range []string{filepath.Join(w.c.dir, filepath.FromSlash(dloop.RunDir(out.Run.Run))), filepath.Join(w.c.home, ".abcd")} {
				assert.NilError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					data, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					files++
					assert.Check(t, !held.Carries(string(data)), "%s holds the canary", p)
					return nil
				}))
			}
			assert.Check(t, files > 5, "the run's files were read: %d", files)
		})
	}
}

// A route's return refused when it is placed (an auditor naming a criterion the intent does not
// have) is a step that went to the host: implement run counts it as the record does.
func TestARefusedReturnIsCountedAsTheRecordCountsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run: in make test, not under -short")
	}
	w := newRunnerWorld(t, "1. Part one of the work.")
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	review := map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}}
	security := map[string]any{"summary": "Nothing to fear.", "verdict": "APPROVE", "findings": []any{}}
	audit := map[string]any{"schema_version": 1, "intent": w.intent, "summary": "Met.",
		"verdicts": []any{map[string]any{"criterion": "ac-9", "verdict": "MET", "evidence": "DONE-1 stands.", "concerns": ""}}}
	w.play(t, runnertest.Directive{Out: rnInit},
		runnertest.Directive{When: []string{impl}, Write: "DONE-1", Content: "one\n"},
		runnertest.Directive{When: []string{impl}, Out: rnResult(t, "Do the part", nil)},
		runnertest.Directive{When: []string{answer, "# ruthless-reviewer:"}, Out: rnResult(t, "", review)},
		runnertest.Directive{When: []string{answer, "# security-reviewer:"}, Out: rnResult(t, "", security)},
		runnertest.Directive{When: []string{answer, "# intent-auditor:"}, Out: rnResult(t, "", audit)})
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Assert(t, is.Len(story.Fallbacks, 1), "%+v", story.Fallbacks)
	assert.Check(t, is.Equal(story.Fallbacks[0].Role, "intent-auditor"))
	assert.Check(t, is.Equal(out.FellBack, len(story.Fallbacks)), "implement run says %d fell back; the record holds %d", out.FellBack, len(story.Fallbacks))
	assert.Check(t, is.Equal(out.Ended, loop.EndedHost), "%+v", out)
}

// A kill right after abcd commits a runner's work (here, in the definition of done that follows the
// commit) leaves the commit and a note of it: the same command run again finds its own commit by
// the await its trailer names, proves and records it, and never hands the step to the runner again.
// One implementer commit on the lane, one runner call.
func TestAKillRightAfterTheCommitLeavesOneCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs: in make test, not under -short")
	}
	w := newRunnerWorld(t, "1. Part one of the work.")
	marks := t.TempDir()
	killed, calls := filepath.Join(marks, "killed"), filepath.Join(marks, "calls")
	// The definition of done kills abcd the first time it runs on the lane's work, then passes.
	dod := fmt.Sprintf("test -f DONE-1 && { test -e %[1]s || { : > %[1]s; kill -9 $PPID; sleep 5; }; }", killed)
	cfg, err := json.Marshal(map[string]any{"schema_version": 1, "setup_version": setup.SetupVersion, "build": map[string]any{"dod": dod}})
	assert.NilError(t, err)
	w.c.write(t, ".abcd/config.json", string(cfg)+"\n")
	w.c.git(t, "commit", "-q", "-am", "the kill-once definition of done")
	agents := w.agents(t)
	impl := "You run headless, as runner cc"
	w.play(t, append([]runnertest.Directive{agents[0], {When: []string{impl}, Run: []string{"sh", "-c", "echo call >> " + calls}}}, agents[1:]...)...)
	first := w.abcd(t, "implement", "run", w.spec, "--json")
	assert.Assert(t, first.ExitCode != 0, "the first run was killed: %s", first.Stderr())
	_, err = os.Stat(killed)
	assert.NilError(t, err, "the definition of done ran, after the commit")
	again := w.abcd(t, "implement", "run", w.spec, "--json")
	again.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, again.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	assert.Check(t, is.Contains(strings.Join(out.Did, "\n"), "was interrupted after abcd committed runner cc's work as"), "%v", out.Did)
	data, err := os.ReadFile(calls)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.Count(string(data), "call"), 1), "the runner took the step once")
	ln := out.Run.Lanes[0]
	assert.Check(t, is.Equal(w.c.git(t, "rev-list", "--count", ln.Start+".."+ln.Branch), "1"), "one implementer commit on the lane")
	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Assert(t, is.Len(story.Implementations, 1))
	assert.Check(t, story.Implementations[0].Runner != nil, "the runner's receipt is kept whole across the kill")
}

// Ctrl-C while a runner takes a step ends its process group (a grandchild that ignores SIGTERM
// included), records the step as interrupted and exits 3; the same command goes on with the run,
// hands the step to the runner again, and takes the run to its end.
func TestAnInterruptedRunGoesOnWithTheSameCommand(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.")
	pidfile := filepath.Join(filepath.Dir(w.script), "grandchild.pid")
	impl := "You run headless, as runner cc"
	w.play(t, runnertest.Directive{Out: rnInit}, runnertest.Directive{When: []string{impl}, Write: "HALF", Content: "half\n"},
		runnertest.Directive{When: []string{impl}, Grandchild: pidfile}, runnertest.Directive{Hang: true})
	cmd := icmd.Command(binary, "implement", "run", w.spec, "--json")
	started := icmd.StartCmd(cmd, icmd.Dir(w.c.dir), icmd.WithEnv(w.env()...))
	assert.NilError(t, started.Error)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(started.Stderr(), "runner cc is running") {
		assert.Assert(t, time.Now().Before(deadline), "the runner never started: %s", started.Stderr())
		time.Sleep(20 * time.Millisecond)
	}
	for _, err := os.Stat(pidfile); err != nil; _, err = os.Stat(pidfile) {
		assert.Assert(t, time.Now().Before(deadline), "the grandchild never started")
		time.Sleep(20 * time.Millisecond)
	}
	assert.NilError(t, started.Cmd.Process.Signal(os.Interrupt))
	res := icmd.WaitOnCmd(30*time.Second, started)
	res.Assert(t, icmd.Expected{ExitCode: 3})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedInterrupted))
	pid, err := os.ReadFile(pidfile)
	assert.NilError(t, err)
	assert.Check(t, !running(strings.TrimSpace(string(pid))), "the grandchild outlived the step")
	ln := out.Run.Lanes[0]
	wt := teamClone{name: w.c.name, dir: ln.Worktree, home: w.c.home}
	assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""), "the lane is put back")

	w.play(t, w.agents(t)...)
	again := w.abcd(t, "implement", "run", w.spec, "--json")
	again.Assert(t, icmd.Expected{ExitCode: 0})
	decodeOne(t, again.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%s", again.Stderr())
	assert.Check(t, is.Contains(again.Stderr(), "interrupted before, goes to runner cc again"))
}

// running reports whether a process is alive (a zombie waiting for init to reap it is not: it holds
// nothing). Read from /proc, where there is one.
func running(pid string) bool {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// Over MCP (stdio), implement_run takes the same run to its end, and a call that carries a progress
// token hears each line of its progress as a notifications/progress, numbered in order, before its
// result; stdout carries nothing but protocol.
func TestImplementRunOverMCPSendsProgressNotifications(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.")
	w.play(t, w.agents(t)...)
	m := startMCP(t, w.c.dir, w.env())
	type wire struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Token    string `json:"progressToken"`
			Progress int    `json:"progress"`
			Message  string `json:"message"`
		} `json:"params"`
		Result struct {
			StructuredContent loop.ImplementRunResult `json:"structuredContent"`
			IsError           bool                    `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	}
	next := func() wire {
		t.Helper()
		var msg wire
		m.next(t, &msg)
		assert.Check(t, is.Equal(msg.JSONRPC, "2.0"))
		return msg
	}
	m.initialize(t)
	m.send(t, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "implement_run",
		"arguments": map[string]any{"spec": w.spec}, "_meta": map[string]any{"progressToken": "run-1"}}})
	var progress []string
	for {
		msg := next()
		if msg.Method == "notifications/progress" {
			assert.Check(t, is.Equal(msg.Params.Token, "run-1"))
			assert.Check(t, is.Equal(msg.Params.Progress, len(progress)+1), "numbered in order")
			progress = append(progress, msg.Params.Message)
			continue
		}
		assert.Check(t, is.Equal(string(msg.ID), "2"))
		assert.Assert(t, msg.Error == nil && !msg.Result.IsError, "%s", m.lines.Text())
		assert.Check(t, is.Equal(msg.Result.StructuredContent.Ended, loop.EndedFinished))
		break
	}
	all := strings.Join(progress, "\n")
	for _, want := range []string{"lane-1 implementer: cc takes the step (round 0)", "lane-2: abcd committed the runner's work as ",
		"integration: intent-auditor's audit (round 1) was answered by rv: PASS", ": finished"} {
		assert.Check(t, is.Contains(all, want))
	}
	assert.Check(t, !strings.Contains(all, rnCanary))
	m.close(t)
	assert.Check(t, !m.lines.Scan(), "nothing after the result: %q", m.lines.Text())
	assert.Check(t, !strings.Contains(m.stderr.String(), "takes the step"), "a call's progress is the call's alone: %s", m.stderr.String())
}

// Before any lane starts, implement run refuses a run its runners cannot take, and writes nothing:
// an implementer on a runner with no definition of done to prove its work, and a CLI that drifted
// (a flag abcd passes gone from its --help).
func TestImplementRunRefusesBeforeAnyLaneStarts(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.")
	w.play(t, w.agents(t)...)
	refused := func(t *testing.T, env []string, code, why string) {
		t.Helper()
		before := w.c.git(t, "status", "--porcelain", "--ignored")
		res := icmd.RunCmd(icmd.Command(binary, "implement", "run", w.spec, "--json"), icmd.Dir(w.c.dir), icmd.WithEnv(env...))
		res.Assert(t, icmd.Expected{ExitCode: 2})
		var doc map[string]any
		decodeOne(t, res.Stdout(), &doc)
		assert.Check(t, is.Equal(doc["code"], code), "%v", doc)
		assert.Check(t, is.Contains(fmt.Sprint(doc["why"]), why))
		assert.Check(t, is.Equal(w.c.git(t, "status", "--porcelain", "--ignored"), before), "nothing written")
		assert.Check(t, is.Equal(w.c.git(t, "branch", "--list", "abcd/*"), ""), "no lane started")
	}
	t.Run("a CLI that drifted", func(t *testing.T) {
		env := w.env()
		for i, kv := range env {
			if strings.HasPrefix(kv, "FAKE_CLI_HELP=") {
				env[i] = strings.ReplaceAll(kv, "--strict-mcp-config", "--strict")
			}
		}
		refused(t, env, "runner_drifted", "--strict-mcp-config")
	})
	t.Run("no definition of done", func(t *testing.T) {
		w.c.write(t, ".abcd/config.json", fmt.Sprintf("{\n  \"schema_version\": 1,\n  \"setup_version\": %d\n}\n", setup.SetupVersion))
		w.c.git(t, "commit", "-qam", "no dod")
		refused(t, w.env(), "runner_needs_dod", "no definition of done would prove its work")
	})
}

// awaitOf is the run's last open await of role, nil when none is.
func awaitOf(run loop.RunView, role string) *loop.AwaitView {
	var open *loop.AwaitView
	for i, aw := range run.Awaits {
		if aw.Role == role {
			open = &run.Awaits[i]
		}
	}
	return open
}
