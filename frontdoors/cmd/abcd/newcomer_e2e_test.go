package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
)

// newcomer is the path a person new to abcd takes from the README: a git repository with one
// commit, abcd's text output (no --json) read as they read it.
type newcomer struct {
	teamClone
}

func newNewcomer(t *testing.T) newcomer {
	t.Helper()
	root := realDir(t)
	n := newcomer{teamClone{name: "ada", dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}}
	assert.NilError(t, os.MkdirAll(filepath.Join(n.home, ".abcd"), 0o700))
	assert.NilError(t, os.MkdirAll(n.dir, 0o755))
	n.git(t, "init", "-q", "-b", "main")
	n.git(t, "commit", "-q", "--allow-empty", "-m", "base")
	return n
}

// text runs abcd as a person types it and asserts its exit code.
func (n newcomer) text(t *testing.T, exit int, args ...string) *icmd.Result {
	t.Helper()
	res := n.cmd(binary, args...)
	res.Assert(t, icmd.Expected{ExitCode: exit})
	return res
}

// tree is everything under the repository and the home folder, as TestRefusalsWriteNothing compares
// it.
func (n newcomer) tree(t *testing.T) map[string]string {
	t.Helper()
	return sandbox{root: n.dir, home: n.home}.snapshot(t)
}

// planned writes a ready intent and its spec's steps, as the README's path does, and returns the
// spec's id.
func (n newcomer) planned(t *testing.T, steps string) (spec, intent string) {
	t.Helper()
	var it record.RecordCreated
	n.abcd(t, 0, &it, "intent", "new", "Greet the reader")
	n.fill(t, it.Record.Path, "Press Release", "The reader is greeted.")
	n.fill(t, it.Record.Path, "Acceptance Criteria", "- ac-1: Given the repository, when I run ./hello, then it prints hello.")
	var plan record.IntentPlanResult
	n.abcd(t, 0, &plan, "intent", "plan", it.Record.ID)
	n.fill(t, plan.Spec.Path, "Steps", steps)
	return plan.Spec.ID, it.Record.ID
}

// nextLines are the lines of out that start with "next: ".
func nextLines(out string) []string {
	var next []string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(l, "next: "); ok {
			next = append(next, s)
		}
	}
	return next
}

// The first run is not wasted: install and plan say to commit the record and set build.dod, start
// refuses an uncommitted record (exit 2, nothing written) and, once it is committed, starts the run
// with the one warning a missing build.dod deserves, said once, in abcd's one voice.
func TestTheNewcomersFirstRunIsNotWasted(t *testing.T) {
	n := newNewcomer(t)
	install := n.text(t, 0, "ahoy", "install", "--yes")
	next := nextLines(install.Stdout())
	assert.Assert(t, is.Len(next, 3), "%s", install.Stdout())
	assert.Check(t, is.Equal(next[0], "commit what install wrote, so every run's lanes find the record at their base: run `git add .abcd .gitattributes && git commit -m 'Set abcd up'`"))
	assert.Check(t, is.Equal(next[1], `set the definition of done every implementer runs and abcd checks each lane with: add "build": {"dod": "<your test command>"} to .abcd/config.json (and commit it)`))
	assert.Check(t, is.Equal(next[2], "write your first intent: run `abcd intent new <title>`"))

	spec, _ := n.planned(t, "1. Write ./hello.")

	// Nothing committed but the empty base: start refuses, and writes nothing.
	before := n.tree(t)
	refused := n.text(t, 2, "implement", "start", spec)
	assert.Check(t, is.Equal(refused.Stdout(), ""))
	assert.Check(t, is.Contains(refused.Stderr(), "abcd: refused: "))
	assert.Check(t, is.Contains(refused.Stderr(), "are not committed as they stand at the run's base main ("))
	assert.Check(t, is.Contains(refused.Stderr(), "remedy: commit the record on main (git add .abcd && git commit -m 'The record for "+spec+"'), then run `abcd implement start "+spec+"`"))
	assert.Check(t, is.DeepEqual(n.tree(t), before))
	var doc refusal.Document
	n.abcd(t, 2, &doc, "implement", "start", spec)
	assert.Check(t, is.Equal(doc.Code, refusal.CodeRecordUncommitted))
	assert.Check(t, is.DeepEqual(n.tree(t), before))

	// Committed: the run starts, and the missing build.dod is said once, on stderr, as a warning.
	n.git(t, "add", "-A")
	n.git(t, "commit", "-q", "-m", "the record")
	started := n.text(t, 0, "implement", "start", spec)
	assert.Check(t, !strings.Contains(started.Stdout(), "warning"), "stdout: %s", started.Stdout())
	assert.Check(t, is.Equal(strings.Count(started.Stderr(), "warning"), 1), "stderr: %s", started.Stderr())
	assert.Check(t, is.Contains(started.Stderr(), "abcd: warning: build.dod is not set, so no command proves a lane done"))
}

