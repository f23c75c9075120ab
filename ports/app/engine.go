package app

// The build loop's engine: the one place that creates runs, takes a run's lock, advances its lanes,
// opens awaits (resolving each agent's route and rendering its brief), records what comes back, and
// dispatches a review to a route beside the host. implement start|step|receipt, review and intent
// audit are thin entries over it (implement.go, review.go, intents.go).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// maxDiffBytes bounds the diff a reviewer's brief carries.
const maxDiffBytes = 512 << 10

// newRun is a run to create: its kind and options, its lanes, and the route flags it keeps.
type newRun struct {
	kind   loop.Kind
	opts   loop.Options
	lanes  func(run string) []loop.LaneSpec
	routes []oracle.RouteText
	// branches: create each lane's branch at the base (a spec run); a review or audit run works on
	// the branch that is checked out.
	branches bool
}

// createRun writes a new run (its folder, then its state) and opens its first awaits. Everything
// that can refuse has been checked by the caller; a failure part way takes back what was made, so no
// orphan stands as the newest run. Runs are created under the record lock, so a run folder with no
// state seen under it is a start a kill interrupted: the next start removes it.
func (a *App) createRun(ctx context.Context, verb string, n newRun) (StepResult, error) {
	lctx, unlock, err := a.lockRecord(ctx)
	if err != nil {
		return StepResult{}, err
	}
	var jobs []dispatch
	s, opened, err := a.writeRun(lctx, verb, n, &jobs)
	unlock()
	if err != nil {
		return StepResult{}, err
	}
	runID := s.Run
	steps := len(s.Lanes)
	if n.kind == loop.KindSpec {
		steps-- // the integration lane is not a step
	}
	created := fmt.Sprintf("created run %s with %s from %s", runID, text.Count(steps, "lane", "lanes"), short(s.Base))
	if n.kind != loop.KindSpec {
		created = fmt.Sprintf("created %s run %s over %s..%s", n.kind, runID, short(s.Base), short(s.Lanes[0].Head))
	}
	if n.kind == loop.KindSpec {
		// A spec run's lanes start, and its first briefs go out, at the next step, so a harness
		// sees the run before any agent starts.
		res := StepResult{Run: a.runView(s), Did: []string{created},
			Next: []string{fmt.Sprintf("run `abcd implement step --run %s` to start the lanes and hand out the first briefs", runID)}}
		return res, nil
	}
	// A review or audit run's first awaits were opened before its state was first written, so a kill
	// never leaves it without them; the routes beside the host are called now, outside every lock.
	res := StepResult{Run: a.runView(s), Did: append([]string{created}, opened...), Next: a.nextSentences(s)}
	return a.callAndPlace(ctx, verb, runID, res, jobs)
}

// writeRun makes a new run's folder and writes its state, under the record lock, removing the
// folders of starts a kill interrupted first. A review or audit run's first awaits are opened before
// the state is first written (nobody can see the run before then), queueing in jobs the routes to
// call; a spec run's lanes start at its first step.
func (a *App) writeRun(ctx context.Context, verb string, n newRun, jobs *[]dispatch) (loop.State, []string, error) {
	orphans, err := a.Runs.Unstarted(ctx)
	if err != nil {
		return loop.State{}, nil, err
	}
	for _, id := range orphans {
		if err := a.Runs.RemoveAll(ctx, loop.RunDir(id)); err != nil {
			return loop.State{}, nil, err
		}
	}
	runID, err := a.freshRun(ctx, verb)
	if err != nil {
		return loop.State{}, nil, err
	}
	lanes := n.lanes(runID)
	n.opts.Run, n.opts.Created = runID, a.now()
	if n.branches {
		n.opts.IntegrationBranch = integrationBranch(runID)
	}
	s := loop.New(n.kind, n.opts, lanes)
	s.Routes = oracle.Texts(n.routes)
	if n.branches {
		// A lane's branch is made when the lane starts; a name already taken refuses the run now.
		for _, ln := range s.Lanes {
			if _, err := a.Git.Resolve(ctx, ln.Branch); err == nil {
				_ = a.Runs.RemoveAll(ctx, loop.RunDir(runID)) // the empty folder freshRun made
				return loop.State{}, nil, refusal.New("branch_exists", ln.Branch, "already exists", "delete the stale branch, or start the run again for a new id")
			}
		}
	}
	var opened []string
	ctx, edits := withStepEdits(context.WithValue(ctx, verbKey{}, verb))
	if n.kind != loop.KindSpec {
		if opened, err = a.advance(ctx, &s, nil, jobs); err != nil {
			_ = a.Runs.RemoveAll(ctx, loop.RunDir(runID))
			return loop.State{}, nil, err
		}
	}
	if err := a.saveRun(ctx, s, edits); err != nil {
		_ = a.Runs.RemoveAll(ctx, loop.RunDir(runID))
		return loop.State{}, nil, err
	}
	return s, opened, nil
}

func (a *App) now() string { return a.Clock.Now().UTC().Format(time.RFC3339) }

// freshRun creates a new run's folder under a fresh id, retrying with new random digits when two
// invocations drew the same id in the same second.
func (a *App) freshRun(ctx context.Context, verb string) (string, error) {
	for try := 0; try < 16; try++ {
		id := a.newRunID()
		created, err := a.Runs.Create(ctx, id)
		if err != nil {
			return "", err
		}
		if created {
			return id, nil
		}
	}
	return "", refusal.Busy("run_id_contention", "", "no free run id after 16 tries", "run it again").On(verb, "")
}

