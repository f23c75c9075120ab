package record

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// RefInput names one record by full id, unique id prefix or unique slug fragment.
type RefInput struct {
	Ref record.Ref `json:"ref"`
}

// CloseInput names a spec to close or an intent to ship. Merged says its runs' integration reached
// the checked-out branch another way (a squash or a rebase), where git's history cannot show it.
type CloseInput struct {
	Ref    record.Ref `json:"ref"`
	Merged bool       `json:"merged,omitempty"`
}

// TitleInput is a new record's title.
type TitleInput struct {
	Title record.Title `json:"title"`
}

// LifecycleInput optionally narrows a listing to one lifecycle folder.
type LifecycleInput struct {
	Lifecycle record.Lifecycle `json:"lifecycle,omitempty"`
}

// RecordListResult is a listing: the records that parsed, and the files that did not, beside them.
type RecordListResult struct {
	Records  []RecordSummary `json:"records"`
	Problems []RecordProblem `json:"problems"`
}

// RecordCreated is a record a verb created.
type RecordCreated struct {
	Record RecordSummary `json:"record"`
	// Next says what to fill in before the record is useful.
	Next hint.Next `json:"next"`
}

// CriterionView is one acceptance criterion.
type CriterionView struct {
	ID   string `json:"id" jsonschema:"pattern=^ac-[0-9]+$"`
	Text string `json:"text"`
}

// QuestionView is one open question.
type QuestionView struct {
	Text     string `json:"text"`
	Resolved bool   `json:"resolved"`
}

// IntentShowResult is one intent whole, with the specs that implement it.
type IntentShowResult struct {
	Intent    RecordSummary   `json:"intent"`
	Kind      string          `json:"kind"`
	Sections  []SectionView   `json:"sections"`
	Criteria  []CriterionView `json:"criteria"`
	Questions []QuestionView  `json:"questions"`
	Specs     []RecordSummary `json:"specs"`
}

// IntentReadyResult is the readiness gate: each named check with ok, detail and remedy.
type IntentReadyResult struct {
	Intent RecordSummary  `json:"intent"`
	Ready  bool           `json:"ready"`
	Checks []record.Check `json:"checks"`
}

// MoveResult is a record moved between lifecycle folders (and, where git tracked it, the move
// staged in git's index as a rename).
type MoveResult struct {
	Record RecordSummary `json:"record"`
	From   string        `json:"from"`
	To     string        `json:"to"`
}

// IntentPlanResult is an intent planned, with the spec created for it.
type IntentPlanResult struct {
	Intent RecordSummary `json:"intent"`
	Spec   RecordSummary `json:"spec"`
	From   string        `json:"from"`
	To     string        `json:"to"`
	// Next says what to write in the new spec before a run can start.
	Next hint.Next `json:"next"`
}

func IntentVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "intent_new", Path: []string{"intent", "new"}, Example: "abcd intent new \"Faster cold start\"", Summary: "Draft a new intent from the template"}, intentNew),
		verb.Declare(verb.Verb{Name: "intent_list", Path: []string{"intent", "list"}, Example: "abcd intent list\nabcd intent list --lifecycle draft", Summary: "List intents, optionally of one lifecycle", ReadOnly: true, Idempotent: true}, intentList),
		verb.Declare(verb.Verb{Name: "intent_show", Path: []string{"intent", "show"}, Example: "abcd intent show cold-start", Summary: "Show one intent with its criteria, questions and specs", ReadOnly: true, Idempotent: true}, intentShow),
		verb.Declare(verb.Verb{Name: "intent_ready", Path: []string{"intent", "ready"}, Example: "abcd intent ready cold-start", Summary: "Run the readiness gate on one intent: each check with ok, detail and remedy", ReadOnly: true, Idempotent: true}, intentReady),
		verb.Declare(verb.Verb{Name: "intent_plan", Path: []string{"intent", "plan"}, Example: "abcd intent plan cold-start", Summary: "Move a draft intent to planned and create its spec from the template"}, intentPlan),
		verb.Declare(verb.Verb{Name: "intent_ship", Path: []string{"intent", "ship"}, Example: "abcd intent ship cold-start\nabcd intent ship cold-start --merged", Summary: "Move a planned intent to shipped once none of its specs is open"}, intentShip),
	}
}