// intent plan's next line names what start needs beyond the steps: the record committed, and
// build.dod while none is set.
func TestIntentPlanSaysToCommitTheRecordAndSetBuildDoD(t *testing.T) {
	n := newNewcomer(t)
	n.text(t, 0, "ahoy", "install", "--yes")
	var it record.RecordCreated
	n.abcd(t, 0, &it, "intent", "new", "Greet the reader")
	n.fill(t, it.Record.Path, "Press Release", "The reader is greeted.")
	n.fill(t, it.Record.Path, "Acceptance Criteria", "- ac-1: Given the repository, when I run ./hello, then it prints hello.")
	plan := n.text(t, 0, "intent", "plan", it.Record.ID)
	next := nextLines(plan.Stdout())
	assert.Assert(t, is.Len(next, 1), "%s", plan.Stdout())
	assert.Check(t, is.Contains(next[0], `set the definition of done ("build": {"dod": "<your test command>"} in .abcd/config.json), commit the record (git add .abcd && git commit; the run's lanes read it at the commit they branch from), then start its run: run `+"`abcd implement start spc-"))
}

// ready is a newcomer past the first run's frictions: abcd installed, build.dod set, a ready intent
// and its spec with steps, all committed.
func (n newcomer) ready(t *testing.T, steps string) (spec, intent string) {
	t.Helper()
	n.text(t, 0, "ahoy", "install", "--yes")
	n.write(t, ".abcd/config.json", fmt.Sprintf("{\n  \"schema_version\": 1,\n  \"setup_version\": %d,\n  \"build\": {\"dod\": \"true\"}\n}\n", setup.SetupVersion))
	spec, intent = n.planned(t, steps)
	n.git(t, "add", "-A")
	n.git(t, "commit", "-q", "-m", "the record")
	return spec, intent
}

// drive plays the harness over run until it is finished, as runLoop does, with agent writing each
// await's return (scriptedAgent when nil); it returns what abcd said on stderr along the way.
func (n newcomer) drive(t *testing.T, run string, agent func(loop.RunView, loop.AwaitView) bool) string {
	t.Helper()
	var stderr strings.Builder
	handed := map[string]bool{}
	for round := 0; ; round++ {
		assert.Assert(t, round < 30, "the run did not finish")
		stderr.WriteString(n.abcd(t, 0, nil, "implement", "step", "--run", run).Stderr())
		var st loop.ImplementStatusResult
		n.abcd(t, 0, &st, "implement", "status", "--run", run)
		assert.Assert(t, is.Len(st.Runs, 1))
		v := st.Runs[0]
		if v.Finished {
			return stderr.String()
		}
		progressed := false
		for _, a := range v.Awaits {
			if handed[a.ID] {
				continue
			}
			if agent == nil || !agent(v, a) {
				scriptedAgent(t, n.teamClone, v, a)
			}
			handed[a.ID], progressed = true, true
			stderr.WriteString(n.abcd(t, 0, nil, "implement", "receipt", a.Return).Stderr())
		}
		assert.Assert(t, progressed, "nothing awaited in an unfinished run: %+v", v)
	}
}

