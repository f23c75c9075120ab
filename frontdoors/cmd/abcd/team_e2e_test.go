package main

// A team's record end to end: clones of one repository, each with abcd installed (which puts the
// record's merge driver in that clone's own git config), run every verb that writes the record on
// their own branch (the build loop's Progress lines and audits included, driven by scripted agents
// as a harness would), and merge each other's work with the real git, in both orders. Each merge
// ends clean, with lint naming only what a person has to decide, or in a conflict git shows and lint
// names; never a silent duplicate, a lost line or a marker left in a record.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports/loop"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
)

// teamClone is one person's clone: its folder and its own home (so its own git identity).
type teamClone struct {
	name, dir, home string
}

func (c teamClone) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "ABCD_HOME=" + filepath.Join(c.home, ".abcd"), "NO_COLOR=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_MERGE_AUTOEDIT=no",
		"GIT_AUTHOR_NAME=" + c.name, "GIT_AUTHOR_EMAIL=" + c.name + "@team.invalid",
		"GIT_COMMITTER_NAME=" + c.name, "GIT_COMMITTER_EMAIL=" + c.name + "@team.invalid"}
}

func (c teamClone) cmd(name string, args ...string) *icmd.Result {
	return icmd.RunCmd(icmd.Command(name, args...), icmd.Dir(c.dir), icmd.WithEnv(c.env()...))
}

// git runs git in the clone and returns its trimmed stdout, failing the test on a non-zero exit.
func (c teamClone) git(t *testing.T, args ...string) string {
	t.Helper()
	res := c.cmd("git", args...)
	res.Assert(t, icmd.Success)
	return strings.TrimSpace(res.Stdout())
}

// abcd runs abcd --json, asserts exit, and decodes the one document (when v is not nil).
func (c teamClone) abcd(t *testing.T, exit int, v any, args ...string) *icmd.Result {
	t.Helper()
	res := c.cmd(binary, append(args, "--json")...)
	res.Assert(t, icmd.Expected{ExitCode: exit})
	if v != nil {
		decodeOne(t, res.Stdout(), v)
	}
	return res
}

func (c teamClone) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(rel)))
	assert.NilError(t, err)
	return string(data)
}

func (c teamClone) write(t *testing.T, rel, data string) {
	t.Helper()
	assert.NilError(t, os.WriteFile(filepath.Join(c.dir, filepath.FromSlash(rel)), []byte(data), 0o644))
}

// fill replaces a section's body, as a person editing the file would.
func (c teamClone) fill(t *testing.T, rel, heading, text string) {
	t.Helper()
	recEditSection(t, sandbox{root: c.dir}, rel, heading, text)
}

// note appends a paragraph to a section, as a person adds a note at its end.
func (c teamClone) note(t *testing.T, rel, heading, text string) {
	t.Helper()
	data, err := record.AppendToSection([]byte(c.read(t, rel)), heading, text)
	assert.NilError(t, err)
	c.write(t, rel, string(data))
}

// records maps each record file (repository-relative) of the clone to its content.
func (c teamClone) records(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range record.Folders() {
		entries, err := os.ReadDir(filepath.Join(c.dir, filepath.FromSlash(f.Dir)))
		if os.IsNotExist(err) {
			continue
		}
		assert.NilError(t, err)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".md") {
				out[f.Dir+"/"+e.Name()] = c.read(t, f.Dir+"/"+e.Name())
			}
		}
	}
	return out
}

// pathOf is the one file carrying id.
func (c teamClone) pathOf(t *testing.T, id string) string {
	t.Helper()
	var found []string
	for p := range c.records(t) {
		if got, _ := record.IDOfFileName(p); got == id {
			found = append(found, p)
		}
	}
	assert.Assert(t, is.Len(found, 1), "files carrying %s", id)
	return found[0]
}

// teamBase is what the shared repository starts with, by name.
type teamBase struct {
	origin string
	// intents: built (planned, its spec SX with one step, for the build loop), draft (to plan), quiet
	// (planned with an open spec, for spec new); issues i1, i2; decision d.
	built, buildSpec, draft, quiet, i1, i2, d string
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	assert.NilError(t, err)
	return d
}