func intentNew(ctx context.Context, a *Deps, in *TitleInput) (RecordCreated, error) {
	return Locked(ctx, a, "intent_new", func(ctx context.Context, _ *RecordLock) (RecordCreated, error) {
		var created record.Intent
		_, p, err := a.newRecord(ctx, record.Intents, "drafts", func(id string) (string, []byte) {
			created = record.NewIntent(id, string(in.Title), a.Clock.Now())
			return record.Slug(string(in.Title)), record.RenderIntent(created)
		})
		if err != nil {
			return RecordCreated{}, err
		}
		s := RecordSummary{Family: string(record.Intents), Lifecycle: "drafts", Path: p}
		fillSummary(&s, created.Front)
		return RecordCreated{Record: s, Next: hint.Say("fill the placeholders in ", hint.At(p, ""), ", then check it: ", hint.Do("intent_ready", hint.With("ref", created.Front.ID)))}, nil
	})
}

func intentList(ctx context.Context, a *Deps, in *LifecycleInput) (RecordListResult, error) {
	return a.listVerb(ctx, record.Intents, "intent_list", in.Lifecycle)
}

func intentShow(ctx context.Context, a *Deps, in *RefInput) (IntentShowResult, error) {
	l, it, err := a.Intent(ctx, "intent_show", "ref", in.Ref)
	if err != nil {
		return IntentShowResult{}, err
	}
	specs, _, err := a.specsOf(ctx, it.Front.ID)
	if err != nil {
		return IntentShowResult{}, err
	}
	res := IntentShowResult{Intent: l.Summary, Kind: it.Front.Kind, Sections: sections(it.Sections),
		Criteria: []CriterionView{}, Questions: []QuestionView{}, Specs: specs}
	for _, c := range it.Criteria {
		res.Criteria = append(res.Criteria, CriterionView{ID: c.ID, Text: c.Text})
	}
	for _, q := range it.Questions {
		res.Questions = append(res.Questions, QuestionView{Text: q.Text, Resolved: q.Resolved})
	}
	return res, nil
}

func intentReady(ctx context.Context, a *Deps, in *RefInput) (IntentReadyResult, error) {
	l, it, err := a.Intent(ctx, "intent_ready", "ref", in.Ref)
	if err != nil {
		return IntentReadyResult{}, err
	}
	return a.Readiness(ctx, l, it)
}

func intentPlan(ctx context.Context, a *Deps, in *RefInput) (IntentPlanResult, error) {
	return Locked(ctx, a, "intent_plan", func(ctx context.Context, rec *RecordLock) (IntentPlanResult, error) {
		l, it, err := a.Intent(ctx, "intent_plan", "ref", in.Ref)
		if err != nil {
			return IntentPlanResult{}, err
		}
		dodSet, err := a.dodSet(ctx)
		if err != nil {
			return IntentPlanResult{}, err
		}
		if c, ok := rec.finishedFor(l.Summary.ID); ok && l.Summary.Lifecycle == "planned" {
			return a.planDone(ctx, l, c, dodSet)
		}
		// The intent's move and its new spec are one change: a kill leaves both or neither.
		dst, data, err := a.moved(ctx, record.Intents, l, "planned", nil)
		if err != nil {
			return IntentPlanResult{}, err
		}
		front := it.Front
		front.Lifecycle = "planned"
		var spec record.Spec
		_, specPath, specData, err := a.freshRecord(ctx, record.Specs, "open", func(id string) (string, []byte) {
			spec = record.NewSpec(id, it.Front.Title, front, a.Clock.Now())
			return record.Slug(it.Front.Title), record.RenderSpec(spec)
		})
		if err != nil {
			return IntentPlanResult{}, err
		}
		moves := []ports.Move{{From: l.File.Path, To: dst}}
		if err := a.CommitMoves(ctx, rec, l.Summary.ID, moves, Write(dst, data), remove(l.File.Path), Write(specPath, specData)); err != nil {
			return IntentPlanResult{}, err
		}
		moved := l.Summary
		moved.Lifecycle, moved.Path = "planned", dst
		created := RecordSummary{Family: string(record.Specs), Lifecycle: "open", Path: specPath}
		fillSummary(&created, spec.Front)
		return planned(moved, created, l.File.Path, dodSet), nil
	})
}

