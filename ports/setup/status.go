package setup

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/verb"
)

// StatusInput takes nothing: status is of the repository abcd stands in.
type StatusInput struct{}

// StatusResult is bare abcd: whether a record exists, what is configured, what to do next.
type StatusResult struct {
	Repository RepositoryStatus   `json:"repository"`
	Record     RecordStatus       `json:"record"`
	Config     []ConfigFileStatus `json:"config"`
	Oracle     loopuc.OracleBoard `json:"oracle"`
	Next       []NextAction       `json:"next"`
}

// RepositoryStatus says where abcd stands.
type RepositoryStatus struct {
	Root        string `json:"root"`
	Git         bool   `json:"git"`
	Initialized bool   `json:"initialized"`
}

// RecordStatus counts the record's files per lifecycle folder.
type RecordStatus struct {
	Present bool          `json:"present"`
	Total   int           `json:"total" jsonschema:"minimum=0"`
	Folders []FolderCount `json:"folders"`
}

// FolderCount is one lifecycle folder's count.
type FolderCount struct {
	Family    record.Family `json:"family"`
	Lifecycle string        `json:"lifecycle"`
	Path      string        `json:"path"`
	Count     int           `json:"count" jsonschema:"minimum=0"`
}

// ConfigFileStatus is one configuration file abcd reads.
type ConfigFileStatus struct {
	Layer   string `json:"layer"`
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Present bool   `json:"present"`
}

// NextAction is a step that makes sense from here, with the reason.
type NextAction struct {
	hint.Next
	Why string `json:"why" jsonschema:"minLength=1"`
}

func StatusVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "status",
		Path:       []string{"status"},
		Example:    "abcd status\nabcd status --json",
		Summary:    "Show the repository's record, its configuration and what to do next",
		ReadOnly:   true,
		Idempotent: true,
	}, status)
}

// status is bare abcd: the facts, the oracle board and what to do next.
func status(ctx context.Context, a *Deps, _ *StatusInput) (StatusResult, error) {
	f, err := a.Inspector.Inspect(ctx)
	if err != nil {
		return StatusResult{}, err
	}
	st := statusOf(f)
	st.Oracle = a.Loop.OracleBoard(ctx)
	// A table not accepted is not a next step: ahoy install has run and made its offer; the board
	// says how to take it up later.
	if !st.Oracle.Readable {
		st.Next = append(st.Next, NextAction{Next: hint.Say(hint.Do("config_show")),
			Why: "a configuration or routing file cannot be read, so the oracle lines are left out: " + st.Oracle.Problem})
	}
	if f.Initialized && a.Records != nil {
		next, err := a.recordNext(ctx)
		if err != nil {
			return StatusResult{}, err
		}
		st.Next = append(st.Next, next...)
	}
	return st, nil
}

// StatusOf interprets the facts; kept apart from I/O so every branch is a table test.
func statusOf(f ports.RepoFacts) StatusResult {
	res := StatusResult{
		Repository: RepositoryStatus{Root: f.Root, Git: f.Git, Initialized: f.Initialized},
		Record:     RecordStatus{Folders: []FolderCount{}},
		Config: []ConfigFileStatus{
			{Layer: "repository", Kind: "config", Path: f.RepoConfig.Path, Present: f.RepoConfig.Present},
			{Layer: "repository", Kind: "routing", Path: f.RepoRouting.Path, Present: f.RepoRouting.Present},
			{Layer: "machine", Kind: "config", Path: f.MachineConfig.Path, Present: f.MachineConfig.Present},
			{Layer: "machine", Kind: "routing", Path: f.MachineRouting.Path, Present: f.MachineRouting.Present},
		},
		Oracle: loopuc.OracleBoard{Agents: []loopuc.AgentRoute{}},
		Next:   []NextAction{},
	}
	for _, folder := range record.Folders() {
		n := f.Records[folder.Dir]
		res.Record.Folders = append(res.Record.Folders, FolderCount{
			Family: folder.Family, Lifecycle: folder.Lifecycle, Path: folder.Dir, Count: n})
		res.Record.Total += n
	}
	res.Record.Present = res.Record.Total > 0
	switch {
	case !f.Git:
		res.Next = append(res.Next, NextAction{Next: hint.Say("run `git init`"),
			Why: "abcd keeps its record and runs its build loop inside a git repository"})
	case !f.Initialized:
		res.Next = append(res.Next, NextAction{Next: hint.Say(hint.Do("ahoy_install")),
			Why: "this repository has no .abcd/ folder yet, where abcd keeps its record and configuration"})
	}
	return res
}

// maxRecordNext bounds how many record suggestions status makes.
const maxRecordNext = 5