// An accepted routing proposal with no provider is the path a newcomer is on: no step warns of it;
// the board says it once.
func TestAnAcceptedProposalWithNoProviderIsSaidOnce(t *testing.T) {
	n := newNewcomer(t)
	spec, _ := n.ready(t, "1. Write ./hello.")
	machine := filepath.Join(n.home, ".abcd", "oracle-routing.json")
	assert.NilError(t, os.WriteFile(machine, setup.ProposalFile(), 0o600))

	board := n.text(t, 0, "status")
	assert.Check(t, is.Equal(board.Stderr(), ""))
	assert.Check(t, is.Equal(strings.Count(board.Stdout(), "no configured connection serves"), 1), "%s", board.Stdout())
	assert.Check(t, is.Contains(board.Stdout(), "  no configured connection serves tier frontier, so your harness takes those steps: the expected path until you connect a provider or a runner (abcd ahoy connect)\n"))
	assert.Check(t, is.Contains(board.Stdout(), "  intent-auditor     -           frontier*  frontier  frontier via host\n"))

	var start loop.StepResult
	started := n.abcd(t, 0, &start, "implement", "start", spec)
	said := started.Stderr() + n.drive(t, start.Run.Run, nil)
	assert.Check(t, is.Equal(said, ""), "the whole run, start to audit, warned: %s", said)
	// The awaits still carry it as data, for a harness that reads it.
	var rec loop.ImplementRecordResult
	n.abcd(t, 0, &rec, "implement", "record", "--run", start.Run.Run)
	assert.Assert(t, len(rec.Verdicts) > 0)
	for _, v := range rec.Verdicts {
		assert.Check(t, is.Equal(v.Ran, "host"), "%+v", v)
	}
}

// No refusal or remedy is cut: a path abcd echoes is whole, so the line can be copied and run.
func TestARefusalsPathsAndRemediesAreWhole(t *testing.T) {
	n := newNewcomer(t)
	spec, _ := n.ready(t, "1. Write ./hello.")
	var start loop.StepResult
	n.abcd(t, 0, &start, "implement", "start", spec)
	run := start.Run.Run
	var step loop.StepResult
	n.abcd(t, 0, &step, "implement", "step", "--run", run)
	// A path no await names, longer than any value abcd clips: echoed whole.
	wrong := filepath.Join(n.dir, ".abcd", ".work.local", "run", run, "lane-1", "implement", strings.Repeat("not-the-receipt-", 8)+"receipt.json")
	before := n.tree(t)
	res := n.text(t, 2, "implement", "receipt", wrong)
	assert.Check(t, is.Contains(res.Stderr(), fmt.Sprintf("abcd: refused: %q: is not the return path of an open await of %s\n", wrong, run)))
	assert.Check(t, !strings.Contains(res.Stderr(), "…"), "%s", res.Stderr())
	// The remedy's paths are whole too: the one named is the await's return path.
	assert.Check(t, is.Contains(res.Stderr(), "remedy: the open awaits' return paths: .abcd/.work.local/run/"+run+"/lane-1/implement/receipt.json\n"))
	assert.Check(t, is.DeepEqual(n.tree(t), before))

	// The return handed in once is refused the second time with its whole path.
	impl := step.Run.Awaits[0]
	scriptedAgent(t, n.teamClone, step.Run, impl)
	n.abcd(t, 0, nil, "implement", "receipt", impl.Return)
	assert.Assert(t, len(impl.Return) > 80, "the return path is longer than a clipped value: %s", impl.Return)
	again := n.text(t, 2, "implement", "receipt", impl.Return)
	assert.Check(t, is.Contains(again.Stderr(), fmt.Sprintf("abcd: refused: %q: was recorded already, at ", impl.Return)))
	assert.Check(t, is.Contains(again.Stderr(), "remedy: nothing to do: run `abcd implement status --run "+run+"` shows what the run waits on now\n"))
	assert.Check(t, !strings.Contains(again.Stderr(), "…"), "%s", again.Stderr())
}