// planDone is intent plan's result for a plan a killed run of it left and taking the lock finished
// (its move staged with it).
func (a *Deps) planDone(ctx context.Context, l Loaded, c ports.Change, dodSet bool) (IntentPlanResult, error) {
	var from string
	var spec RecordSummary
	specs, err := a.List(ctx, record.Specs, "")
	if err != nil {
		return IntentPlanResult{}, err
	}
	for _, f := range c.Files {
		if f.Remove {
			from = f.Path
		}
		for _, s := range specs {
			if s.File.Path == f.Path {
				spec = s.Summary
			}
		}
	}
	if spec.Path == "" {
		return IntentPlanResult{}, fmt.Errorf("the plan a killed intent plan left named no spec")
	}
	return planned(l.Summary, spec, from, dodSet), nil
}

// planned is intent plan's result: the intent moved from from, and the spec made for it. Its next
// step names what implement start needs beyond the steps: the record committed (the lanes read it
// at their base) and, while none is set, a definition of done.
func planned(intent, spec RecordSummary, from string, dodSet bool) IntentPlanResult {
	dod := ""
	if !dodSet {
		dod = `, set the definition of done ("build": {"dod": "<your test command>"} in ` + core.RepoConfigRel + `)`
	}
	return IntentPlanResult{Intent: intent, Spec: spec, From: from, To: intent.Path,
		Next: hint.Say("write the spec's ## Steps in ", hint.At(spec.Path, record.SectionSteps), " as a numbered list, one lane each (write 3. (after 1, 2) ... for a step that builds on others)"+dod+
			", commit the record (git add .abcd && git commit; the run's lanes read it at the commit they branch from), then start its run: ",
			hint.Do("implement_start", hint.With("spec", spec.ID)))}
}

// dodSet says a configuration layer sets build.dod; a configuration abcd cannot read refuses.
func (a *Deps) dodSet(ctx context.Context) (bool, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return false, err
	}
	dod, err := config.Get[string](stack, "build.dod")
	if err != nil {
		return false, core.ConfigRefusal(err)
	}
	return dod.V != "", nil
}

func intentShip(ctx context.Context, a *Deps, in *CloseInput) (MoveResult, error) {
	return Locked(ctx, a, "intent_ship", func(ctx context.Context, rec *RecordLock) (MoveResult, error) {
		l, it, err := a.Intent(ctx, "intent_ship", "ref", in.Ref)
		if err != nil {
			return MoveResult{}, err
		}
		specs, _, err := a.specsOf(ctx, it.Front.ID)
		if err != nil {
			return MoveResult{}, err
		}
		for _, s := range specs {
			if s.Lifecycle == "open" {
				return MoveResult{}, refusal.New(refusal.CodeSpecOpen, l.Summary.ID, fmt.Sprintf("its spec %s is still open", s.ID),
					"close it first: ", refusal.Run("spec_close", refusal.With("ref", s.ID)))
			}
		}
		if !in.Merged {
			var ids []string
			for _, s := range specs {
				ids = append(ids, s.ID)
			}
			if err := a.integrationMerged(ctx, "intent_ship", l.Summary.ID, ids); err != nil {
				return MoveResult{}, err
			}
		}
		return a.moveVerb(ctx, rec, record.Intents, l, "shipped", nil)
	})
}