// newTeam makes a bare origin holding a record with something of everything, and n clones of it,
// each with abcd installed as a collaborator does.
func newTeam(t *testing.T, n int) (teamBase, []teamClone) {
	t.Helper()
	root := realDir(t)
	b := teamBase{origin: filepath.Join(root, "origin.git")}
	first := teamClone{name: "founder", dir: filepath.Join(root, "founder"), home: filepath.Join(root, "founder-home")}
	assert.NilError(t, os.MkdirAll(first.home, 0o700))
	icmd.RunCmd(icmd.Command("git", "init", "-q", "--bare", "-b", "main", b.origin), icmd.WithEnv(first.env()...)).Assert(t, icmd.Success)
	icmd.RunCmd(icmd.Command("git", "clone", "-q", b.origin, first.dir), icmd.WithEnv(first.env()...)).Assert(t, icmd.Success)
	first.git(t, "symbolic-ref", "HEAD", "refs/heads/main")
	first.abcd(t, 0, nil, "ahoy", "install", "--yes")
	first.write(t, ".abcd/config.json", fmt.Sprintf("{\n  \"schema_version\": 1,\n  \"setup_version\": %d,\n  \"build\": {\"dod\": \"true\"}\n}\n", setup.SetupVersion))

	intent := func(title string, ready bool) recorduc.RecordSummary {
		var c recorduc.RecordCreated
		first.abcd(t, 0, &c, "intent", "new", title)
		if ready {
			first.fill(t, c.Record.Path, "Press Release", title+" is here.")
			first.fill(t, c.Record.Path, "Acceptance Criteria", "- ac-1: Given a repository, when I run it, then it answers.")
		}
		return c.Record
	}
	built := intent("Faster cold start", true)
	var plan recorduc.IntentPlanResult
	first.abcd(t, 0, &plan, "intent", "plan", built.ID)
	first.fill(t, plan.Spec.Path, "Steps", "1. Make config loading lazy.")
	b.built, b.buildSpec = built.ID, plan.Spec.ID
	b.draft = intent("Warmer start", true).ID
	quiet := intent("Quiet logs", true)
	first.abcd(t, 0, &plan, "intent", "plan", quiet.ID)
	b.quiet = quiet.ID
	var c recorduc.RecordCreated
	first.abcd(t, 0, &c, "capture", "The status line flickers")
	b.i1 = c.Record.ID
	first.abcd(t, 0, &c, "capture", "Lint is slow")
	b.i2 = c.Record.ID
	first.abcd(t, 0, &c, "decision", "new", "Use flock for the record lock")
	b.d = c.Record.ID
	var lint recorduc.LintResult
	first.abcd(t, 0, &lint, "lint")
	first.git(t, "add", "-A")
	first.git(t, "commit", "-q", "-m", "the record")
	first.git(t, "push", "-q", "origin", "main")

	clones := make([]teamClone, n)
	for i := range clones {
		c := teamClone{name: fmt.Sprintf("person%d", i+1), dir: filepath.Join(root, fmt.Sprintf("clone%d", i+1)), home: filepath.Join(root, fmt.Sprintf("home%d", i+1))}
		assert.NilError(t, os.MkdirAll(c.home, 0o700))
		icmd.RunCmd(icmd.Command("git", "clone", "-q", b.origin, c.dir), icmd.WithEnv(c.env()...)).Assert(t, icmd.Success)
		// A collaborator's clone has the committed .gitattributes; lint says the driver is missing in
		// it, and install adds it to this clone's git config, changing nothing committed.
		var before recorduc.LintResult
		c.abcd(t, 0, &before, "lint")
		assert.Check(t, is.Equal(findingCodes(before.Findings)["merge_driver_missing"], 1), "%+v", before.Findings)
		c.abcd(t, 0, nil, "ahoy", "install", "--yes")
		assert.Check(t, strings.Contains(c.git(t, "config", "--get", "merge.abcd.driver"), " merge-record %O %A %B %L %P"))
		assert.Check(t, is.Equal(c.git(t, "status", "--porcelain"), ""))
		clones[i] = c
	}
	return b, clones
}

// findingCodes counts lint's findings by code, leaving out the warnings of records still being
// written (a draft's missing criterion, an open spec's missing steps), which say nothing of merges.
func findingCodes(fs []record.Finding) map[string]int {
	out := map[string]int{}
	for _, f := range fs {
		if f.Level == record.LevelWarning && (f.Code == "no_criteria" || f.Code == "no_steps") {
			continue
		}
		out[f.Code]++
	}
	return out
}