// newRunID is run-<yymmddhhmmss><4 random digits>, sorting by time like record ids.
func (a *App) newRunID() string {
	return "run-" + a.Clock.Now().UTC().Format("060102150405") + fmt.Sprintf("%04d", a.Random.Uint32()%10000)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func statePath(run string) string { return loop.RunDir(run) + "/state.json" }

func (a *App) loadRun(ctx context.Context, run string) (loop.State, error) {
	data, err := a.Runs.Read(ctx, statePath(run), loop.MaxStateBytes)
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == "return_missing" {
			return loop.State{}, loop.UnknownRun(run)
		}
		return loop.State{}, err
	}
	s, err := loop.Decode(statePath(run), data)
	if err == nil {
		err = s.Check()
	}
	if err != nil {
		return loop.State{}, refusal.New("run_state_invalid", statePath(run), err.Error(), "the state file was edited by hand; restore it from the last good copy")
	}
	return s, nil
}

// saveRun writes the run's state; with what its step changed beside it (edits, nil for none), as one
// change, under the record lock taken for the commit.
func (a *App) saveRun(ctx context.Context, s loop.State, edits *stepEdits) error {
	data := loop.Encode(s)
	if len(data) > loop.MaxStateBytes {
		return refusal.New("run_state_too_large", s.Run, fmt.Sprintf("recording this would grow the run's state to %d bytes, past its %d-byte bound", len(data), loop.MaxStateBytes),
			"shorten the return (its findings) and hand it in again; nothing was recorded")
	}
	if edits == nil || edits.empty() {
		return a.Runs.Write(ctx, statePath(s.Run), data)
	}
	ctx, unlock, err := a.lockRecord(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	records, err := a.recordChanges(ctx, edits)
	if err != nil {
		return err
	}
	files := append(append(records, edits.files...), write(statePath(s.Run), data))
	return a.commit(ctx, verbOf(ctx), s.Run, files...)
}

// finishPending finishes a change a killed writer left, taking the record lock only when one waits,
// and returns it; the temporary files dead writers left are swept either way.
func (a *App) finishPending(ctx context.Context) (ports.Change, error) {
	if holdsRecord(ctx) {
		return ports.Change{}, nil // taking it finished what was left
	}
	if err := a.Journal.Sweep(ctx); err != nil {
		return ports.Change{}, err
	}
	if pending, err := a.Journal.Pending(ctx); err != nil || !pending {
		return ports.Change{}, err
	}
	lctx, unlock, err := a.lockRecord(ctx)
	if err != nil {
		return ports.Change{}, err
	}
	unlock()
	c, _ := lctx.Value(finishedKey{}).(ports.Change)
	return c, nil
}

// runIDs is one named run, or every run.
func (a *App) runIDs(ctx context.Context, run loop.RunID) ([]string, error) {
	if run != "" {
		return []string{string(run)}, nil
	}
	return a.Runs.Runs(ctx)
}

// pickRun is the named run, or the one unfinished run. Several unfinished runs are refused rather
// than one picked silently: the person names the run.
func (a *App) pickRun(ctx context.Context, verb string, run loop.RunID) (string, error) {
	if run != "" {
		return string(run), nil
	}
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return "", err
	}
	var active []string
	for _, id := range ids {
		s, err := a.loadRun(ctx, id)
		if err == nil && !s.Finished() {
			active = append(active, id)
		}
	}
	switch len(active) {
	case 0:
		return "", refusal.New("no_run", "", "no unfinished run in this repository",
			"start one: ", refusal.Run("implement_start", refusal.Hole("spec", "spec"))).On(verb, "")
	case 1:
		return active[0], nil
	}
	return "", refusal.New("run_ambiguous", "", fmt.Sprintf("%d runs are unfinished: %s", len(active), strings.Join(active, ", ")),
		"name one with ", refusal.Field(verb, "run"), "; ", refusal.Run("implement_status"), " shows them").On(verb, "")
}

// pickAnyRun is the named run, or the newest run of any standing.
func (a *App) pickAnyRun(ctx context.Context, verb string, run loop.RunID) (string, error) {
	if run != "" {
		return string(run), nil
	}
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", refusal.New("no_run", "", "no run in this repository",
			"start one: ", refusal.Run("implement_start", refusal.Hole("spec", "spec")), ", or ", refusal.Run("review")).On(verb, "")
	}
	return ids[len(ids)-1], nil
}

// withRun runs f on a run's state under its lock and saves the state when f changed it.
func (a *App) withRun(ctx context.Context, verb, run string, f func(context.Context, *loop.State) (StepResult, bool, error)) (StepResult, error) {
	if err := a.initialized(verb); err != nil {
		return StepResult{}, err
	}
	unlock, err := a.lockRun(ctx, run)
	if err != nil {
		return StepResult{}, err
	}
	defer unlock()
	// A change a killed writer left may hold this run's state: it is finished before the state is read.
	finished, err := a.finishPending(ctx)
	if err != nil {
		return StepResult{}, err
	}
	if finished.Verb != "" {
		ctx = context.WithValue(ctx, finishedKey{}, finished)
	}
	ctx, edits := withStepEdits(context.WithValue(ctx, verbKey{}, verb))
	s, err := a.loadRun(ctx, run)
	if err != nil {
		return StepResult{}, err
	}
	res, changed, err := f(ctx, &s)
	if err != nil {
		return StepResult{}, err
	}
	if changed || !edits.empty() {
		if err := a.saveRun(ctx, s, edits); err != nil {
			return StepResult{}, err
		}
	}
	res.Run = a.runView(s)
	if res.Did == nil {
		res.Did = []string{}
	}
	if len(res.Did) == 0 {
		res.Did = append(res.Did, "nothing new: the run is waiting on its open awaits")
	}
	res.Next = a.nextSentences(s)
	return res, nil
}

