package app

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// SpecNewInput names the intent a new spec implements.
type SpecNewInput struct {
	Intent string `json:"intent" jsonschema:"minLength=1,maxLength=200"`
	Title  string `json:"title" jsonschema:"minLength=1,maxLength=200"`
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

func specVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "spec_new", Path: []string{"spec", "new"}, Summary: "Create a spec for an intent from the template"},
			func(ctx context.Context, a *App, in *SpecNewInput) (RecordCreated, error) {
				title, err := checkTitle("abcd spec new", in.Title)
				if err != nil {
					return RecordCreated{}, err
				}
				return locked(ctx, a, "abcd spec new", func() (RecordCreated, error) {
					_, it, err := a.intent(ctx, "abcd spec new --intent", in.Intent)
					if err != nil {
						return RecordCreated{}, err
					}
					if it.Front.Lifecycle == "shipped" {
						return RecordCreated{}, refusal.New("intent_shipped", it.Front.ID, "is shipped, so nothing is left to specify",
							"capture what remains as a new intent: `abcd intent new \"...\"`")
					}
					s, err := a.createSpec(ctx, it.Front, title)
					if err != nil {
						return RecordCreated{}, err
					}
					return RecordCreated{Record: s, Next: fmt.Sprintf("fill the placeholders in %s, one numbered step per lane", s.Path)}, nil
				})
			}),
		declare(Verb{Name: "spec_list", Path: []string{"spec", "list"}, Summary: "List specs, optionally of one lifecycle", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, in *LifecycleInput) (RecordListResult, error) {
				return a.listVerb(ctx, record.Specs, "abcd spec list", in.Lifecycle)
			}),
		declare(Verb{Name: "spec_show", Path: []string{"spec", "show"}, Summary: "Show one spec with its steps parsed", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, in *RefInput) (SpecShowResult, error) {
				l, s, err := a.spec(ctx, "abcd spec show", in.Ref)
				if err != nil {
					return SpecShowResult{}, err
				}
				res := SpecShowResult{Spec: l.summary, Sections: sections(s.Sections), Steps: []StepView{}}
				for _, st := range s.Steps {
					res.Steps = append(res.Steps, StepView{N: st.N, Text: st.Text})
				}
				return res, nil
			}),
		declare(Verb{Name: "spec_close", Path: []string{"spec", "close"}, Summary: "Move an open spec to closed"},
			func(ctx context.Context, a *App, in *RefInput) (MoveResult, error) {
				return locked(ctx, a, "abcd spec close", func() (MoveResult, error) {
					l, _, err := a.spec(ctx, "abcd spec close", in.Ref)
					if err != nil {
						return MoveResult{}, err
					}
					return a.moveVerb(ctx, record.Specs, l, "closed")
				})
			}),
	}
}

func (a *App) createSpec(ctx context.Context, intent record.IntentFrontMatter, title string) (RecordSummary, error) {
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

// spec resolves and parses one spec whole.
func (a *App) spec(ctx context.Context, what, ref string) (loaded, record.Spec, error) {
	if err := a.initialized(what); err != nil {
		return loaded{}, record.Spec{}, err
	}
	l, err := a.resolve(ctx, record.Specs, what, ref)
	if err != nil {
		return loaded{}, record.Spec{}, err
	}
	data, err := a.readFull(ctx, l.file.Path)
	if err != nil {
		return loaded{}, record.Spec{}, err
	}
	s, err := record.ParseSpec(l.file.Path, data)
	if err != nil {
		return loaded{}, record.Spec{}, refusal.New("record_malformed", l.file.Path, err.Error(), "fix the file (abcd lint lists every problem)")
	}
	return l, s, nil
}