// runLoop drives the build loop over spec to its end in the clone, as a harness following abcd's
// awaits would, with scripted agents: the implementer commits in the lane's worktree, the reviewers
// pass it, the auditor finds the criterion met. It returns the Progress lines and the audit heading
// the run wrote into the record.
func runLoop(t *testing.T, c teamClone, spec, intent string) (progress []string, audit string) {
	t.Helper()
	var start loop.StepResult
	c.abcd(t, 0, &start, "implement", "start", spec)
	run := start.Run.Run
	handed := map[string]bool{}
	for round := 0; ; round++ {
		assert.Assert(t, round < 30, "the run did not finish")
		c.abcd(t, 0, nil, "implement", "step", "--run", run)
		var st loop.ImplementStatusResult
		c.abcd(t, 0, &st, "implement", "status", "--run", run)
		assert.Assert(t, is.Len(st.Runs, 1))
		v := st.Runs[0]
		if v.Finished {
			break
		}
		var open []loop.AwaitView
		for _, a := range v.Awaits {
			if !handed[a.ID] {
				open = append(open, a)
			}
		}
		assert.Assert(t, len(open) > 0, "nothing awaited in an unfinished run: %+v", v)
		for _, a := range open {
			scriptedAgent(t, c, v, a)
			handed[a.ID] = true
			c.abcd(t, 0, nil, "implement", "receipt", a.Return)
		}
	}
	for _, l := range strings.Split(c.read(t, c.pathOf(t, spec)), "\n") {
		if strings.HasPrefix(l, "- Run "+run) {
			progress = append(progress, l)
		}
	}
	for _, l := range strings.Split(c.read(t, c.pathOf(t, intent)), "\n") {
		if strings.HasPrefix(l, "### Audit ") && strings.Contains(l, run) {
			audit = l
		}
	}
	assert.Assert(t, len(progress) >= 2 && audit != "", "the run wrote no Progress or audit: %v %q", progress, audit)
	return progress, audit
}