func (a *App) nextSentences(s loop.State) []string {
	next := []string{}
	for _, aw := range s.OpenAwaits() {
		next = append(next, loop.Next(a.absAwait(aw)))
	}
	switch {
	case len(next) == 0 && s.Finished():
		next = append(next, outcome(s)+fmt.Sprintf("; `abcd implement record --run %s` tells its whole story", s.Run))
	case len(next) == 0:
		next = append(next, fmt.Sprintf("run `abcd implement step --run %s` to open what is due", s.Run))
	}
	return next
}

// outcome says how a finished run ended: what passed, and each lane handed back with why.
func outcome(s loop.State) string {
	var back []string
	for _, ln := range s.Lanes {
		if ln.Stage == loop.StageHandedBack {
			why := firstLine(ln.Findings)
			if why == "" {
				why = "no findings recorded"
			}
			back = append(back, fmt.Sprintf("%s (%s)", ln.ID, why))
		}
	}
	if len(back) > 0 {
		what := "the run ended"
		if s.Kind == loop.KindReview {
			what = "the review failed"
		} else if s.Kind == loop.KindAudit {
			what = "the audit failed"
		}
		return fmt.Sprintf("%s with %s handed back: %s", what, text.Count(len(back), "lane", "lanes"), strings.Join(back, "; "))
	}
	switch s.Kind {
	case loop.KindReview:
		return "the review passed"
	case loop.KindAudit:
		return "the audit passed; its verdicts are in the intent's Audit Notes"
	}
	into := s.BaseRef
	if into == "" {
		into = "your base branch"
	}
	for _, ln := range s.Lanes {
		if ln.Integration {
			return fmt.Sprintf("the run is finished: every step delivered, integrated on %s and audited; merge that branch into %s (`git merge %s`)",
				ln.Branch, into, ln.Branch)
		}
	}
	return "the run is finished: every step delivered"
}

