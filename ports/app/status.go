package app

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports"
)

// StatusInput takes nothing: status is of the repository abcd stands in.
type StatusInput struct{}

// StatusResult is bare abcd: whether a record exists, what is configured, what to do next.
type StatusResult struct {
	Repository RepositoryStatus   `json:"repository"`
	Record     RecordStatus       `json:"record"`
	Config     []ConfigFileStatus `json:"config"`
	Oracle     OracleBoard        `json:"oracle"`
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
	Family    record.Family `json:"family" jsonschema:"enum=intents,enum=specs,enum=issues,enum=decisions"`
	Lifecycle string        `json:"lifecycle"`
	Path      string        `json:"path"`
	Count     int           `json:"count" jsonschema:"minimum=0"`
}

// ConfigFileStatus is one configuration file abcd reads.
type ConfigFileStatus struct {
	Layer   string `json:"layer" jsonschema:"enum=repository,enum=machine"`
	Kind    string `json:"kind" jsonschema:"enum=config,enum=routing"`
	Path    string `json:"path"`
	Present bool   `json:"present"`
}

// NextAction is a step that makes sense from here, with the reason.
type NextAction struct {
	Command string `json:"command" jsonschema:"minLength=1"`
	Why     string `json:"why" jsonschema:"minLength=1"`
}

func statusVerb() Verb {
	return declare(Verb{
		Name:       "status",
		Path:       []string{"status"},
		Summary:    "Show the repository's record, its configuration and what to do next",
		ReadOnly:   true,
		Idempotent: true,
	}, status)
}

// status is bare abcd: the facts, the oracle board and what to do next.
func status(ctx context.Context, a *App, _ *StatusInput) (StatusResult, error) {
	f, err := a.Inspector.Inspect(ctx)
	if err != nil {
		return StatusResult{}, err
	}
	st := statusOf(f)
	st.Oracle = a.oracleBoard(ctx)
	// A table not accepted is not a next step: ahoy install has run and made its offer; the board
	// says how to take it up later.
	if !st.Oracle.Readable {
		st.Next = append(st.Next, NextAction{Command: "abcd config show",
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

// statusOf interprets the facts; kept apart from I/O so every branch is a table test.
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
		Oracle: OracleBoard{Agents: []AgentRoute{}},
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
		res.Next = append(res.Next, NextAction{Command: "git init",
			Why: "abcd keeps its record and runs its build loop inside a git repository"})
	case !f.Initialized:
		res.Next = append(res.Next, NextAction{Command: "abcd ahoy install",
			Why: "this repository has no .abcd/ folder yet, where abcd keeps its record and configuration"})
	}
	return res
}

// maxRecordNext bounds how many record suggestions status makes.
const maxRecordNext = 5

// recordNext suggests the record's next steps: a draft intent whose own checks pass is ready to
// plan, and an open spec whose intent passes the readiness gate is ready to build.
func (a *App) recordNext(ctx context.Context) ([]NextAction, error) {
	drafts, err := a.list(ctx, record.Intents, "drafts")
	if err != nil {
		return nil, err
	}
	next := []NextAction{}
	for _, l := range drafts {
		if len(next) == maxRecordNext {
			break
		}
		if l.err != nil {
			continue
		}
		data, err := a.readFull(ctx, l.file.Path)
		if err != nil {
			continue
		}
		it, err := record.ParseIntent(l.file.Path, data)
		if err != nil {
			continue
		}
		ready := true
		for _, c := range record.Readiness(it, nil) {
			if c.Name != "linked_spec" {
				ready = ready && c.OK
			}
		}
		if ready {
			next = append(next, NextAction{Command: "abcd intent plan " + it.Front.ID,
				Why: fmt.Sprintf("the draft %q has its press release and criteria and no open question", it.Front.Title)})
		}
	}
	if len(drafts) == 0 && len(next) == 0 {
		if empty, err := a.recordEmpty(ctx); err != nil {
			return nil, err
		} else if empty {
			next = append(next, NextAction{Command: `abcd intent new "<title>"`,
				Why: "the record is empty: an intent says what should exist, for whom, and how you will know it is done"})
		}
	}
	// Each family is listed once and each file parsed at most once, so status stays linear in the
	// size of the record.
	specs, err := a.list(ctx, record.Specs, "open")
	if err != nil {
		return nil, err
	}
	intents, err := a.list(ctx, record.Intents, "")
	if err != nil {
		return nil, err
	}
	intentByID := map[string]loaded{}
	for _, l := range intents {
		if l.err == nil {
			intentByID[l.summary.ID] = l
		}
	}
	parsedSpecs := map[string][]record.Spec{} // open specs by the intent they implement
	for _, l := range specs {
		if l.err != nil {
			continue
		}
		if data, err := a.readFull(ctx, l.file.Path); err == nil {
			if sp, err := record.ParseSpec(l.file.Path, data); err == nil {
				parsedSpecs[sp.Front.Implements] = append(parsedSpecs[sp.Front.Implements], sp)
			}
		}
	}
	checked := map[string]bool{}
	for _, l := range specs {
		if len(next) == maxRecordNext {
			break
		}
		il, ok := intentByID[l.summary.Implements]
		if l.err != nil || !ok {
			continue
		}
		ready, seen := checked[il.summary.ID]
		if !seen {
			data, err := a.readFull(ctx, il.file.Path)
			if err != nil {
				continue
			}
			it, err := record.ParseIntent(il.file.Path, data)
			if err != nil {
				continue
			}
			ready = true
			for _, c := range record.Readiness(it, parsedSpecs[it.Front.ID]) {
				ready = ready && c.OK
			}
			checked[il.summary.ID] = ready
		}
		if ready {
			next = append(next, NextAction{Command: "abcd implement start " + l.summary.ID,
				Why: fmt.Sprintf("the spec %q has its steps and its intent passes the readiness gate", l.summary.Title)})
		}
	}
	return next, nil
}

// recordEmpty reports whether the record holds no intent and no spec yet.
func (a *App) recordEmpty(ctx context.Context) (bool, error) {
	for _, fam := range []record.Family{record.Intents, record.Specs} {
		ls, err := a.list(ctx, fam, "")
		if err != nil {
			return false, err
		}
		if len(ls) > 0 {
			return false, nil
		}
	}
	return true, nil
}