// scriptedAgent writes an await's return as the role's agent would.
func scriptedAgent(t *testing.T, c teamClone, v loop.RunView, a loop.AwaitView) {
	t.Helper()
	put := func(p, body string) {
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	switch a.Role {
	case "implementer":
		var lane loop.LaneView
		for _, l := range v.Lanes {
			if l.ID == a.Lane {
				lane = l
			}
		}
		assert.Assert(t, lane.Worktree != "", "the lane has no worktree: %+v", v)
		wt := teamClone{name: c.name, dir: lane.Worktree, home: c.home}
		put(filepath.Join(lane.Worktree, "lazy-"+c.name+".txt"), "config loads lazily ("+c.name+")\n")
		wt.git(t, "add", "-A")
		wt.git(t, "commit", "-q", "-m", "step "+a.Lane+" by "+c.name)
		sha := wt.git(t, "rev-parse", "HEAD")
		laneDir := filepath.Dir(filepath.Dir(a.Return))
		put(filepath.Join(laneDir, a.Kind+"-dod.txt"), "ok\n")
		put(filepath.Join(laneDir, a.Kind+"-report.md"), "Made config loading lazy.\n")
		receipt, _ := json.Marshal(map[string]any{"schema_version": 1, "run": v.Run, "lane": a.Lane, "branch": lane.Branch, "commits": []string{sha},
			"dod": map[string]any{"command": "true", "exit_code": 0, "output": a.Kind + "-dod.txt"}, "report": a.Kind + "-report.md", "model": "scripted"})
		put(a.Return, string(receipt)+"\n")
	case "ruthless-reviewer":
		put(a.Return, "Read the diff.\n\n## Verdict\n\nSHIP\n")
	case "security-reviewer":
		put(a.Return, "Nothing reaches a shell.\n\n## Verdict\n\nAPPROVE\n")
	case "intent-auditor":
		ret, _ := json.Marshal(map[string]any{"schema_version": 1, "intent": v.Intent, "verdicts": []map[string]any{
			{"criterion": "ac-1", "verdict": "MET", "evidence": "it answers (" + c.name + ")", "concerns": ""}}, "summary": "Checked by " + c.name + "."})
		put(a.Return, string(ret)+"\n")
	default:
		t.Fatalf("no scripted agent for %s", a.Role)
	}
}

// sideWork is what one person wrote, to look for after the merges.
type sideWork struct {
	clone     teamClone
	head      string
	created   []string // ids of the records the side made
	progress  []string
	audit     string
	reason    string
	note      string
	closedAll bool // closed the spec, shipped the intent and closed i2
}

// work runs every verb that writes the record, on the clone's own branch, and commits it all.
func work(t *testing.T, b teamBase, c teamClone, closer bool) sideWork {
	t.Helper()
	w := sideWork{clone: c, closedAll: closer, reason: "Closed by " + c.name + ".", note: "Seen by " + c.name + " too."}
	c.git(t, "checkout", "-q", "-b", "work")
	var made recorduc.RecordCreated
	c.abcd(t, 0, &made, "intent", "new", "Intent of "+c.name)
	w.created = append(w.created, made.Record.ID)
	c.abcd(t, 0, &made, "capture", "Noticed by "+c.name, "--related", b.built)
	w.created = append(w.created, made.Record.ID)
	c.abcd(t, 0, &made, "decision", "new", "Ruling of "+c.name, "--supersedes", b.d)
	w.created = append(w.created, made.Record.ID)
	c.abcd(t, 0, &made, "spec", "new", "--intent", b.quiet, "Spec of "+c.name)
	w.created = append(w.created, made.Record.ID)
	c.abcd(t, 0, nil, "issue", "close", b.i1, "--why", w.reason)
	c.note(t, c.pathOf(t, b.i2), record.SectionNotes, w.note)
	var plan recorduc.IntentPlanResult
	c.abcd(t, 0, &plan, "intent", "plan", b.draft)
	w.created = append(w.created, plan.Spec.ID)
	w.progress, w.audit = runLoop(t, c, b.buildSpec, b.built)
	if closer {
		// A spec closes once the code its run delivered is merged where the record is.
		integration := c.git(t, "for-each-ref", "--format=%(refname:short)", "refs/heads/abcd/*/integration")
		assert.Assert(t, integration != "" && !strings.Contains(integration, "\n"), "one run's integration: %q", integration)
		c.git(t, "merge", "-q", "--no-edit", integration)
		c.abcd(t, 0, nil, "spec", "close", b.buildSpec)
		c.abcd(t, 0, nil, "intent", "ship", b.built)
		c.abcd(t, 0, nil, "issue", "close", b.i2, "--why", "Fixed by "+c.name+".")
	}
	// Every move was staged as a rename: commit -a alone carries them (new records are added).
	status := c.git(t, "status", "--porcelain")
	assert.Check(t, !strings.Contains(status, " D "), "a move left unstaged:\n%s", status)
	c.git(t, "add", "-A")
	c.git(t, "commit", "-q", "-m", "work of "+c.name)
	w.head = c.git(t, "rev-parse", "HEAD")
	return w
}

// mergeAll merges the sides' work into into's branch in order. A merge git stops is held to the
// rule: every path git leaves unmerged is one lint names. With no conflict markers anywhere (git can
// take a small record that grew much for another, new one renamed, and stop on its own bookkeeping
// while the driver kept each path's own record whole), it is settled as lint's remedy says, with
// abcd record finish-merge, which carries each change git paired with the wrong record into its own
// file. It returns how many merges git stopped.
func mergeAll(t *testing.T, into teamClone, sides []sideWork) int {
	t.Helper()
	stopped := 0
	for _, s := range sides {
		if s.clone.dir == into.dir {
			continue
		}
		into.git(t, "fetch", "-q", s.clone.dir, "work:"+s.clone.name)
		res := into.cmd("git", "merge", "--no-edit", "-q", s.clone.name)
		if res.ExitCode == 0 {
			continue
		}
		stopped++
		unmerged := strings.Fields(into.git(t, "diff", "--name-only", "--diff-filter=U"))
		assert.Assert(t, len(unmerged) > 0, "git stopped the merge with nothing unmerged: %s", res.Combined())
		var lint recorduc.LintResult
		into.abcd(t, 1, &lint, "lint")
		named := namedBy(lint.Findings, "merge_unresolved")
		assert.Check(t, is.Len(namedBy(lint.Findings, "conflict_markers"), 0), "%+v", lint.Findings)
		for _, p := range unmerged {
			assert.Check(t, named[p], "lint does not name %s, which git left unmerged: %+v", p, lint.Findings)
		}
		var settled recorduc.RecordFinishMergeResult
		into.abcd(t, 0, &settled, "record", "finish-merge")
		assert.Check(t, is.Len(settled.Left, 0), "%+v", settled)
		assert.Check(t, is.DeepEqual(sorted(settled.Settled), sorted(unmerged)))
		t.Logf("%s merging %s: git stopped; finish-merge carried %+v", into.name, s.clone.name, settled.Carried)
		into.git(t, "commit", "-q", "--no-edit")
	}
	return stopped
}

// namedBy is the files lint's findings of code name.
func namedBy(fs []record.Finding, code string) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		if f.Code == code {
			out[f.File] = true
		}
	}
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// noMarkers checks no record file holds a conflict marker.
func noMarkers(t *testing.T, c teamClone) {
	t.Helper()
	for p, data := range c.records(t) {
		_, marked := record.ConflictMarkers([]byte(data))
		assert.Check(t, !marked, "%s holds conflict markers:\n%s", p, data)
	}
}

// holdsOnce checks text stands exactly once in the record file carrying id.
func holdsOnce(t *testing.T, c teamClone, id, text string) {
	t.Helper()
	data := c.read(t, c.pathOf(t, id))
	assert.Check(t, is.Equal(strings.Count(data, text), 1), "%q in %s:\n%s", text, id, data)
}