// firstLine is a text's first non-empty line, trimmed.
func firstLine(t string) string {
	for _, line := range strings.Split(t, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// advance opens every await the loop needs now. A route that answers at once records verdicts that
// can make more awaits due (the next round, the auditor), so it opens until nothing new is planned.
// Each pass opens or records at least one await and a run has finitely many, so this ends; the bound
// guards against a bug.
func (a *App) advance(ctx context.Context, s *loop.State, routes map[string]oracle.FlagRoute, jobs *[]dispatch) ([]string, error) {
	if routes == nil && len(s.Routes) > 0 {
		kept := make([]oracle.RouteText, len(s.Routes))
		for i, r := range s.Routes {
			kept[i] = oracle.RouteText(r)
		}
		var err error
		if routes, err = a.Routes(ctx, entryVerb(s.Kind), kept); err != nil {
			return nil, err
		}
	}
	var did []string
	for pass := 0; pass < 64; pass++ {
		acts := loop.Due(*s)
		for _, act := range acts {
			line, err := a.act(ctx, s, act)
			if err != nil {
				return nil, err
			}
			did = append(did, line)
		}
		more, err := a.deliver(ctx, s)
		if err != nil {
			return nil, err
		}
		did = append(did, more...)
		plans := loop.Pending(*s)
		if len(plans) == 0 && len(acts) == 0 {
			break
		}
		if len(plans) > 0 {
			more, err := a.open(ctx, s, plans, routes, jobs)
			if err != nil {
				return nil, err
			}
			did = append(did, more...)
		}
	}
	if s.Finished() {
		did = append(did, a.clearWorktrees(ctx, s)...)
	}
	return did, nil
}

// deliver writes a line in the spec's Progress section for each step lane that is done and each
// integration that passed, once: what the lane did, its branch and its commits. The spec is written
// with the state that marks the lanes delivered, as one change; a line already there is not written
// again.
func (a *App) deliver(ctx context.Context, s *loop.State) ([]string, error) {
	if s.Kind != loop.KindSpec || s.Spec == "" {
		return nil, nil
	}
	var lines []string
	var lanes []int
	for i, ln := range s.Lanes {
		if ln.Stage != loop.StageDone || ln.Delivered {
			continue
		}
		lines = append(lines, progressLine(*s, ln))
		lanes = append(lanes, i)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	l, err := a.resolve(ctx, record.Specs, verbOf(ctx), "", record.Ref(s.Spec))
	if err != nil {
		return nil, err
	}
	specPath := l.file.Path
	err = editRecord(ctx, record.Specs, s.Spec, func(p string, data []byte) ([]byte, error) {
		var add []string
		for _, line := range lines {
			if !strings.Contains(string(data), line) {
				add = append(add, line)
			}
		}
		if len(add) == 0 {
			return data, nil
		}
		updated, err := record.AppendToSection(data, record.SectionProgress, strings.Join(add, "\n"))
		if err != nil {
			return nil, recordMalformed(p, err.Error())
		}
		return updated, nil
	})
	if err != nil {
		return nil, err
	}
	var did []string
	for _, i := range lanes {
		s.Lanes[i].Delivered = true
		s.Changes++
		did = append(did, fmt.Sprintf("%s: delivered; its line is in the Progress of %s", s.Lanes[i].ID, specPath))
	}
	return did, nil
}

// progressLine is one delivered lane in the spec's Progress section.
func progressLine(s loop.State, ln loop.Lane) string {
	if ln.Integration {
		return fmt.Sprintf("- Run %s integrated on `%s` at %s from %s.", s.Run, ln.Branch, short(ln.Head), short(s.Base))
	}
	var commits []string
	for _, im := range ln.Implementations {
		for _, c := range im.Commits {
			// A fix's receipt may list the lane's earlier commits again: each is said once.
			if !slices.Contains(commits, short(c)) {
				commits = append(commits, short(c))
			}
		}
	}
	return fmt.Sprintf("- Run %s, step %d (%s): delivered on `%s` at %s, commits %s.", s.Run, ln.Step, oneLine(ln.Text), ln.Branch, short(ln.Head), strings.Join(commits, ", "))
}

func integrationBranch(run string) string { return "abcd/" + run + "/integration" }

// act carries out one change Due asks for: a lane's start (its branch from what it builds on, the
// others merged in, in its own worktree), or the integration of every delivered lane. A merge that
// conflicts hands the lane back naming the files; nothing of it is left in the worktree.
//
// A start a kill interrupted may have left the branch, a worktree half checked out or a merge part
// way. The state does not say the lane started, so nothing has used them: the start is made again
// from the beginning, and a step run again ends as one never interrupted.
func (a *App) act(ctx context.Context, s *loop.State, act loop.Action) (string, error) {
	ln := s.Lanes[act.Lane]
	wt := loop.WorktreeDir(s.Run, ln.ID)
	// The folder first: a worktree git half made may not be one it can remove, and once the folder
	// is gone git forgets it.
	if err := a.Runs.RemoveAll(ctx, wt); err != nil {
		return "", err
	}
	if err := a.Git.RemoveWorktree(ctx, wt); err != nil {
		return "", err
	}
	if err := a.Git.ClearRefLock(ctx, ln.Branch); err != nil {
		return "", err
	}
	if err := a.Git.DeleteBranch(ctx, ln.Branch); err != nil {
		return "", err
	}
	if err := a.Git.CreateBranch(ctx, ln.Branch, act.From); err != nil {
		return "", err
	}
	if err := a.Git.AddWorktree(ctx, wt, ln.Branch); err != nil {
		return "", err
	}
	for k, head := range act.Merge {
		msg := fmt.Sprintf("abcd %s: %s builds on %s", s.Run, ln.ID, act.MergeLanes[k])
		if ln.Integration {
			msg = fmt.Sprintf("abcd %s: integrate %s", s.Run, act.MergeLanes[k])
		}
		conflicts, err := a.Git.Merge(ctx, wt, head, msg)
		if err != nil {
			return "", err
		}
		if len(conflicts) > 0 {
			s.Conflicted(act.Lane, act.MergeLanes[k], conflicts)
			_ = a.Git.RemoveWorktree(ctx, wt)
			if ln.Integration {
				return fmt.Sprintf("integration: merging %s conflicted on %s; the lanes are not integrated (merge their branches by hand)", act.MergeLanes[k], strings.Join(conflicts, ", ")), nil
			}
			return fmt.Sprintf("%s: merging %s conflicted on %s; the lane is handed back", ln.ID, act.MergeLanes[k], strings.Join(conflicts, ", ")), nil
		}
	}
	start, err := a.Git.Resolve(ctx, ln.Branch)
	if err != nil {
		return "", err
	}
	s.Started(act.Lane, start, wt)
	if ln.Integration {
		return fmt.Sprintf("integrated %s on %s at %s, in %s", text.Count(len(act.Merge), "lane", "lanes"), ln.Branch, short(start), a.abs(wt)), nil
	}
	return fmt.Sprintf("%s: started on %s at %s, in %s", ln.ID, ln.Branch, short(start), a.abs(wt)), nil
}

// clearWorktrees removes a finished run's worktrees; its branches stay.
func (a *App) clearWorktrees(ctx context.Context, s *loop.State) []string {
	var did []string
	for i := range s.Lanes {
		ln := &s.Lanes[i]
		if ln.Worktree == "" {
			continue
		}
		if err := a.Git.RemoveWorktree(ctx, ln.Worktree); err != nil {
			did = append(did, fmt.Sprintf("%s: could not remove its worktree %s (%s); remove it with git worktree remove", ln.ID, a.abs(ln.Worktree), refusalWhy(err)))
			continue
		}
		did = append(did, fmt.Sprintf("%s: removed its worktree; %s stays", ln.ID, ln.Branch))
		ln.Worktree = ""
		s.Changes++
	}
	return did
}

// abs is a repository-relative path as an absolute one, for a brief or a next line an agent in any
// folder can follow literally.
func (a *App) abs(rel string) string {
	root, _ := a.repoRoot()
	if root == "" || strings.HasPrefix(rel, "/") {
		return rel
	}
	return path.Join(filepath.ToSlash(root), rel)
}

// entryVerb is the verb a run of this kind was started by: the one whose dispatches its kept route
// flags are checked against, and the one its refusals name.
func entryVerb(k loop.Kind) string {
	switch k {
	case loop.KindReview:
		return "review"
	case loop.KindAudit:
		return "intent_audit"
	}
	return "implement_step"
}

// stepConfig is what opening awaits reads of the configuration, read once per pass.
type stepConfig struct {
	routing     routing
	conns       oracle.Connections
	reviewRoute string // oracle.review: host or rp
	// rpURL and rpTool name the RepoPrompt server, read only when reviews take rp.
	rpURL, rpTool string
}

// readStepConfig reads both configuration families, the machine's connections and oracle.review's
// route. Starting a run calls it first, so a fault in them refuses before anything is written.
func (a *App) readStepConfig(ctx context.Context) (stepConfig, error) {
	files, stack, err := a.loadConfig(ctx)
	if err != nil {
		return stepConfig{}, err
	}
	rt, err := a.loadRouting(files)
	if err != nil {
		return stepConfig{}, err // a verb about to ask for a model refuses on a table it cannot read
	}
	conns, err := a.connectionsOf(stack)
	if err != nil {
		return stepConfig{}, err
	}
	reviewRoute, err := config.Get[string](stack, "oracle.review")
	if err != nil {
		return stepConfig{}, configRefusal(err)
	}
	c := stepConfig{routing: rt, conns: conns, reviewRoute: reviewRoute.V}
	if c.reviewRoute == "rp" {
		// The server block is read only when reviews take rp: a fault in it never refuses a step in
		// a repository that has not opted in.
		rpURL, err := config.Get[string](stack, "oracle.rp.url")
		if err != nil {
			return stepConfig{}, configRefusal(err)
		}
		rpTool, err := config.Get[string](stack, "oracle.rp.tool")
		if err != nil {
			return stepConfig{}, configRefusal(err)
		}
		c.rpURL, c.rpTool = rpURL.V, rpTool.V
	}
	return c, nil
}

// open opens the awaits of one pass of plans. A step a route beside the host takes is opened for the
// host as well (its brief and return path, told by every step) and queued in jobs: the route is called
// once the run's lock is released (dispatch.go), so a long review blocks no other step.
func (a *App) open(ctx context.Context, s *loop.State, plans []loop.Plan, routes map[string]oracle.FlagRoute, jobs *[]dispatch) ([]string, error) {
	cfg, err := a.readStepConfig(ctx)
	if err != nil {
		return nil, err
	}
	var did []string
	for _, p := range plans {
		lane := s.Lanes[p.Lane]
		routing, route, flagConn, err := a.awaitRouting(cfg, p, lane, routes)
		if err != nil {
			return nil, err
		}
		brief, ret := loop.AwaitPaths(s.Run, lane.ID, p)
		text, err := a.renderBrief(ctx, *s, lane, p, ret, routing.Tier)
		if err != nil {
			return nil, err
		}
		if err := a.Runs.Write(ctx, brief, []byte(text)); err != nil {
			return nil, err
		}
		target, v, why, err := a.validatorFor(ctx, cfg, p, route, flagConn)
		if err != nil {
			return nil, err
		}
		if target == "" {
			aw := s.Open(p, brief, ret, routing, a.now())
			did = append(did, fmt.Sprintf("%s: opened %s for %s (round %d)", lane.ID, aw.Kind, aw.Role, aw.Round))
			continue
		}
		routing.Route = target
		aw := s.Open(p, brief, ret, routing, a.now())
		if v == nil {
			did = append(did, a.fallBack(s, aw, lane.ID, target, why, ""))
			continue
		}
		req, err := a.composeRequest(ctx, *s, lane, p, aw, text, route)
		if err != nil {
			did = append(did, a.fallBack(s, aw, lane.ID, target, review.Failed, refusalWhy(err)))
			continue
		}
		*jobs = append(*jobs, dispatch{await: aw.ID, lane: lane.ID, role: aw.Role, round: aw.Round, ret: ret, route: target, v: v, req: req})
		did = append(did, fmt.Sprintf("%s: sent %s's %s (round %d) to %s; until it answers, the host may take it too", lane.ID, aw.Role, aw.Kind, aw.Round, target))
	}
	return did, nil
}

// awaitRouting is the route an await asks for. The implementer is the harness's own agent, not a
// roster agent: it has no routing row. A validator's route comes from routeOf, with the tier a
// failed round escalated it to; flagConn says a --route flag named its connection.
func (a *App) awaitRouting(cfg stepConfig, p loop.Plan, lane loop.Lane, routes map[string]oracle.FlagRoute) (loop.Routing, oracle.Route, bool, error) {
	if p.Role == loop.RoleImplementer {
		return loop.Routing{Agent: p.Role, Tier: string(oracle.HostDecides), FanOut: 1, Route: "host", Ran: "host",
			Connection: oracle.HarnessName, Source: string(oracle.SourceNone)}, oracle.Route{}, false, nil
	}
	var flag *oracle.FlagRoute
	if fr, ok := routes[p.Role]; ok {
		flag = &fr
	}
	route, err := a.routeOf(p.Role, cfg.routing, cfg.conns, flag, oracle.Tier(lane.Tiers[p.Role]))
	if err != nil {
		return loop.Routing{}, oracle.Route{}, false, err
	}
	req := route.Request()
	if route.Fallback != "" && a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("%s: %s", p.Role, route.Fallback))
	}
	return loop.Routing{Agent: req.Agent, Tier: string(req.Tier), FanOut: req.FanOut, Source: string(req.Source),
			Origin: req.Origin, Override: req.Override, Connection: req.Connection, Fallback: req.Fallback, Route: "host", Ran: "host"},
		route, flag != nil && flag.Connection != "", nil
}

// validatorFor decides who takes a validator's step beside the host: the connection a --route flag
// names; else, for a reviewer, RepoPrompt when oracle.review is rp; else the provider the routing
// resolved to. target is "" for the host. A route that cannot be called at all (rp with no server)
// comes back with target set, v nil and the fallback reason.
func (a *App) validatorFor(ctx context.Context, cfg stepConfig, p loop.Plan, route oracle.Route, flagConn bool) (string, ports.Validator, review.FallbackReason, error) {
	if p.Role == loop.RoleImplementer {
		return "", nil, "", nil
	}
	provider := func() (string, ports.Validator, review.FallbackReason, error) {
		v, ok, err := a.providerValidator(ctx, route.Connection.Name)
		if err != nil || !ok {
			return "", nil, "", err
		}
		return route.Connection.Name, v, "", nil
	}
	switch {
	case flagConn && !route.Connection.Harness:
		return provider()
	case p.Kind == loop.AwaitReview && cfg.reviewRoute == "rp":
		if v, ok := a.Validators["rp"]; ok {
			return "rp", v, "", nil
		}
		if cfg.rpURL == "" {
			return "rp", nil, review.Absent, nil
		}
		if a.RP == nil {
			return "rp", nil, review.Failed, nil
		}
		return "rp", a.RP.RP(cfg.rpURL, cfg.rpTool), "", nil
	case !route.Connection.Harness && route.Connection.Name != "":
		return provider()
	}
	return "", nil, "", nil
}

// fallBack records that a route did not take an await's step: the host takes it with the same brief
// and return path, and the record says why in abcd's own words.
func (a *App) fallBack(s *loop.State, aw loop.Await, lane, route string, reason review.FallbackReason, detail string) string {
	if detail == "" {
		detail = reason.Sentence()
	}
	f := review.FallbackReceipt{At: a.now(), Run: s.Run, Lane: lane, Round: aw.Round, Role: review.Role(aw.Role), Asked: route,
		Reason: reason, Detail: boundDetail(oneLine(detail)), Ran: review.RanHost}
	if f.Check() != nil {
		// The receipt's own check refuses what must never reach the record (an address): say it in
		// abcd's words instead.
		f.Detail = reason.Sentence()
	}
	s.Fallbacks = append(s.Fallbacks, loop.Fallback{At: f.At, Lane: lane, Round: aw.Round, Role: aw.Role,
		Asked: route, Reason: string(reason), Detail: f.Detail, Ran: review.RanHost})
	s.Changes++
	if i, j, ok := s.FindID(aw.ID); ok {
		s.Lanes[i].Awaits[j].Answered = loop.Answer{} // the review is the host's now
	}
	if a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("%s %s: %s did not take the step (%s); the host takes it", lane, aw.Role, route, reason.Sentence()))
	}
	return fmt.Sprintf("%s: %s's %s (round %d) is the host's: %s fell back (%s)", lane, aw.Role, aw.Kind, aw.Round, route, reason)
}

