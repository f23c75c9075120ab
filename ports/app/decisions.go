package app

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// DecisionNewInput records a ruling, optionally superseding earlier ones.
type DecisionNewInput struct {
	Title      string   `json:"title" jsonschema:"minLength=1,maxLength=200"`
	Supersedes []string `json:"supersedes,omitempty" jsonschema:"maxItems=16"`
}

// EmptyInput takes nothing.
type EmptyInput struct{}

func decisionVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "decision_new", Path: []string{"decision", "new"}, Summary: "Record a decision from the template, optionally superseding others"},
			func(ctx context.Context, a *App, in *DecisionNewInput) (RecordCreated, error) {
				title, err := checkTitle("abcd decision new", in.Title)
				if err != nil {
					return RecordCreated{}, err
				}
				return locked(ctx, a, "abcd decision new", func() (RecordCreated, error) {
					var supersedes []string
					for _, ref := range in.Supersedes {
						l, err := a.resolve(ctx, record.Decisions, "abcd decision new --supersedes", ref)
						if err != nil {
							return RecordCreated{}, err
						}
						if !contains(supersedes, l.summary.ID) {
							supersedes = append(supersedes, l.summary.ID)
						}
					}
					var created record.Decision
					_, p, err := a.newRecord(ctx, record.Decisions, "", func(id string) (string, []byte) {
						created = record.NewDecision(id, title, nonNil(supersedes), a.Clock.Now())
						return record.Slug(title), record.RenderDecision(created)
					})
					if err != nil {
						return RecordCreated{}, err
					}
					s := RecordSummary{Family: string(record.Decisions), Path: p}
					fillSummary(&s, created.Front)
					return RecordCreated{Record: s, Next: fmt.Sprintf("write the ruling and its reasons in %s", p)}, nil
				})
			}),
		declare(Verb{Name: "decision_list", Path: []string{"decision", "list"}, Summary: "List decisions", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, _ *EmptyInput) (RecordListResult, error) {
				return a.listVerb(ctx, record.Decisions, "abcd decision list", "")
			}),
		declare(Verb{Name: "decision_show", Path: []string{"decision", "show"}, Summary: "Show one decision", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, in *RefInput) (RecordShowResult, error) {
				if err := a.initialized("abcd decision show"); err != nil {
					return RecordShowResult{}, err
				}
				l, err := a.resolve(ctx, record.Decisions, "abcd decision show", in.Ref)
				if err != nil {
					return RecordShowResult{}, err
				}
				data, err := a.readFull(ctx, l.file.Path)
				if err != nil {
					return RecordShowResult{}, err
				}
				d, err := record.ParseDecision(l.file.Path, data)
				if err != nil {
					return RecordShowResult{}, refusal.New("record_malformed", l.file.Path, err.Error(), "fix the file (abcd lint lists every problem)")
				}
				return RecordShowResult{Record: l.summary, Related: nonNil(d.Front.Supersedes), Sections: sections(d.Sections)}, nil
			}),
	}
}
