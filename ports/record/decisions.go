package record

import (
	"context"
	"slices"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// DecisionNewInput records a ruling, optionally superseding earlier ones.
type DecisionNewInput struct {
	Title      record.Title `json:"title"`
	Supersedes []record.Ref `json:"supersedes,omitempty" jsonschema:"maxItems=16"`
}

// EmptyInput takes nothing.
type EmptyInput struct{}

func DecisionVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "decision_new", Path: []string{"decision", "new"}, Example: "abcd decision new \"Store history in SQLite\"\nabcd decision new \"Keep history as files\" --supersedes dcn-2607011230051234", Summary: "Record a decision from the template, optionally superseding others"}, decisionNew),
		verb.Declare(verb.Verb{Name: "decision_list", Path: []string{"decision", "list"}, Example: "abcd decision list", Summary: "List decisions", ReadOnly: true, Idempotent: true}, decisionList),
		verb.Declare(verb.Verb{Name: "decision_show", Path: []string{"decision", "show"}, Example: "abcd decision show store-history", Summary: "Show one decision", ReadOnly: true, Idempotent: true}, decisionShow),
	}
}

func decisionNew(ctx context.Context, a *Deps, in *DecisionNewInput) (RecordCreated, error) {
	return Locked(ctx, a, "decision_new", func(ctx context.Context, _ *RecordLock) (RecordCreated, error) {
		var supersedes []string
		for _, ref := range in.Supersedes {
			l, err := a.Resolve(ctx, record.Decisions, "decision_new", "supersedes", ref)
			if err != nil {
				return RecordCreated{}, err
			}
			if !slices.Contains(supersedes, l.Summary.ID) {
				supersedes = append(supersedes, l.Summary.ID)
			}
		}
		var created record.Decision
		_, p, err := a.newRecord(ctx, record.Decisions, "", func(id string) (string, []byte) {
			created = record.NewDecision(id, string(in.Title), core.NonNil(supersedes), a.Clock.Now())
			return record.Slug(string(in.Title)), record.RenderDecision(created)
		})
		if err != nil {
			return RecordCreated{}, err
		}
		s := RecordSummary{Family: string(record.Decisions), Path: p}
		fillSummary(&s, created.Front)
		return RecordCreated{Record: s, Next: hint.Say("write the ruling and its reasons in ", hint.At(p, ""))}, nil
	})
}

func decisionList(ctx context.Context, a *Deps, _ *EmptyInput) (RecordListResult, error) {
	return a.listVerb(ctx, record.Decisions, "decision_list", "")
}

func decisionShow(ctx context.Context, a *Deps, in *RefInput) (RecordShowResult, error) {
	if err := a.RecordPresent("decision_show"); err != nil {
		return RecordShowResult{}, err
	}
	l, err := a.Resolve(ctx, record.Decisions, "decision_show", "ref", in.Ref)
	if err != nil {
		return RecordShowResult{}, err
	}
	data, err := a.ReadFull(ctx, l.File.Path)
	if err != nil {
		return RecordShowResult{}, err
	}
	d, err := record.ParseDecision(l.File.Path, data)
	if err != nil {
		return RecordShowResult{}, core.RecordMalformed(l.File.Path, err.Error())
	}
	return RecordShowResult{Record: l.Summary, Related: core.NonNil(d.Front.Supersedes), Sections: sections(d.Sections)}, nil
}