func refusalWhy(err error) string {
	if r, ok := refusal.As(err); ok {
		return r.Why
	}
	return err.Error()
}

// renderBrief gathers what a brief needs, so it is whole: the agent's definition, the spec and the
// intent's criteria, the verdict words, and the diff, with every path absolute.
func (a *App) renderBrief(ctx context.Context, s loop.State, lane loop.Lane, p loop.Plan, ret, tier string) (string, error) {
	root, _ := a.repoRoot()
	c := loop.BriefContext{State: s, Lane: lane, Plan: p, Root: filepath.ToSlash(root), Return: a.abs(ret), LaneDir: a.abs(loop.LaneDir(s.Run, lane.ID)), Tier: tier}
	if lane.Worktree != "" {
		c.Worktree = a.abs(lane.Worktree)
	}
	verb := entryVerb(s.Kind)
	if p.Role != loop.RoleImplementer {
		ros, err := a.Roster.Roster()
		if err != nil {
			return "", err
		}
		if ag, ok := ros.Get(p.Role); ok {
			c.AgentName, c.AgentDescription, c.AgentPrompt = ag.Name, ag.Description, ag.Body
		}
		c.Pass, c.Fail = review.Words(review.Role(p.Role))
		for _, im := range lane.Implementations {
			if text := a.reportOf(ctx, s, lane, im); text != "" {
				c.Reports = append(c.Reports, loop.Report{Round: im.Round, Path: a.reportPath(ctx, s, lane, im), Text: text})
			}
		}
	}
	if s.Intent != "" {
		_, it, err := a.intent(ctx, verb, "", record.Ref(s.Intent))
		if err != nil {
			return "", err
		}
		c.IntentID, c.IntentTitle = it.Front.ID, it.Front.Title
		for _, cr := range it.Criteria {
			c.Criteria = append(c.Criteria, cr.ID+": "+cr.Text)
		}
	}
	if s.Spec != "" {
		if l, err := a.resolve(ctx, record.Specs, verb, "", record.Ref(s.Spec)); err == nil {
			c.SpecPath = a.abs(l.file.Path)
		}
	}
	if p.Kind == loop.AwaitReview || p.Kind == loop.AwaitAudit {
		// A step lane is reviewed on its own changes, from where it started; the integration and a
		// review or audit run on everything from the base.
		from := lane.Start
		if from == "" || lane.Integration || s.Kind != loop.KindSpec {
			from = s.Base
		}
		c.DiffFrom = from
		diff, cut, err := a.Git.Diff(ctx, from, lane.Head, maxDiffBytes)
		if err != nil {
			return "", err
		}
		c.Diff = string(diff)
		if cut {
			c.Diff += fmt.Sprintf("\n[the diff is longer than %d bytes and was cut here; read the rest with git diff %s %s]", maxDiffBytes, short(from), short(lane.Head))
		}
	}
	return loop.Brief(c), nil
}

