package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
)

// ReviewInput asks for a review of the current branch's changes from base.
type ReviewInput struct {
	Role   string   `json:"role,omitempty" jsonschema:"enum=ruthless-reviewer,enum=security-reviewer"`
	Base   string   `json:"base,omitempty" jsonschema:"maxLength=255"`
	Routes []string `json:"routes,omitempty" jsonschema:"maxItems=8"`
}

// IntentAuditInput asks the intent-auditor to audit delivered changes against an intent.
type IntentAuditInput struct {
	Intent string   `json:"intent" jsonschema:"minLength=1,maxLength=200"`
	Base   string   `json:"base,omitempty" jsonschema:"maxLength=255"`
	Routes []string `json:"routes,omitempty" jsonschema:"maxItems=8"`
}

// RecordVerdictView is one verdict in a run's story.
type RecordVerdictView struct {
	Lane     string `json:"lane"`
	Round    int    `json:"round" jsonschema:"minimum=0"`
	Role     string `json:"role"`
	Word     string `json:"word"`
	Pass     bool   `json:"pass"`
	Tier     string `json:"tier"`
	Route    string `json:"route"`
	Ran      string `json:"ran"`
	Return   string `json:"return"`
	SHA256   string `json:"sha256"`
	Findings string `json:"findings"`
	// Receipt is the route block: what was asked, tried and used, and why they differ.
	Receipt oracle.Receipt `json:"receipt"`
}