// checkMerged holds a clean merge of every side to the issue's rules: nothing lost, nothing twice,
// the moves followed, and lint naming exactly what a person has to decide.
func checkMerged(t *testing.T, b teamBase, c teamClone, sides []sideWork) {
	t.Helper()
	noMarkers(t, c)
	for _, s := range sides {
		for _, id := range s.created {
			c.pathOf(t, id)
		}
		for _, l := range s.progress {
			holdsOnce(t, c, b.buildSpec, l)
		}
		holdsOnce(t, c, b.built, s.audit)
		holdsOnce(t, c, b.i1, s.reason)
		holdsOnce(t, c, b.i2, s.note)
	}
	// A close on any side wins over the others' edits; the edits are in the closed record.
	assert.Check(t, strings.HasPrefix(c.pathOf(t, b.buildSpec), ".abcd/development/specs/closed/"))
	assert.Check(t, strings.HasPrefix(c.pathOf(t, b.built), ".abcd/development/intents/shipped/"))
	assert.Check(t, strings.HasPrefix(c.pathOf(t, b.i1), ".abcd/work/issues/closed/"))
	assert.Check(t, strings.HasPrefix(c.pathOf(t, b.i2), ".abcd/work/issues/closed/"))
	holdsOnce(t, c, b.i1, record.ClosedTwiceMarker)

	var lint recorduc.LintResult
	c.abcd(t, 1, &lint, "lint")
	codes := findingCodes(lint.Findings)
	// Every side planned the draft: its specs, one from each side, are named; the issue closed with
	// a reason from each side is named; nothing else.
	assert.Check(t, is.Equal(codes["planned_twice"], len(sides)), "%+v", lint.Findings)
	assert.Check(t, is.Equal(codes["closed_twice"], 1), "%+v", lint.Findings)
	assert.Check(t, is.Equal(len(codes), 2+boolInt(codes["duplicate_id"] > 0)), "%+v", lint.Findings)
	// A duplicate id can only be a collision of ids two clones made in one second: lint names it.
	ids := map[string]int{}
	for p := range c.records(t) {
		id, _ := record.IDOfFileName(p)
		ids[id]++
	}
	dups := 0
	for _, n := range ids {
		if n > 1 {
			dups += n
		}
	}
	assert.Check(t, is.Equal(codes["duplicate_id"], dups), "%+v", lint.Findings)

	// The check a CI runs on what the merges brought in names the same.
	var changed recorduc.LintResult
	c.abcd(t, 1, &changed, "lint", "--changed", "origin/main")
	assert.Check(t, is.DeepEqual(findingCodes(changed.Findings), codes))
	assert.Check(t, changed.Checked <= lint.Checked)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// recordTree is the clone's record files, to compare two merges of the same work.
func recordTree(t *testing.T, c teamClone) map[string]string { return c.records(t) }

// settle does what lint's remedies say: keep one spec of the twice-planned intent, keep the
// reasons of the issue closed on every side and remove the marker. Lint is clean after.
func settle(t *testing.T, b teamBase, c teamClone) {
	t.Helper()
	var specs recorduc.RecordListResult
	c.abcd(t, 0, &specs, "spec", "list", "--lifecycle", "open")
	var twice []string
	for _, s := range specs.Records {
		if s.Implements == b.draft {
			twice = append(twice, s.Path)
		}
	}
	sort.Strings(twice)
	for _, p := range twice[1:] {
		c.git(t, "rm", "-q", p)
	}
	p := c.pathOf(t, b.i1)
	var kept []string
	for _, l := range strings.SplitAfter(c.read(t, p), "\n") {
		if !strings.HasPrefix(l, record.ClosedTwiceMarker) {
			kept = append(kept, l)
		}
	}
	c.write(t, p, strings.Join(kept, ""))
	var lint recorduc.LintResult
	c.abcd(t, 0, &lint, "lint")
	assert.Check(t, is.Len(findingCodes(lint.Findings), 0), "%+v", lint.Findings)
}

func TestTeamOfTwoMergesEveryVerbsWorkBothWays(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the build loop in two clones and merges them with git")
	}
	b, clones := newTeam(t, 2)
	a := work(t, b, clones[0], true)
	bb := work(t, b, clones[1], false)
	sides := []sideWork{a, bb}

	// Both orders: each clone merges the other's work into its own.
	for _, c := range clones {
		c.git(t, "checkout", "-q", "-b", "merged", "work")
		t.Logf("merging into %s: git stopped %d merge(s)", c.name, mergeAll(t, c, sides))
		checkMerged(t, b, c, sides)
	}
	assert.Check(t, is.DeepEqual(recordTree(t, clones[0]), recordTree(t, clones[1])), "the two orders merged differently")
	settle(t, b, clones[0])
}

func TestTeamOfFiveMergesInEitherOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the build loop in five clones and merges them with git")
	}
	b, clones := newTeam(t, 5)
	sides := make([]sideWork, len(clones))
	for i, c := range clones {
		sides[i] = work(t, b, c, i == 2)
	}
	first, last := clones[0], clones[len(clones)-1]
	first.git(t, "checkout", "-q", "-b", "merged", "work")
	t.Logf("merging in order: git stopped %d merge(s)", mergeAll(t, first, sides))
	reversed := slices.Clone(sides)
	slices.Reverse(reversed)
	last.git(t, "checkout", "-q", "-b", "merged", "work")
	t.Logf("merging in reverse: git stopped %d merge(s)", mergeAll(t, last, reversed))
	for _, c := range []teamClone{first, last} {
		checkMerged(t, b, c, sides)
	}
	if !assert.Check(t, is.DeepEqual(recordTree(t, first), recordTree(t, last)), "the two orders merged differently") {
		p := first.pathOf(t, b.i2)
		t.Logf("%s in order:\n%s\nin reverse:\n%s", p, first.read(t, p), last.read(t, last.pathOf(t, b.i2)))
	}
	settle(t, b, last)
}