// receive records what an agent wrote at an open await's return path (ret, repository-relative),
// then opens what that makes due.
func (a *App) receive(ctx context.Context, run, ret, given string) (StepResult, error) {
	var recorded RecordedView
	res, err := a.drive(ctx, "implement_receipt", run, func(ctx context.Context, s *loop.State, jobs *[]dispatch) (StepResult, bool, error) {
		lane, idx, ok := s.Find(ret)
		if was, at, found := recordedReturn(*s, ret); !ok && found {
			if _, mine := finishedFor(ctx, "implement_receipt", run); mine {
				// This same receipt, killed once its change was in the journal: taking the lock finished it.
				recorded = was
				return StepResult{Did: []string{fmt.Sprintf("%s: the %s's return was recorded by the interrupted receipt, whose change is now finished", was.Lane, was.Role)}}, false, nil
			}
			return StepResult{}, false, refusal.New("receipt_recorded", fmt.Sprintf("%q", clip(given)), fmt.Sprintf("was recorded already, at %s", at),
				"nothing to do: ", refusal.Run("implement_status", refusal.With("run", run)), " shows what the run waits on now")
		}
		if !ok {
			var open []string
			for _, aw := range s.OpenAwaits() {
				open = append(open, aw.Return)
			}
			remedy := refusal.Say("no await is open: ", refusal.Run("implement_step", refusal.With("run", run)))
			if len(open) > 0 {
				remedy = refusal.Say("the open awaits' return paths: " + strings.Join(open, ", "))
			}
			return StepResult{}, false, &refusal.Error{Kind: refusal.Refused, Code: "receipt_not_awaited", What: fmt.Sprintf("%q", clip(given)),
				Why: "is not the return path of an open await of " + run, Remedy: remedy}
		}
		aw := s.Lanes[lane].Awaits[idx]
		if err := a.recordReturn(ctx, s, ret, "host"); err != nil {
			return StepResult{}, false, err
		}
		recorded = RecordedView{Await: aw.ID, Lane: s.Lanes[lane].ID, Role: aw.Role, Kind: string(aw.Kind), Route: "host"}
		if v, ok := lastVerdict(*s, lane, aw); ok {
			recorded.Word, recorded.Pass, recorded.Route = v.Word, v.Pass, v.Routing.Ran
		} else {
			recorded.Word, recorded.Pass = "RECEIPT", true
		}
		did := []string{fmt.Sprintf("%s: recorded the %s's %s", s.Lanes[lane].ID, aw.Role, map[bool]string{true: "receipt", false: "return"}[aw.Role == loop.RoleImplementer])}
		more, err := a.advance(ctx, s, nil, jobs)
		if err != nil {
			return StepResult{}, false, err
		}
		return StepResult{Did: append(did, more...)}, true, nil
	})
	if err != nil {
		return StepResult{}, err
	}
	res.Recorded = &recorded
	return res, nil
}

