package record

import (
	"context"
	"fmt"
	"slices"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// SpecNewInput names the intent a new spec implements.
type SpecNewInput struct {
	Intent record.Ref   `json:"intent"`
	Title  record.Title `json:"title"`
}

// StepView is one step of a spec: each becomes a lane of the build loop.
type StepView struct {
	N    int    `json:"n" jsonschema:"minimum=1"`
	Text string `json:"text"`
}

// SpecShowResult is one spec whole, with its steps parsed.
type SpecShowResult struct {
	Spec     RecordSummary `json:"spec"`
	Sections []SectionView `json:"sections"`
	Steps    []StepView    `json:"steps"`
}

func SpecVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "spec_new", Path: []string{"spec", "new"}, Example: "abcd spec new --intent cold-start \"Cache the schema index\"", Summary: "Create a spec for an intent from the template"}, specNew),
		verb.Declare(verb.Verb{Name: "spec_list", Path: []string{"spec", "list"}, Example: "abcd spec list\nabcd spec list --lifecycle open --json", Summary: "List specs, optionally of one lifecycle", ReadOnly: true, Idempotent: true}, specList),
		verb.Declare(verb.Verb{Name: "spec_show", Path: []string{"spec", "show"}, Example: "abcd spec show cache-the-schema", Summary: "Show one spec with its steps parsed", ReadOnly: true, Idempotent: true}, specShow),
		verb.Declare(verb.Verb{Name: "spec_close", Path: []string{"spec", "close"}, Example: "abcd spec close cache-the-schema\nabcd spec close cache-the-schema --merged", Summary: "Move an open spec to closed"}, specClose),
	}
}

func specNew(ctx context.Context, a *Deps, in *SpecNewInput) (RecordCreated, error) {
	return Locked(ctx, a, "spec_new", func(ctx context.Context, _ *RecordLock) (RecordCreated, error) {
		_, it, err := a.Intent(ctx, "spec_new", "intent", in.Intent)
		if err != nil {
			return RecordCreated{}, err
		}
		if it.Front.Lifecycle == "shipped" {
			return RecordCreated{}, refusal.New(refusal.CodeIntentShipped, it.Front.ID, "is shipped, so nothing is left to specify",
				"capture what remains as a new intent: ", refusal.Run("intent_new", refusal.Hole("title", "title")))
		}
		// Two open specs of one intent under one title are what two plans of it leave (lint names them
		// planned_twice), so one is never made on purpose.
		specs, _, err := a.specsOf(ctx, it.Front.ID)
		if err != nil {
			return RecordCreated{}, err
		}
		for _, sp := range specs {
			if sp.Lifecycle == "open" && sp.Title == string(in.Title) {
				return RecordCreated{}, refusal.New(refusal.CodeSpecTitleTaken, sp.ID, fmt.Sprintf("is an open spec of %s with the title %q already", it.Front.ID, text.Clip(sp.Title)),
					"give the new spec its own title, or write in ", refusal.Run("spec_show", refusal.With("ref", sp.ID)), "'s spec")
			}
		}
		s, err := a.createSpec(ctx, it.Front, string(in.Title))
		if err != nil {
			return RecordCreated{}, err
		}
		return RecordCreated{Record: s, Next: hint.Say("fill the placeholders in ", hint.At(s.Path, ""), ", one numbered step per lane")}, nil
	})
}

func specList(ctx context.Context, a *Deps, in *LifecycleInput) (RecordListResult, error) {
	return a.listVerb(ctx, record.Specs, "spec_list", in.Lifecycle)
}

func specShow(ctx context.Context, a *Deps, in *RefInput) (SpecShowResult, error) {
	l, s, err := a.Spec(ctx, "spec_show", "ref", in.Ref)
	if err != nil {
		return SpecShowResult{}, err
	}
	res := SpecShowResult{Spec: l.Summary, Sections: sections(s.Sections), Steps: []StepView{}}
	for _, st := range s.Steps {
		res.Steps = append(res.Steps, StepView{N: st.N, Text: st.Text})
	}
	return res, nil
}

