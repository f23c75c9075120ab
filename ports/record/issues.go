package record

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// CaptureInput files an issue: what was noticed, how bad, by whom, about what.
type CaptureInput struct {
	Text     record.Note     `json:"text"`
	Severity record.Severity `json:"severity,omitempty"`
	Source   record.Source   `json:"source,omitempty"`
	Related  []record.Ref    `json:"related,omitempty" jsonschema:"maxItems=16"`
}

// IssueCloseInput closes an issue with the reason.
type IssueCloseInput struct {
	Ref record.Ref    `json:"ref"`
	Why record.Reason `json:"why"`
}

// RecordShowResult is one issue or decision whole.
type RecordShowResult struct {
	Record   RecordSummary `json:"record"`
	Related  []string      `json:"related"`
	Sections []SectionView `json:"sections"`
}

func IssueVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "capture", Path: []string{"capture"}, Example: "abcd capture \"abcd status is slow on a large record\" --severity major", Summary: "File an issue: something noticed, with its severity and related records"}, capture),
		verb.Declare(verb.Verb{Name: "issue_list", Path: []string{"issue", "list"}, Example: "abcd issue list\nabcd issue list --lifecycle open --json", Summary: "List issues, optionally of one lifecycle", ReadOnly: true, Idempotent: true}, issueList),
		verb.Declare(verb.Verb{Name: "issue_show", Path: []string{"issue", "show"}, Example: "abcd issue show status-is-slow", Summary: "Show one issue", ReadOnly: true, Idempotent: true}, issueShow),
		verb.Declare(verb.Verb{Name: "issue_close", Path: []string{"issue", "close"}, Example: "abcd issue close status-is-slow --why \"fixed by the index cache\"", Summary: "Close an issue, recording why"}, issueClose),
	}
}

// capture files an issue. The text, severity, source and related refs checked themselves when the
// input was decoded; an issue's title is the text's first line, cut to a title's length
// (record.TitleOf).
func capture(ctx context.Context, a *Deps, in *CaptureInput) (RecordCreated, error) {
	body := string(in.Text)
	title := record.TitleOf(body)
	severity := string(in.Severity)
	if severity == "" {
		severity = "minor"
	}
	source := string(in.Source)
	if source == "" {
		source = "abcd capture"
	}
	return Locked(ctx, a, "capture", func(ctx context.Context, _ *RecordLock) (RecordCreated, error) {
		related, err := a.resolveAny(ctx, "capture", "related", in.Related)
		if err != nil {
			return RecordCreated{}, err
		}
		var created record.Issue
		_, p, err := a.newRecord(ctx, record.Issues, "open", func(id string) (string, []byte) {
			created = record.NewIssue(id, title, body, severity, source, related, a.Clock.Now())
			return record.Slug(title), record.RenderIssue(created)
		})
		if err != nil {
			return RecordCreated{}, err
		}
		s := RecordSummary{Family: string(record.Issues), Lifecycle: "open", Path: p}
		fillSummary(&s, created.Front)
		return RecordCreated{Record: s, Next: hint.Say("close it when it is dealt with: ", hint.Do("issue_close", hint.With("ref", created.Front.ID), hint.Hole("why", "why")))}, nil
	})
}

func issueList(ctx context.Context, a *Deps, in *LifecycleInput) (RecordListResult, error) {
	return a.listVerb(ctx, record.Issues, "issue_list", in.Lifecycle)
}

func issueShow(ctx context.Context, a *Deps, in *RefInput) (RecordShowResult, error) {
	l, is, err := a.issue(ctx, "issue_show", in.Ref)
	if err != nil {
		return RecordShowResult{}, err
	}
	return RecordShowResult{Record: l.Summary, Related: core.NonNil(is.Front.Related), Sections: sections(is.Sections)}, nil
}

func issueClose(ctx context.Context, a *Deps, in *IssueCloseInput) (MoveResult, error) {
	return Locked(ctx, a, "issue_close", func(ctx context.Context, rec *RecordLock) (MoveResult, error) {
		l, _, err := a.issue(ctx, "issue_close", in.Ref)
		if err != nil {
			return MoveResult{}, err
		}
		return a.moveVerb(ctx, rec, record.Issues, l, "closed", func(data []byte) ([]byte, error) {
			return record.AppendToSection(data, "Resolution", string(in.Why))
		})
	})
}

func (a *Deps) issue(ctx context.Context, verb string, ref record.Ref) (Loaded, record.Issue, error) {
	if err := a.RecordPresent(verb); err != nil { // a read: the writer that follows checks the install whole
		return Loaded{}, record.Issue{}, err
	}
	l, err := a.Resolve(ctx, record.Issues, verb, "ref", ref)
	if err != nil {
		return Loaded{}, record.Issue{}, err
	}
	data, err := a.ReadFull(ctx, l.File.Path)
	if err != nil {
		return Loaded{}, record.Issue{}, err
	}
	is, err := record.ParseIssue(l.File.Path, data)
	if err != nil {
		return Loaded{}, record.Issue{}, core.RecordMalformed(l.File.Path, err.Error())
	}
	return l, is, nil
}

// resolveAny resolves refs of any family to full ids. A ref with a family's prefix is looked up in
// that family; any other (a slug fragment) must match exactly one record across all of them.
func (a *Deps) resolveAny(ctx context.Context, verb, field string, refs []record.Ref) ([]string, error) {
	out := []string{}
	for _, ref := range refs {
		id, err := a.resolveAcross(ctx, verb, field, ref)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

func (a *Deps) resolveAcross(ctx context.Context, verb, field string, ref record.Ref) (string, error) {
	if fam, ok := familyOfRef(string(ref)); ok {
		l, err := a.Resolve(ctx, fam, verb, field, ref)
		return l.Summary.ID, err
	}
	var found []string
	for _, fam := range record.Families() {
		l, err := a.Resolve(ctx, fam, verb, field, ref)
		if err == nil {
			found = append(found, l.Summary.ID)
			continue
		}
		if r, ok := refusal.As(err); !ok || r.Code != refusal.CodeRefUnresolved || len(r.Remedy.Runs()) == 0 {
			return "", err // not a ref, or several records of one family
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", refusal.New(refusal.CodeRefUnresolved, "", fmt.Sprintf("no record matches %q", text.Clip(string(ref))),
			"give a record id, a unique prefix of one (such as itd-2611) or a slug fragment; ",
			refusal.Run("intent_list"), ", ", refusal.Run("spec_list"), ", ", refusal.Run("issue_list"), " and ", refusal.Run("decision_list"), " show them").On(verb, field)
	}
	return "", refusal.New(refusal.CodeRefUnresolved, "", fmt.Sprintf("%q matches records of several families", text.Clip(string(ref))),
		"give more of it; candidates: "+strings.Join(found, ", ")).On(verb, field)
}

func familyOfRef(ref string) (record.Family, bool) {
	for _, f := range []record.Family{record.Intents, record.Specs, record.Issues, record.Decisions} {
		if strings.HasPrefix(ref, record.Prefix(f)+"-") {
			return f, true
		}
	}
	return "", false
}