// recordedReturn finds ret among the returns the run has recorded: what was recorded, and when.
func recordedReturn(s loop.State, ret string) (RecordedView, string, bool) {
	for _, ln := range s.Lanes {
		for _, im := range ln.Implementations {
			if im.Receipt == ret {
				kind := loop.AwaitImplement
				if im.Round > 1 {
					kind = loop.AwaitFix
				}
				return RecordedView{Lane: ln.ID, Role: loop.RoleImplementer, Kind: string(kind), Word: "RECEIPT", Pass: true, Route: "host"}, im.At, true
			}
		}
		for _, r := range ln.Rounds {
			for _, v := range r.Verdicts {
				if v.Return == ret {
					kind := loop.AwaitReview
					if v.Role == loop.RoleAuditor {
						kind = loop.AwaitAudit
					}
					return RecordedView{Lane: ln.ID, Role: v.Role, Kind: string(kind), Word: v.Word, Pass: v.Pass, Route: v.Routing.Ran}, v.At, true
				}
			}
		}
	}
	return RecordedView{}, "", false
}

func lastVerdict(s loop.State, lane int, aw loop.Await) (loop.Verdict, bool) {
	for _, r := range s.Lanes[lane].Rounds {
		if r.N != aw.Round {
			continue
		}
		for _, v := range r.Verdicts {
			if v.Role == aw.Role {
				return v, true
			}
		}
	}
	return loop.Verdict{}, false
}