func specClose(ctx context.Context, a *Deps, in *CloseInput) (MoveResult, error) {
	return Locked(ctx, a, "spec_close", func(ctx context.Context, rec *RecordLock) (MoveResult, error) {
		l, _, err := a.Spec(ctx, "spec_close", "ref", in.Ref)
		if err != nil {
			return MoveResult{}, err
		}
		if !in.Merged && l.Summary.Lifecycle == "open" {
			if err := a.integrationMerged(ctx, "spec_close", l.Summary.ID, []string{l.Summary.ID}); err != nil {
				return MoveResult{}, err
			}
		}
		return a.moveVerb(ctx, rec, record.Specs, l, "closed", nil)
	})
}

func (a *Deps) createSpec(ctx context.Context, intent record.IntentFrontMatter, title string) (RecordSummary, error) {
	var created record.Spec
	_, p, err := a.newRecord(ctx, record.Specs, "open", func(id string) (string, []byte) {
		created = record.NewSpec(id, title, intent, a.Clock.Now())
		return record.Slug(title), record.RenderSpec(created)
	})
	if err != nil {
		return RecordSummary{}, err
	}
	s := RecordSummary{Family: string(record.Specs), Lifecycle: "open", Path: p}
	fillSummary(&s, created.Front)
	return s, nil
}

// Spec resolves and parses one spec whole; a refusal names the verb's field the ref came from.
func (a *Deps) Spec(ctx context.Context, verb, field string, ref record.Ref) (Loaded, record.Spec, error) {
	if err := a.RecordPresent(verb); err != nil { // a read: the writer that follows checks the install whole
		return Loaded{}, record.Spec{}, err
	}
	l, err := a.Resolve(ctx, record.Specs, verb, field, ref)
	if err != nil {
		return Loaded{}, record.Spec{}, err
	}
	data, err := a.ReadFull(ctx, l.File.Path)
	if err != nil {
		return Loaded{}, record.Spec{}, err
	}
	s, err := record.ParseSpec(l.File.Path, data)
	if err != nil {
		return Loaded{}, record.Spec{}, core.RecordMalformed(l.File.Path, err.Error())
	}
	return l, s, nil
}

// integrationMerged refuses closing a spec, or shipping its intent, on a branch that does not hold
// what the spec's last run delivered: the newest finished run of each spec whose integration passed
// has its integration's head in the checked-out branch's history, so the record never says closed
// or shipped while the code is not there. A spec no run delivered is not checked.
func (a *Deps) integrationMerged(ctx context.Context, verb, ref string, specs []string) error {
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var head, branch string
	for i := len(ids) - 1; i >= 0 && i >= len(ids)-core.MaxRunsLooked && len(seen) < len(specs); i-- {
		s, err := a.LoadRun(ctx, ids[i])
		if err != nil || s.Kind != loop.KindSpec || !slices.Contains(specs, s.Spec) || seen[s.Spec] || !s.Finished() {
			continue
		}
		seen[s.Spec] = true
		integ, ok := core.IntegrationOf(s)
		if !ok || integ.Stage != loop.StageDone || integ.Head == "" {
			continue
		}
		if head == "" {
			if head, err = a.Git.Resolve(ctx, "HEAD"); err != nil {
				return err
			}
			if branch, err = a.Git.CurrentBranch(ctx); err != nil {
				return err
			}
			if branch == "" {
				branch = "HEAD (detached)"
			}
		}
		merged, err := a.Git.IsAncestor(ctx, integ.Head, head)
		if err != nil {
			return err
		}
		if !merged {
			return refusal.New(refusal.CodeIntegrationUnmerged, ref,
				fmt.Sprintf("run %s delivered spec %s on %s (%s), which is not merged into %s: the record would say so while the code is not there", s.Run, s.Spec, integ.Branch, loop.Short(integ.Head), branch),
				"merge it first: `git merge "+integ.Branch+"` on "+branch+", then ", refusal.Run(verb, refusal.With("ref", ref)),
				"; if it reached this branch another way (a squash or a rebase), ", refusal.Run(verb, refusal.With("ref", ref), refusal.With("merged", true))).On(verb, "ref")
		}
	}
	return nil
}