// FallbackView is a fallback receipt.
type FallbackView struct {
	At     string `json:"at"`
	Lane   string `json:"lane"`
	Round  int    `json:"round" jsonschema:"minimum=0"`
	Role   string `json:"role"`
	Asked  string `json:"asked"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Ran    string `json:"ran"`
}

// ImplementRecordResult is a run's whole story.
type ImplementRecordResult struct {
	Run             RunView              `json:"run"`
	Implementations []ImplementationView `json:"implementations"`
	Verdicts        []RecordVerdictView  `json:"verdicts"`
	Fallbacks       []FallbackView       `json:"fallbacks"`
	ByRoute         []Count              `json:"by_route"`
	ByRole          []Count              `json:"by_role"`
}

// ImplementationView is an implementer's recorded receipt.
type ImplementationView struct {
	Lane    string   `json:"lane"`
	Round   int      `json:"round" jsonschema:"minimum=0"`
	Commits []string `json:"commits"`
	Head    string   `json:"head"`
	Model   string   `json:"model"`
}

// Count is how many verdicts a route or a role gave.
type Count struct {
	Name   string `json:"name"`
	Total  int    `json:"total" jsonschema:"minimum=0"`
	Passed int    `json:"passed" jsonschema:"minimum=0"`
	Failed int    `json:"failed" jsonschema:"minimum=0"`
}

func reviewVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "review", Path: []string{"review"},
			Summary:    "Review the current branch's changes now: fresh ruthless and security reviewers through the validator routing",
			Dispatches: []string{loop.RoleRuthless, loop.RoleSecurity}},
			func(ctx context.Context, a *App, in *ReviewInput) (StepResult, error) {
				if _, err := a.Routes("review", in.Routes); err != nil {
					return StepResult{}, err
				}
				validators := []string{loop.RoleRuthless, loop.RoleSecurity}
				if in.Role != "" {
					if in.Role != loop.RoleRuthless && in.Role != loop.RoleSecurity {
						return StepResult{}, refusal.New("role_unknown", "abcd review --role", fmt.Sprintf("%q is not a reviewer", clip(in.Role)),
							"use ruthless-reviewer or security-reviewer, or leave --role out for both")
					}
					validators = []string{in.Role}
				}
				return a.oneLaneRun(ctx, loop.KindReview, "abcd review", in.Base, "", validators, in.Routes)
			}),
		declare(Verb{Name: "intent_audit", Path: []string{"intent", "audit"},
			Summary:    "Hand the intent-auditor an intent and the delivered changes; its per-criterion verdict goes into the intent's Audit Notes",
			Dispatches: []string{loop.RoleAuditor}},
			func(ctx context.Context, a *App, in *IntentAuditInput) (StepResult, error) {
				if _, err := a.Routes("intent_audit", in.Routes); err != nil {
					return StepResult{}, err
				}
				_, it, err := a.intent(ctx, "abcd intent audit", in.Intent)
				if err != nil {
					return StepResult{}, err
				}
				if len(it.Criteria) == 0 {
					return StepResult{}, refusal.New("intent_no_criteria", it.Front.ID, "has no acceptance criteria to audit against",
						"write its ## Acceptance Criteria first")
				}
				return a.oneLaneRun(ctx, loop.KindAudit, "abcd intent audit", in.Base, it.Front.ID, []string{loop.RoleAuditor}, in.Routes)
			}),
	}
}

// oneLaneRun creates a review or audit run over the current branch's head and opens its awaits.
func (a *App) oneLaneRun(ctx context.Context, kind loop.Kind, what, base, intentID string, validators []string, routes []string) (StepResult, error) {
	if err := a.initialized(what); err != nil {
		return StepResult{}, err
	}
	head, err := a.Git.Resolve(ctx, "HEAD")
	if err != nil {
		return StepResult{}, err
	}
	if base == "" {
		base = "main"
	}
	baseSHA, err := a.Git.Resolve(ctx, base)
	if err != nil {
		if r, ok := refusal.As(err); ok {
			r.Remedy = "give the commit the changes start from with --base (e.g. --base master or --base HEAD~3)"
			return StepResult{}, r
		}
		return StepResult{}, err
	}
	if baseSHA == head {
		return StepResult{}, refusal.New("nothing_to_review", what, fmt.Sprintf("HEAD is %s itself, so there are no changes", base),
			"commit the changes first, or give the commit they start from with --base")
	}
	branch, err := a.Git.CurrentBranch(ctx)
	if err != nil {
		return StepResult{}, err
	}
	var criteria []string
	if intentID != "" {
		_, it, err := a.intent(ctx, what, intentID)
		if err != nil {
			return StepResult{}, err
		}
		for _, c := range it.Criteria {
			criteria = append(criteria, c.ID)
		}
	}
	// What advance reads is checked before anything is written, so a refusal leaves no run.
	if err := a.preflight(ctx); err != nil {
		return StepResult{}, err
	}
	runID, err := a.freshRun(ctx)
	if err != nil {
		return StepResult{}, err
	}
	s := loop.New(kind, loop.Options{Run: runID, Intent: intentID, Base: baseSHA, Created: a.now(), Criteria: criteria, Validators: validators},
		[]loop.LaneSpec{{Step: 0, Text: "", Branch: branch, Head: head}})
	s.Routes = routes
	if err := a.saveRun(ctx, s); err != nil {
		_ = a.Runs.Remove(ctx, loop.RunDir(runID))
		return StepResult{}, err
	}
	res, err := a.withRun(ctx, runID, func(s *loop.State) (StepResult, bool, error) {
		did, err := a.advance(ctx, s, nil)
		return StepResult{Did: append([]string{fmt.Sprintf("created %s run %s over %s..%s", kind, runID, short(baseSHA), short(head))}, did...)}, true, err
	})
	if err != nil {
		// The run never opened an await: take it back, so no orphan stands as the newest run.
		_ = a.Runs.Remove(ctx, statePath(runID))
	}
	return res, err
}

// preflight loads what opening an await reads (both configuration families and oracle.review's
// route), so a fault in them refuses before a run is written.
func (a *App) preflight(ctx context.Context) error {
	files, stack, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	if _, err := a.loadRouting(files); err != nil {
		return err
	}
	review, err := config.Get[string](stack, "oracle.review")
	if err != nil {
		return configRefusal(err)
	}
	if review.V == "rp" {
		if _, err := config.Get[string](stack, "oracle.rp.url"); err != nil {
			return configRefusal(err)
		}
	}
	return nil
}

// auditNotes renders the auditor's per-criterion verdicts for the intent's Audit Notes, refusing a
// return whose text the record cannot hold (nothing is recorded then).
func (a *App) auditNotes(s *loop.State, audit review.AuditReturn, v review.Verdict, ret string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "### Audit %s (run %s, %s..%s): %s\n\n", a.Clock.Now().UTC().Format("2006-01-02"), s.Run, short(s.Base), short(s.Lanes[0].Head), v.Word)
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

// writeAuditNotes appends the notes to the intent's Audit Notes, under the record lock, reading the
// intent only once the lock is held so a concurrent move or edit is never overwritten.
func (a *App) writeAuditNotes(ctx context.Context, s *loop.State, notes string) error {
	unlock, err := a.Records.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	l, err := a.resolve(ctx, record.Intents, "abcd intent audit", s.Intent)
	if err != nil {
		return err
	}
	data, err := a.readFull(ctx, l.file.Path)
	if err != nil {
		return err
	}
	updated, err := record.AppendToSection(data, record.SectionAuditNotes, notes)
	if err != nil {
		return refusal.New("record_malformed", l.file.Path, err.Error(), "fix the intent (abcd lint lists every problem), then hand the return in again")
	}
	return a.Records.Replace(ctx, l.file.Path, updated)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func implementRecord(ctx context.Context, a *App, in *RunInput) (ImplementRecordResult, error) {
	run, err := a.pickAnyRun(ctx, in.Run)
	if err != nil {
		return ImplementRecordResult{}, err
	}
	s, err := a.loadRun(ctx, run)
	if err != nil {
		return ImplementRecordResult{}, err
	}
	res := ImplementRecordResult{Run: runView(s), Implementations: []ImplementationView{}, Verdicts: []RecordVerdictView{},
		Fallbacks: []FallbackView{}, ByRoute: []Count{}, ByRole: []Count{}}
	routes, roles := map[string]*Count{}, map[string]*Count{}
	bump := func(m map[string]*Count, name string, pass bool) {
		c, ok := m[name]
		if !ok {
			c = &Count{Name: name}
			m[name] = c
		}
		c.Total++
		if pass {
			c.Passed++
		} else {
			c.Failed++
		}
	}
	for _, l := range s.Lanes {
		for _, im := range l.Implementations {
			res.Implementations = append(res.Implementations, ImplementationView{Lane: l.ID, Round: im.Round, Commits: im.Commits, Head: im.Head, Model: im.Model})
		}
		for _, r := range l.Rounds {
			for _, v := range r.Verdicts {
				res.Verdicts = append(res.Verdicts, RecordVerdictView{Lane: l.ID, Round: r.N, Role: v.Role, Word: v.Word, Pass: v.Pass,
					Tier: v.Routing.Tier, Route: v.Routing.Route, Ran: v.Routing.Ran, Return: v.Return, SHA256: v.SHA256, Findings: v.Findings,
					Receipt: routeReceipt(s, l.ID, r.N, v)})
				bump(routes, v.Routing.Ran, v.Pass)
				bump(roles, v.Role, v.Pass)
			}
		}
	}
	for _, f := range s.Fallbacks {
		res.Fallbacks = append(res.Fallbacks, FallbackView(f))
	}
	for _, m := range []struct {
		src map[string]*Count
		dst *[]Count
	}{{routes, &res.ByRoute}, {roles, &res.ByRole}} {
		for _, c := range m.src {
			*m.dst = append(*m.dst, *c)
		}
		sort.Slice(*m.dst, func(i, j int) bool { return (*m.dst)[i].Name < (*m.dst)[j].Name })
	}
	return res, nil
}

// pickAnyRun is the named run, or the newest run of any standing.
func (a *App) pickAnyRun(ctx context.Context, run string) (string, error) {
	if run != "" {
		return run, checkRunID(run)
	}
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", refusal.New("no_run", "abcd implement record", "no run in this repository", "start one: `abcd implement start <spec>`, or `abcd review`")
	}
	return ids[len(ids)-1], nil
}

func runView(s loop.State) RunView {
	v := RunView{Run: s.Run, Kind: string(s.Kind), Spec: s.Spec, Intent: s.Intent, Base: s.Base, Finished: s.Finished(), Lanes: []LaneView{}, Awaits: []AwaitView{}}
	for _, l := range s.Lanes {
		v.Lanes = append(v.Lanes, LaneView{ID: l.ID, Step: l.Step, Text: l.Text, Branch: l.Branch, Stage: string(l.Stage), Round: l.Round, Failed: l.Failed, Head: l.Head})
		for _, aw := range l.Awaits {
			r := aw.Routing
			v.Awaits = append(v.Awaits, AwaitView{ID: aw.ID, Lane: l.ID, Kind: string(aw.Kind), Role: aw.Role, Round: aw.Round, Brief: aw.Brief, Return: aw.Return,
				Routing: requestRouting(r), Next: loop.Next(aw)})
		}
	}
	return v
}

// routeReceipt is a verdict's route block. A review asked of rp that the host ran carries the
// fallback's reason; otherwise the routing table's own fallback sentence (no connection serves the
// tier), if any.
func routeReceipt(s loop.State, lane string, round int, v loop.Verdict) oracle.Receipt {
	tried := v.Routing.Connection
	if v.Routing.Route != "" && v.Routing.Route != "host" {
		tried = v.Routing.Route
	}
	reason := v.Routing.Fallback
	for _, f := range s.Fallbacks {
		if f.Lane == lane && f.Round == round && f.Role == v.Role {
			reason = review.FallbackReason(f.Reason).Sentence()
		}
	}
	route := oracle.Route{Agent: v.Role, Row: oracle.Row{Tier: oracle.Tier(v.Routing.Tier)}, Override: v.Routing.Override}
	return route.Receipt(tried, v.Routing.Ran, reason, "")
}