// recordReturn verifies what stands at an await's return path and records it. Nothing is recorded
// when it does not verify; the refusal names every problem.
func (a *App) recordReturn(ctx context.Context, s *loop.State, ret, ran string) error {
	lane, idx, ok := s.Find(ret)
	if !ok {
		return fmt.Errorf("no open await returns to %s", ret)
	}
	aw := s.Lanes[lane].Awaits[idx]
	ln := s.Lanes[lane]
	refuse := func(err error) error {
		var re *review.ReturnError
		if errors.As(err, &re) {
			return refusal.New("return_refused", ret, strings.Join(re.Problems, "; "),
				"fix the return and ", refusal.Run("implement_receipt", refusal.With("path", ret)), " again; nothing was recorded")
		}
		return err
	}
	switch aw.Kind {
	case loop.AwaitImplement, loop.AwaitFix:
		data, err := a.readReturn(ctx, ret, review.MaxReceiptBytes)
		if err != nil {
			return err
		}
		// Every rule is checked before anything is refused, so every problem comes back at once:
		// what the receipt says, and what git and the lane folder say of what could be read of it.
		rc, decodeErr := review.DecodeImplementerReceipt(data)
		var re *review.ReturnError
		if decodeErr != nil && (!errors.As(decodeErr, &re) || rc.SchemaVersion == 0 && rc.Run == "" && len(rc.Commits) == 0) {
			return refuse(decodeErr)
		}
		laneDir := loop.LaneDir(s.Run, ln.ID)
		facts := review.ReceiptFacts{Run: s.Run, Lane: ln.ID, Branch: ln.Branch}
		if review.LanePathOK(rc.DoD.Output) {
			facts.OutputProblem = a.Runs.CheckFile(ctx, laneDir, laneDir+"/"+rc.DoD.Output)
		}
		if review.LanePathOK(rc.Report) {
			facts.ReportProblem = a.Runs.CheckFile(ctx, laneDir, laneDir+"/"+rc.Report)
		}
		head, err := a.Git.Resolve(ctx, ln.Branch)
		if err != nil {
			return err
		}
		// A lane that builds on others starts from their heads: their commits are not the lane's.
		start := ln.Start
		if start == "" {
			start = s.Base
		}
		for _, c := range rc.Commits {
			if !review.ValidCommitID(c) {
				continue
			}
			if ok, err := a.Git.IsAncestor(ctx, c, head); err != nil {
				return err
			} else if !ok {
				facts.Unreachable = append(facts.Unreachable, c)
			}
			if ok, err := a.Git.IsAncestor(ctx, c, start); err != nil {
				return err
			} else if ok {
				facts.FromBase = append(facts.FromBase, c)
			}
		}
		if err := review.JoinProblems(decodeErr, review.CheckReceiptFacts(rc, facts)); err != nil {
			return refuse(err)
		}
		return s.RecordImplementation(lane, idx, loop.Implementation{Commits: rc.Commits, Head: head, Model: rc.Model, Receipt: ret, At: a.now()})
	case loop.AwaitReview:
		data, err := a.readReturn(ctx, ret, review.MaxReturnBytes)
		if err != nil {
			return err
		}
		v, err := review.ParseReviewerReturn(review.Role(aw.Role), data)
		if err != nil {
			return refuse(err)
		}
		return a.recordVerdict(s, lane, idx, v, ret, data, ran)
	default:
		data, err := a.readReturn(ctx, ret, review.MaxReturnBytes)
		if err != nil {
			return err
		}
		audit, v, err := review.ParseAuditReturn(data, s.Intent, s.Criteria)
		if err != nil {
			return refuse(err)
		}
		// An audit run's verdicts, and a spec run's audit of its integration, go into the intent's
		// Audit Notes: what was promised and what was delivered read side by side.
		if s.Kind == loop.KindAudit || (s.Intent != "" && ln.Integration) {
			notes, err := a.auditNotes(s, ln, audit, v, ret)
			if err != nil {
				return err
			}
			// The notes go into the intent with the state that records the verdict, as one change.
			if err := a.writeAuditNotes(ctx, s, notes); err != nil {
				return err
			}
		}
		return a.recordVerdict(s, lane, idx, v, ret, data, ran)
	}
}

func (a *App) recordVerdict(s *loop.State, lane, idx int, v review.Verdict, ret string, data []byte, ran string) error {
	sum := sha256.Sum256(data)
	aw := s.Lanes[lane].Awaits[idx]
	digest := hex.EncodeToString(sum[:])
	switch {
	case aw.Answered.Route != "" && aw.Answered.SHA256 == digest:
		// The bytes the route's answer was placed as: the route's, whoever hands them in.
		ran = aw.Answered.Route
	case ran == "host":
		s.Lanes[lane].Awaits[idx].Answered = loop.Answer{} // the host's agent wrote (or rewrote) it
	}
	routing := aw.Routing
	routing.Ran = ran
	s.Lanes[lane].Awaits[idx].Routing = routing
	return s.RecordVerdict(lane, idx, loop.Verdict{Word: v.Word, Pass: v.Pass, Findings: v.Findings, Return: ret,
		SHA256: hex.EncodeToString(sum[:]), At: a.now()})
}

// auditNotes renders the auditor's per-criterion verdicts for the intent's Audit Notes, refusing a
// return whose text the record cannot hold (nothing is recorded then).
func (a *App) auditNotes(s *loop.State, ln loop.Lane, audit review.AuditReturn, v review.Verdict, ret string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "### Audit %s (run %s, %s..%s): %s\n\n", a.Clock.Now().UTC().Format("2006-01-02"), s.Run, short(s.Base), short(ln.Head), v.Word)
	for _, cv := range audit.Verdicts {
		fmt.Fprintf(&b, "- %s: %s. %s", cv.Criterion, cv.Verdict, oneLine(cv.Evidence))
		if cv.Concerns != "" {
			fmt.Fprintf(&b, " Concerns: %s", oneLine(cv.Concerns))
		}
		b.WriteString("\n")
	}
	if audit.Summary != "" {
		fmt.Fprintf(&b, "\n%s\n", oneLine(audit.Summary))
	}
	if err := record.CheckBody(b.String()); err != nil {
		return "", refusal.New("return_refused", ret, "the audit's text cannot go into the intent's Audit Notes: "+err.Error(),
			"write the evidence, concerns and summary as plain sentences (no headings or code fences) and hand the return in again; nothing was recorded")
	}
	return b.String(), nil
}

// writeAuditNotes appends the notes to the intent's Audit Notes, with the run's state that records the
// verdict, as one change: a kill leaves both or neither, so a receipt handed in again never writes
// the notes twice. The edit is applied to the intent as it stands under the record lock at the
// commit, so a concurrent move or edit is never overwritten.
func (a *App) writeAuditNotes(ctx context.Context, s *loop.State, notes string) error {
	return editRecord(ctx, record.Intents, s.Intent, func(p string, data []byte) ([]byte, error) {
		updated, err := record.AppendToSection(data, record.SectionAuditNotes, notes)
		if err != nil {
			return nil, refusal.New("record_malformed", p, err.Error(), "fix the intent (", refusal.Run("lint"), " lists every problem), then hand the return in again")
		}
		return updated, nil
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