// implement run with no runner connected says that every step is the harness's, and the line that
// connects one.
func TestImplementRunWithNoRunnerSaysHowToConnectOne(t *testing.T) {
	n := newNewcomer(t)
	spec, _ := n.ready(t, "1. Write ./hello.")
	res := n.text(t, 0, "implement", "run", spec)
	assert.Check(t, is.Contains(res.Stdout(), "ended: host (0 steps taken beside the host, 0 fell back)\n"))
	next := nextLines(res.Stdout())
	assert.Assert(t, len(next) >= 2, "%s", res.Stdout())
	assert.Check(t, is.Equal(next[len(next)-1], "no runner is connected to a role, so every step is your harness's; for abcd to drive them unattended, connect a coding-agent CLI as the implementer's runner (and one for the reviewers and the auditor): run `abcd ahoy connect --runner <name> --cli <claude|codex|gemini> --role implementer`"))

	// The same step as data, for a harness over MCP or a script over --json.
	var out loop.ImplementRunResult
	n.abcd(t, 0, &out, "implement", "run", spec)
	last := out.Next[len(out.Next)-1]
	assert.Assert(t, last.Run != nil, "%+v", last)
	assert.Check(t, is.Equal(last.Run.Verb, "ahoy_connect"))
	assert.Check(t, is.DeepEqual(last.Run.Fill, []string{"runner", "cli"}))
	assert.Check(t, is.Equal(last.Run.Args["roles"], "implementer"))
}

// Gates that gate: intent ready exits 1 on an intent that does not pass, 0 on one that does.
func TestIntentReadyExitsOneWhenNotReady(t *testing.T) {
	n := newNewcomer(t)
	n.text(t, 0, "ahoy", "install", "--yes")
	var it record.RecordCreated
	n.abcd(t, 0, &it, "intent", "new", "Greet the reader")
	not := n.text(t, 1, "intent", "ready", it.Record.ID)
	assert.Check(t, is.Contains(not.Stdout(), "intent "+it.Record.ID+": not ready\n"))
	assert.Check(t, is.Equal(not.Stderr(), ""), "a gate's answer is its result, not a fault")
	var doc record.IntentReadyResult
	n.abcd(t, 1, &doc, "intent", "ready", it.Record.ID)
	assert.Check(t, !doc.Ready)

	spec, intent := n.planned(t, "1. Write ./hello.")
	assert.Check(t, spec != "")
	n.text(t, 0, "intent", "ready", intent)
}

// abcd review on a head whose review has ended reports it (exit 1: a reviewer asked for a fix) and
// starts nothing; --new starts another.
func TestReviewReportsAnEndedReviewOfTheSameHead(t *testing.T) {
	n := newNewcomer(t)
	n.ready(t, "1. Write ./hello.")
	n.git(t, "checkout", "-q", "-b", "feature")
	n.write(t, "hello", "#!/bin/sh\necho hello\n")
	n.git(t, "add", "hello")
	n.git(t, "commit", "-q", "-m", "hello")

	var first loop.StepResult
	n.abcd(t, 0, &first, "review")
	run := first.Run.Run
	assert.Assert(t, is.Len(first.Run.Awaits, 2))
	for _, a := range first.Run.Awaits {
		word := map[string]string{"ruthless-reviewer": "FIX FIRST", "security-reviewer": "APPROVE"}[a.Role]
		assert.NilError(t, os.WriteFile(a.Return, []byte("F1. hello has no test.\n\n## Verdict\n\n"+word+"\n"), 0o600))
		n.abcd(t, 0, nil, "implement", "receipt", a.Return)
	}

	before := n.tree(t)
	again := n.text(t, 1, "review")
	assert.Check(t, is.Contains(again.Stdout(), "run "+run+" (review, finished, 1 lane handed back)"))
	assert.Check(t, is.Contains(again.Stdout(), "did: the review of "))
	assert.Check(t, is.Contains(again.Stdout(), " is run "+run+", which ended failed ("))
	assert.Check(t, is.Contains(again.Stdout(), "; nothing new was started\n"))
	assert.Check(t, is.Contains(again.Stdout(), "next: the branch's head is the one reviewed: commit the fixes to have them reviewed, or review the same head again: run `abcd review --new`\n"))
	assert.Check(t, is.DeepEqual(n.tree(t), before), "reporting the ended review wrote")
	var reported loop.StepResult
	n.abcd(t, 1, &reported, "review")
	assert.Check(t, is.Equal(reported.Run.Run, run))
	assert.Check(t, reported.Run.Finished)

	var fresh loop.StepResult
	n.abcd(t, 0, &fresh, "review", "--new")
	assert.Check(t, fresh.Run.Run != run, "--new started another run")
	assert.Check(t, !fresh.Run.Finished)
	assert.Check(t, is.Len(fresh.Run.Awaits, 2))
}