// TestTeamConflictsAreGitsAndLintNamesThem: what the driver cannot merge (one section both sides
// rewrote) is a conflict git shows, confined to that section, and lint names it until it is
// resolved; every record verb that reads it whole refuses it rather than show the markers as text.
// Without the driver in a clone, git's own merge conflicts where the driver would merge, and lint
// names that too.
func TestTeamConflictsAreGitsAndLintNamesThem(t *testing.T) {
	if testing.Short() {
		t.Skip("merges two clones with git")
	}
	b, clones := newTeam(t, 3)
	for i, c := range clones {
		c.git(t, "checkout", "-q", "-b", "work")
		p := c.pathOf(t, b.draft)
		c.fill(t, p, "Press Release", "Warmer start, as "+c.name+" tells it.")
		c.abcd(t, 0, nil, "issue", "close", b.i1, "--why", "Closed by "+c.name+".")
		c.note(t, c.pathOf(t, b.i2), record.SectionNotes, "Note of "+c.name+".")
		if i == 2 {
			// This clone merges without abcd's driver, as one where install never ran.
			c.git(t, "config", "--remove-section", "merge.abcd")
		}
		c.git(t, "commit", "-q", "-a", "-m", "work of "+c.name)
	}
	one, two, bare := clones[0], clones[1], clones[2]
	for _, pair := range [][2]teamClone{{one, two}, {two, one}} {
		into, from := pair[0], pair[1]
		into.git(t, "checkout", "-q", "-b", "merged-"+from.name, "work")
		into.git(t, "fetch", "-q", from.dir, "work:"+from.name)
		res := into.cmd("git", "merge", "--no-edit", from.name)
		assert.Check(t, is.Equal(res.ExitCode, 1), "%s", res.Combined())
		assert.Check(t, is.Contains(res.Combined(), "CONFLICT (content)"))
		assert.Check(t, is.Contains(res.Stderr(), "a conflict in ## Press Release"))
		p := into.pathOf(t, b.draft)
		assert.Check(t, is.Equal(into.git(t, "status", "--porcelain", "--", p), "UU "+p))
		data := into.read(t, p)
		assert.Check(t, is.Equal(strings.Count(data, "<<<<<<< ours"), 1), data)
		// Only the press release is in conflict: the rest of the records merged.
		noMarkersBut(t, into, p)
		var lint recorduc.LintResult
		into.abcd(t, 1, &lint, "lint")
		codes := findingCodes(lint.Findings)
		assert.Check(t, is.Equal(codes["conflict_markers"], 1), "%+v", lint.Findings)
		assert.Check(t, is.Equal(codes["merge_unresolved"], 1), "%+v", lint.Findings)
		show := into.cmd(binary, "intent", "show", b.draft, "--json")
		show.Assert(t, icmd.Expected{ExitCode: 2})
		assert.Check(t, !strings.Contains(show.Stdout(), "<<<<<<< ours"), show.Stdout())
		assert.Check(t, is.Contains(show.Stdout(), "record_malformed"))
		into.cmd("git", "merge", "--abort").Assert(t, icmd.Success)
	}

	// Without the driver, git's own merge conflicts on the close both sides made and on the notes
	// both appended; lint names each conflict and the missing driver.
	bare.git(t, "checkout", "-q", "-b", "merged", "work")
	bare.git(t, "fetch", "-q", one.dir, "work:"+one.name)
	res := bare.cmd("git", "merge", "--no-edit", one.name)
	assert.Check(t, is.Equal(res.ExitCode, 1), "%s", res.Combined())
	var lint recorduc.LintResult
	bare.abcd(t, 1, &lint, "lint")
	codes := findingCodes(lint.Findings)
	assert.Check(t, codes["conflict_markers"] >= 2, "%+v", lint.Findings)
	assert.Check(t, codes["merge_unresolved"] >= 2, "%+v", lint.Findings)
	assert.Check(t, is.Equal(codes["merge_driver_missing"], 1), "%+v", lint.Findings)
}