// recordNext suggests the record's next steps: a draft intent whose own checks pass is ready to
// plan, a run under way goes on, and an open spec whose intent passes the readiness gate is ready to
// build (or, delivered, to close). Each intent and each open spec is read once, whole, in one listing
// of its folders, and never again; a file is parsed whole only when a suggestion turns on it (a
// draft, or the intent of an open spec, and that intent's specs only once its own checks pass), so
// status stays linear in the size of the record.
func (a *Deps) recordNext(ctx context.Context) ([]NextAction, error) {
	intents, err := a.Record.ListWhole(ctx, record.Intents, "")
	if err != nil {
		return nil, err
	}
	next, drafts := readyDrafts(intents)
	if drafts == 0 && len(next) == 0 {
		if empty, err := a.recordEmpty(ctx, len(intents)); err != nil {
			return nil, err
		} else if empty {
			next = append(next, NextAction{Next: hint.Say(hint.Do("intent_new", hint.Hole("title", "title"))),
				Why: "the record is empty: an intent says what should exist, for whom, and how you will know it is done"})
		}
	}
	specs, err := a.Record.ListWhole(ctx, record.Specs, "open")
	if err != nil {
		return nil, err
	}
	// A spec with a run is not to be started again: its run goes on, or, all delivered, the spec closes.
	latest, err := a.latestRuns(ctx)
	if err != nil {
		return nil, err
	}
	next = append(next, runsUnderWay(latest, a.Root(), maxRecordNext-len(next))...)
	return append(next, buildableSpecs(intents, specs, latest, maxRecordNext-len(next))...), nil
}

// statusBatch is how many files status parses at once, on every processor, before it counts what
// it found.
const statusBatch = 256

// readyDrafts suggests planning the first drafts whose own checks pass, at most maxRecordNext, and
// counts the drafts.
func readyDrafts(intents []recorduc.Loaded) ([]NextAction, int) {
	next := []NextAction{}
	var drafts []recorduc.Loaded
	for _, l := range intents {
		if l.Summary.Lifecycle == "drafts" {
			drafts = append(drafts, l)
		}
	}
	for from := 0; from < len(drafts) && len(next) < maxRecordNext; from += statusBatch {
		part := drafts[from:min(from+statusBatch, len(drafts))]
		plan := make([]*NextAction, len(part))
		core.InParallel(len(part), func(i int) {
			if part[i].Err != nil {
				return
			}
			it, err := record.ParseIntent(part[i].File.Path, part[i].File.Data)
			if err == nil && ownChecksPass(it) {
				plan[i] = &NextAction{Next: hint.Say(hint.Do("intent_plan", hint.With("ref", it.Front.ID))),
					Why: fmt.Sprintf("the draft %q has its press release and criteria and no open question", it.Front.Title)}
			}
		})
		for _, p := range plan {
			if p != nil && len(next) < maxRecordNext {
				next = append(next, *p)
			}
		}
	}
	return next, len(drafts)
}

// runsUnderWay suggests going on with each unfinished run, newest first, at most room of them: a run
// waiting for a merge by hand names the merge and the step that goes on with it.
func runsUnderWay(latest map[string]loop.State, root string, room int) []NextAction {
	var next []NextAction
	underWay := slices.SortedFunc(maps.Values(latest), func(x, y loop.State) int { return strings.Compare(y.Run, x.Run) })
	for _, s := range underWay {
		if len(next) >= room || s.Finished() {
			continue
		}
		if merges := loop.MergesByHand(s, root); len(merges) > 0 {
			next = append(next, NextAction{Next: merges[0], Why: fmt.Sprintf("the %s run %s waits for a merge between its lanes to be made by hand", s.Kind, s.Run)})
			continue
		}
		if checks := loop.ChecksWaiting(s); len(checks) > 0 && len(s.OpenAwaits()) == 0 {
			next = append(next, NextAction{Next: checks[0], Why: fmt.Sprintf("the %s run %s waits for abcd to run its definition of done before its validators are opened", s.Kind, s.Run)})
			continue
		}
		open := len(s.OpenAwaits())
		next = append(next, NextAction{Next: hint.Say(hint.Do("implement_status", hint.With("run", s.Run))),
			Why: fmt.Sprintf("the %s run %s is under way, with %s open: its next lines say what to do", s.Kind, s.Run, text.Count(open, "await", "awaits"))})
	}
	return next
}