// A typo in .abcd/rules.json refuses that layer loudly, in abcd's words, and the prompt hook keeps
// the other layers, the bundled guardrails included, with one warning naming the file.
func TestATypoInTheRulesFileLeavesTheOtherLayersInTheHook(t *testing.T) {
	n := newNewcomer(t)
	n.text(t, 0, "ahoy", "install", "--yes")
	rulesFile := filepath.Join(n.dir, ".abcd", "rules.json")
	n.write(t, ".abcd/rules.json", `{"schema_version":1,"domains":[{"name":"database","recal":["sql"],"rules":[{"id":"down","text":"Every migration has a down step."}]}]}`+"\n")
	// The machine's layer is fine, and stays.
	assert.NilError(t, os.WriteFile(filepath.Join(n.home, ".abcd", "rules.json"),
		[]byte(`{"schema_version":1,"domains":[{"name":"mine","recall":["commit"],"rules":[{"id":"sign","text":"Sign every commit."}]}]}`+"\n"), 0o600))

	// The verbs refuse it, naming the file once, in abcd's words.
	refused := n.text(t, 2, "rules")
	assert.Check(t, is.Contains(refused.Stderr(), "abcd: refused: "+rulesFile+`: domains[0] has the unknown field "recal": its fields are `))
	assert.Check(t, !strings.Contains(refused.Stderr(), "json: unknown field"), "%s", refused.Stderr())
	assert.Check(t, is.Equal(strings.Count(refused.Stderr(), rulesFile), 1), "%s", refused.Stderr())

	// The hook keeps the machine's layer and the bundled guardrails, and says it once.
	payload := fmt.Sprintf(`{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":%q,"prompt":"commit the sql and git push --force"}`, n.dir)
	res := icmd.RunCmd(icmd.Command(binary, "rules", "hook"), icmd.Dir(n.dir), icmd.WithEnv(n.env()...), icmd.WithStdin(strings.NewReader(payload)))
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Equal(res.Stderr(), ""))
	var out struct {
		SystemMessage      string `json:"systemMessage"`
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	decodeOne(t, res.Stdout(), &out)
	assert.Check(t, is.Equal(strings.Count(out.SystemMessage, rulesFile), 1), "%s", out.SystemMessage)
	assert.Check(t, is.Contains(out.SystemMessage, rulesFile+` is refused (domains[0] has the unknown field "recal"`))
	assert.Check(t, is.Contains(out.SystemMessage, "so its rules are left out and the other layers' are in force"))
	assert.Check(t, !strings.Contains(out.SystemMessage, "json: unknown field"), "%s", out.SystemMessage)
	for _, kept := range []string{"[committing]", "[shell-git]", "[mine]", "Sign every commit."} {
		assert.Check(t, is.Contains(out.HookSpecificOutput.AdditionalContext, kept))
	}
	assert.Check(t, !strings.Contains(out.HookSpecificOutput.AdditionalContext, "down step"), "the refused layer's rules are out")
}