// TestTeamANoteEditedOnBothSidesIsAConflict: a note both sides reworded, differently, is no append:
// the driver makes it a conflict git shows and lint names, where it used to keep both wordings as two
// notes, exit 0, lint clean.
func TestTeamANoteEditedOnBothSidesIsAConflict(t *testing.T) {
	if testing.Short() {
		t.Skip("merges two clones with git")
	}
	b, clones := newTeam(t, 2)
	one, two := clones[0], clones[1]
	p := one.pathOf(t, b.i2)
	one.git(t, "checkout", "-q", "-b", "shared")
	one.note(t, p, record.SectionNotes, "The parser is slow.")
	one.git(t, "commit", "-q", "-a", "-m", "a note")
	two.git(t, "fetch", "-q", one.dir, "shared:shared")
	for c, wording := range map[teamClone]string{one: "The parser is slow on big files.", two: "The lexer is slow, not the parser."} {
		c.git(t, "checkout", "-q", "-b", "work", "shared")
		data := c.read(t, p)
		assert.Assert(t, strings.Contains(data, "The parser is slow.\n"))
		c.write(t, p, strings.Replace(data, "The parser is slow.\n", wording+"\n", 1))
		c.git(t, "commit", "-q", "-a", "-m", "reworded by "+c.name)
	}
	one.git(t, "fetch", "-q", two.dir, "work:"+two.name)
	res := one.cmd("git", "merge", "--no-edit", two.name)
	assert.Check(t, is.Equal(res.ExitCode, 1), "%s", res.Combined())
	assert.Check(t, is.Contains(res.Combined(), "CONFLICT (content)"))
	assert.Check(t, is.Contains(res.Stderr(), "a conflict in ## Notes"))
	assert.Check(t, is.Equal(one.git(t, "status", "--porcelain", "--", p), "UU "+p))
	data := one.read(t, p)
	assert.Check(t, is.Equal(strings.Count(data, "<<<<<<< ours"), 1), data)
	assert.Check(t, is.Equal(strings.Count(data, "The parser is slow on big files."), 1), data)
	assert.Check(t, is.Equal(strings.Count(data, "The lexer is slow, not the parser."), 1), data)
	noMarkersBut(t, one, p)
	var lint recorduc.LintResult
	one.abcd(t, 1, &lint, "lint")
	codes := findingCodes(lint.Findings)
	assert.Check(t, is.Equal(codes["conflict_markers"], 1), "%+v", lint.Findings)
	assert.Check(t, is.Equal(codes["merge_unresolved"], 1), "%+v", lint.Findings)
}

// noMarkersBut checks no record file but except holds conflict markers.
func noMarkersBut(t *testing.T, c teamClone, except string) {
	t.Helper()
	for p, data := range c.records(t) {
		if p == except {
			continue
		}
		_, marked := record.ConflictMarkers([]byte(data))
		assert.Check(t, !marked, "%s holds conflict markers:\n%s", p, data)
	}
}