// buildableSpecs suggests, for each open spec whose intent passes the readiness gate, in order and
// at most room of them, starting its run, or closing it once its run delivered every step. Open specs
// are taken a batch at a time: the intents a batch turns on are checked once each, on every
// processor, then the batch's specs are suggested in order.
func buildableSpecs(intents, specs []recorduc.Loaded, latest map[string]loop.State, room int) []NextAction {
	var next []NextAction
	intentByID := map[string]recorduc.Loaded{}
	for _, l := range intents {
		if l.Err == nil {
			intentByID[l.Summary.ID] = l
		}
	}
	specsOf := map[string][]recorduc.Loaded{} // readable open specs by the intent their front matter names
	for _, l := range specs {
		if l.Err == nil {
			specsOf[l.Summary.Implements] = append(specsOf[l.Summary.Implements], l)
		}
	}
	checked := map[string]bool{} // intent id: passes the whole gate
	for from := 0; from < len(specs) && len(next) < room; from += statusBatch {
		part := specs[from:min(from+statusBatch, len(specs))]
		var todo []recorduc.Loaded
		for _, l := range part {
			il, ok := intentByID[l.Summary.Implements]
			if _, done := checked[il.Summary.ID]; l.Err == nil && ok && !done {
				checked[il.Summary.ID] = false
				todo = append(todo, il)
			}
		}
		ready := make([]bool, len(todo))
		core.InParallel(len(todo), func(i int) { ready[i] = buildable(todo[i], specsOf[todo[i].Summary.ID]) })
		for i, il := range todo {
			checked[il.Summary.ID] = ready[i]
		}
		for _, l := range part {
			il, ok := intentByID[l.Summary.Implements]
			if l.Err != nil || !ok || !checked[il.Summary.ID] || len(next) >= room {
				continue
			}
			if n, ok := specNext(l, latest); ok {
				next = append(next, n)
			}
		}
	}
	return next
}

// specNext is the step for a buildable open spec: start its run, or close it once its run delivered
// every step; none while its run is under way (that is said with the run).
func specNext(l recorduc.Loaded, latest map[string]loop.State) (NextAction, bool) {
	run, has := latest[l.Summary.ID]
	switch {
	case has && !run.Finished():
		return NextAction{}, false
	case has && delivered(run):
		branch := "abcd/" + run.Run + "/integration"
		if integ, ok := core.IntegrationOf(run); ok && integ.Branch != "" {
			branch = integ.Branch
		}
		return NextAction{Next: hint.Say(fmt.Sprintf("merge its integration, `git merge %s`, into the branch the spec closes on; then ", branch), hint.Do("spec_close", hint.With("ref", l.Summary.ID))),
			Why: fmt.Sprintf("its run %s delivered every step; spec close checks the integration is merged first", run.Run)}, true
	}
	return NextAction{Next: hint.Say(hint.Do("implement_start", hint.With("spec", l.Summary.ID))),
		Why: fmt.Sprintf("the spec %q has its steps and its intent passes the readiness gate", l.Summary.Title)}, true
}

// ownChecksPass reports whether an intent passes every check of the readiness gate but the linked
// spec, the checks that look at the intent alone.
func ownChecksPass(it record.Intent) bool {
	for _, c := range record.Readiness(it, nil) {
		if c.Name != "linked_spec" && !c.OK {
			return false
		}
	}
	return true
}

// buildable parses the listed intent and runs the whole readiness gate over it and the open specs
// implementing it; the specs are parsed only when the intent's own checks pass (a spec that does
// not parse counts as absent).
func buildable(il recorduc.Loaded, specs []recorduc.Loaded) bool {
	it, err := record.ParseIntent(il.File.Path, il.File.Data)
	if err != nil || !ownChecksPass(it) {
		return false
	}
	parsed := make([]record.Spec, 0, len(specs))
	for _, l := range specs {
		if sp, err := record.ParseSpec(l.File.Path, l.File.Data); err == nil {
			parsed = append(parsed, sp)
		}
	}
	for _, c := range record.Readiness(it, parsed) {
		if !c.OK {
			return false
		}
	}
	return true
}

// recordEmpty reports whether the record holds no intent (intents of them were listed) and no spec.
func (a *Deps) recordEmpty(ctx context.Context, intents int) (bool, error) {
	if intents > 0 {
		return false, nil
	}
	ls, err := a.Record.List(ctx, record.Specs, "")
	if err != nil {
		return false, err
	}
	return len(ls) == 0, nil
}

// latestRuns is the newest run of each spec, and every unfinished review or audit run (keyed by its
// id), among the newest runs.
func (a *Deps) latestRuns(ctx context.Context) (map[string]loop.State, error) {
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]loop.State{}
	for i := len(ids) - 1; i >= 0 && i >= len(ids)-core.MaxRunsLooked; i-- {
		s, err := a.LoadRun(ctx, ids[i])
		if err != nil {
			continue // implement status names a state it cannot read
		}
		key := s.Spec
		if s.Kind != loop.KindSpec {
			if s.Finished() {
				continue
			}
			key = s.Run
		}
		if _, seen := out[key]; !seen {
			out[key] = s
		}
	}
	return out, nil
}

// delivered reports whether a finished spec run delivered every lane.
func delivered(s loop.State) bool {
	for _, l := range s.Lanes {
		if l.Stage != loop.StageDone {
			return false
		}
	}
	return true
}