func (a *Deps) listVerb(ctx context.Context, fam record.Family, verb string, lifecycle record.Lifecycle) (RecordListResult, error) {
	if err := lifecycleOf(fam, verb, lifecycle); err != nil {
		return RecordListResult{}, err
	}
	if root, git := a.RepoRoot(); !git {
		return RecordListResult{}, core.NotARepository(verb, root)
	}
	ls, err := a.List(ctx, fam, string(lifecycle))
	if err != nil {
		return RecordListResult{}, err
	}
	recs, probs := summaries(ls)
	return RecordListResult{Records: recs, Problems: probs}, nil
}

// moveVerb is a verb that moves a record to another lifecycle, editing it on the way (edit may be
// nil). Run again after a kill that left its move for the lock to finish, it reports that move.
func (a *Deps) moveVerb(ctx context.Context, rec *RecordLock, fam record.Family, l Loaded, to string, edit func([]byte) ([]byte, error)) (MoveResult, error) {
	if from, ok := rec.movedBefore(l); ok && l.Summary.Lifecycle == to {
		return MoveResult{Record: l.Summary, From: from, To: l.File.Path}, nil // staged as it was finished
	}
	dst, err := a.move(ctx, rec, fam, l, to, edit)
	if err != nil {
		return MoveResult{}, err
	}
	moved := l.Summary
	moved.Lifecycle, moved.Path = to, dst
	return MoveResult{Record: moved, From: l.File.Path, To: dst}, nil
}

// Intent resolves and parses one intent whole; a refusal names the verb's field the ref came from.
func (a *Deps) Intent(ctx context.Context, verb, field string, ref record.Ref) (Loaded, record.Intent, error) {
	if err := a.RecordPresent(verb); err != nil { // a read: the writer that follows checks the install whole
		return Loaded{}, record.Intent{}, err
	}
	l, err := a.Resolve(ctx, record.Intents, verb, field, ref)
	if err != nil {
		return Loaded{}, record.Intent{}, err
	}
	data, err := a.ReadFull(ctx, l.File.Path)
	if err != nil {
		return Loaded{}, record.Intent{}, err
	}
	it, err := record.ParseIntent(l.File.Path, data)
	if err != nil {
		return Loaded{}, record.Intent{}, core.RecordMalformed(l.File.Path, err.Error())
	}
	return l, it, nil
}

// specsOf lists the specs implementing an intent, and parses them whole.
func (a *Deps) specsOf(ctx context.Context, intentID string) ([]RecordSummary, []record.Spec, error) {
	ls, err := a.List(ctx, record.Specs, "")
	if err != nil {
		return nil, nil, err
	}
	sums, parsed := []RecordSummary{}, []record.Spec{}
	for _, l := range ls {
		if l.Err != nil || l.Summary.Implements != intentID {
			continue
		}
		sums = append(sums, l.Summary)
		data, err := a.ReadFull(ctx, l.File.Path)
		if err != nil {
			continue
		}
		if s, err := record.ParseSpec(l.File.Path, data); err == nil {
			if l.Summary.Lifecycle == "open" {
				parsed = append(parsed, s)
			}
		}
	}
	return sums, parsed, nil
}

func (a *Deps) Readiness(ctx context.Context, l Loaded, it record.Intent) (IntentReadyResult, error) {
	_, specs, err := a.specsOf(ctx, it.Front.ID)
	if err != nil {
		return IntentReadyResult{}, err
	}
	checks := record.Readiness(it, specs)
	ready := true
	for _, c := range checks {
		ready = ready && c.OK
	}
	return IntentReadyResult{Intent: l.Summary, Ready: ready, Checks: checks}, nil
}