// TestTeamIdsMadeAtTheSameSecondsInEightClones: eight clones capture issues at once, so many ids
// share their seconds. After every clone's work is merged, each id two records carry is named by lint
// (none is silent), and renumber mends each, rewriting the references git shows were made to it. One
// collision is made for sure: a clone copies another's issue under its own title, as two people
// drawing the same four digits in one second would, and relates a capture of its own to it.
func TestTeamIdsMadeAtTheSameSecondsInEightClones(t *testing.T) {
	if testing.Short() {
		t.Skip("makes records in eight clones at once and merges them with git")
	}
	const perClone = 12
	b, clones := newTeam(t, 8)
	for _, c := range clones {
		c.git(t, "checkout", "-q", "-b", "work")
	}
	results := make([][]*icmd.Result, len(clones))
	done := make(chan int)
	for i, c := range clones {
		go func() {
			for n := range perClone {
				results[i] = append(results[i], c.cmd(binary, "capture", fmt.Sprintf("Noticed %d by %s", n, c.name), "--json"))
			}
			done <- i
		}()
	}
	for range clones {
		<-done
	}
	made := map[string]string{} // id → the clone that made it
	seconds := map[string]map[string]bool{}
	for i, rs := range results {
		for _, res := range rs {
			res.Assert(t, icmd.Success)
			var c recorduc.RecordCreated
			decodeOne(t, res.Stdout(), &c)
			made[c.Record.ID+"/"+clones[i].name] = clones[i].name
			sec := c.Record.ID[4:16]
			if seconds[sec] == nil {
				seconds[sec] = map[string]bool{}
			}
			seconds[sec][clones[i].name] = true
		}
	}
	shared := 0
	for _, cs := range seconds {
		if len(cs) > 1 {
			shared++
		}
	}
	assert.Assert(t, shared > 0, "no two clones made a record in one second: the test did not test")
	t.Logf("%d records in %d clones; %d seconds saw records of several clones", len(made), len(clones), shared)

	// The sure collision: the second clone holds an issue under the first clone's first id.
	var first recorduc.RecordCreated
	decodeOne(t, results[0][0].Stdout(), &first)
	twin := filepath.Dir(first.Record.Path) + "/" + record.FileName(first.Record.ID, "twin-of-another")
	made0, err := time.Parse(time.DateOnly, first.Record.Date)
	assert.NilError(t, err)
	twinData := record.RenderIssue(record.NewIssue(first.Record.ID, "Twin of another", "Another thing altogether.", "minor", "abcd capture", nil, made0))
	clones[1].write(t, twin, string(twinData))
	var related recorduc.RecordCreated
	clones[1].abcd(t, 0, &related, "capture", "Caused by the twin", "--related", first.Record.ID)
	for _, c := range clones {
		c.git(t, "add", "-A")
		c.git(t, "commit", "-q", "-m", "captures of "+c.name)
	}
	sides := make([]sideWork, len(clones))
	for i, c := range clones {
		sides[i] = sideWork{clone: c}
	}
	into := clones[0]
	into.git(t, "checkout", "-q", "-b", "merged", "work")
	assert.Check(t, is.Equal(mergeAll(t, into, sides), 0))
	noMarkers(t, into)

	// Every id two files carry is named, on each file.
	byID := map[string][]string{}
	for p := range into.records(t) {
		id, _ := record.IDOfFileName(p)
		byID[id] = append(byID[id], p)
	}
	var lint recorduc.LintResult
	into.abcd(t, 1, &lint, "lint")
	named := namedBy(lint.Findings, "duplicate_id")
	dupFiles := 0
	for _, files := range byID {
		if len(files) > 1 {
			for _, p := range files {
				dupFiles++
				assert.Check(t, named[p], "lint does not name %s, whose id another file carries", p)
			}
		}
	}
	assert.Check(t, is.Equal(len(named), dupFiles))
	assert.Check(t, dupFiles >= 2)

	// Renumber mends each: the twin first, whose capture's reference git shows was made to it.
	var renumbered recorduc.RecordRenumberResult
	into.abcd(t, 0, &renumbered, "record", "renumber", twin)
	assert.Check(t, is.DeepEqual(renumbered.Rewritten, []string{related.Record.Path}))
	assert.Check(t, is.Len(renumbered.Unsure, 0))
	assert.Check(t, strings.Contains(into.read(t, related.Record.Path), "related: ["+renumbered.Record.ID+"]"))
	for id, files := range byID {
		if len(files) < 2 || id == first.Record.ID {
			continue
		}
		sort.Strings(files)
		for _, p := range files[1:] {
			into.abcd(t, 0, nil, "record", "renumber", p)
		}
	}
	into.abcd(t, 0, &lint, "lint")
	assert.Check(t, is.Len(findingCodes(lint.Findings), 0), "%+v", lint.Findings)
	_ = b
}

// TestTeamClosingTheLastOpenIssueLeavesANewOneOpen: one branch closes every open issue, the other
// files a new one. Were the open folder to empty, git's merge would take it as renamed to the closed
// folder and put the new issue there, closed by nobody; its keep file holds it. A clone whose folders
// lack their keep files (an older install) hears it from lint, and install adds them.
func TestTeamClosingTheLastOpenIssueLeavesANewOneOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("merges two clones with git")
	}
	b, clones := newTeam(t, 2)
	closer, filer := clones[0], clones[1]
	closer.abcd(t, 0, nil, "issue", "close", b.i1, "--why", "Fixed.")
	closer.abcd(t, 0, nil, "issue", "close", b.i2, "--why", "Fixed too.")
	closer.git(t, "commit", "-q", "-a", "-m", "every issue closed")
	var c recorduc.RecordCreated
	filer.abcd(t, 0, &c, "capture", "The board shows a stale route")
	filer.git(t, "add", "-A")
	filer.git(t, "commit", "-q", "-m", "a new issue")
	filer.git(t, "fetch", "-q", closer.dir, "main:closer")
	res := filer.cmd("git", "merge", "--no-edit", "closer")
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Equal(filer.pathOf(t, c.Record.ID), c.Record.Path))
	assert.Check(t, strings.HasPrefix(c.Record.Path, ".abcd/work/issues/open/"), c.Record.Path)
	var lint recorduc.LintResult
	filer.abcd(t, 0, &lint, "lint")
	assert.Check(t, is.Len(findingCodes(lint.Findings), 0), "%+v", lint.Findings)

	keep := ".abcd/work/issues/closed/" + record.KeepFile
	closer.git(t, "rm", "-q", keep)
	closer.abcd(t, 0, &lint, "lint")
	assert.Check(t, is.DeepEqual(findingCodes(lint.Findings), map[string]int{"keep_file_missing": 1}), "%+v", lint.Findings)
	closer.abcd(t, 0, nil, "ahoy", "install", "--yes")
	assert.Check(t, is.Equal(closer.read(t, keep), ""))
	closer.abcd(t, 0, &lint, "lint")
	assert.Check(t, is.Len(findingCodes(lint.Findings), 0), "%+v", lint.Findings)
}
