package app

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// CaptureInput files an issue: what was noticed, how bad, by whom, about what.
type CaptureInput struct {
	Text     string   `json:"text" jsonschema:"minLength=1,maxLength=4096"`
	Severity string   `json:"severity,omitempty" jsonschema:"enum=critical,enum=major,enum=minor,enum=trivial"`
	Source   string   `json:"source,omitempty" jsonschema:"maxLength=200"`
	Related  []string `json:"related,omitempty" jsonschema:"maxItems=16"`
}

// IssueCloseInput closes an issue with the reason.
type IssueCloseInput struct {
	Ref string `json:"ref" jsonschema:"minLength=1,maxLength=200"`
	Why string `json:"why" jsonschema:"minLength=1,maxLength=4096"`
}

// RecordShowResult is one issue or decision whole.
type RecordShowResult struct {
	Record   RecordSummary `json:"record"`
	Related  []string      `json:"related"`
	Sections []SectionView `json:"sections"`
}

var severities = []string{"critical", "major", "minor", "trivial"}

func issueVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "capture", Path: []string{"capture"}, Summary: "File an issue: something noticed, with its severity and related records"},
			func(ctx context.Context, a *App, in *CaptureInput) (RecordCreated, error) {
				text := strings.TrimSpace(in.Text)
				if text == "" || !utf8.ValidString(text) || strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) >= 0 {
					return RecordCreated{}, refusal.New("text_invalid", "abcd capture", "the text is empty or holds control characters",
						`say what you noticed in quotes: abcd capture "the status line flickers on resize"`)
				}
				if err := record.CheckBody(text); err != nil {
					return RecordCreated{}, refusal.New("text_invalid", "abcd capture", err.Error(), "rephrase the text; a record's body cannot hold its own section headings or an unclosed code fence")
				}
				title, _, _ := strings.Cut(text, "\n")
				title = strings.TrimSpace(clipBytes(strings.TrimSpace(title), maxTitleBytes))
				severity := in.Severity
				if severity == "" {
					severity = "minor"
				}
				if !contains(severities, severity) {
					return RecordCreated{}, refusal.New("severity_unknown", "abcd capture", fmt.Sprintf("%q is not a severity", clip(severity)),
						"use one of "+strings.Join(severities, ", "))
				}
				source := strings.TrimSpace(in.Source)
				if source == "" {
					source = "abcd capture"
				}
				if err := record.CheckTitle(source); err != nil {
					return RecordCreated{}, refusal.New("source_invalid", "abcd capture --source", err.Error(), "name who or what noticed it in plain text, at most 200 characters")
				}
				return locked(ctx, a, "abcd capture", func() (RecordCreated, error) {
					related, err := a.resolveAny(ctx, "abcd capture --related", in.Related)
					if err != nil {
						return RecordCreated{}, err
					}
					var created record.Issue
					_, p, err := a.newRecord(ctx, record.Issues, "open", func(id string) (string, []byte) {
						created = record.NewIssue(id, title, text, severity, source, related, a.Clock.Now())
						return record.Slug(title), record.RenderIssue(created)
					})
					if err != nil {
						return RecordCreated{}, err
					}
					s := RecordSummary{Family: string(record.Issues), Lifecycle: "open", Path: p}
					fillSummary(&s, created.Front)
					return RecordCreated{Record: s, Next: fmt.Sprintf("close it when it is dealt with: `abcd issue close %s --why \"...\"`", created.Front.ID)}, nil
				})
			}),
		declare(Verb{Name: "issue_list", Path: []string{"issue", "list"}, Summary: "List issues, optionally of one lifecycle", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, in *LifecycleInput) (RecordListResult, error) {
				return a.listVerb(ctx, record.Issues, "abcd issue list", in.Lifecycle)
			}),
		declare(Verb{Name: "issue_show", Path: []string{"issue", "show"}, Summary: "Show one issue", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, in *RefInput) (RecordShowResult, error) {
				l, is, err := a.issue(ctx, "abcd issue show", in.Ref)
				if err != nil {
					return RecordShowResult{}, err
				}
				return RecordShowResult{Record: l.summary, Related: nonNil(is.Front.Related), Sections: sections(is.Sections)}, nil
			}),
		declare(Verb{Name: "issue_close", Path: []string{"issue", "close"}, Summary: "Close an issue, recording why"},
			func(ctx context.Context, a *App, in *IssueCloseInput) (MoveResult, error) {
				why := strings.TrimSpace(in.Why)
				if why == "" {
					return MoveResult{}, refusal.New("why_empty", "abcd issue close", "no reason was given", `say why with --why "fixed in ..."`)
				}
				if err := record.CheckBody(why); err != nil {
					return MoveResult{}, refusal.New("why_invalid", "abcd issue close --why", err.Error(), "rephrase the reason; it cannot hold section headings or an unclosed code fence")
				}
				return locked(ctx, a, "abcd issue close", func() (MoveResult, error) {
					l, _, err := a.issue(ctx, "abcd issue close", in.Ref)
					if err != nil {
						return MoveResult{}, err
					}
					dst, err := a.move(ctx, record.Issues, l, "closed", func(data []byte) ([]byte, error) {
						return record.AppendToSection(data, "Resolution", why)
					})
					if err != nil {
						return MoveResult{}, err
					}
					moved := l.summary
					moved.Lifecycle, moved.Path = "closed", dst
					return MoveResult{Record: moved, From: l.file.Path, To: dst}, nil
				})
			}),
	}
}

func (a *App) issue(ctx context.Context, what, ref string) (loaded, record.Issue, error) {
	if err := a.initialized(what); err != nil {
		return loaded{}, record.Issue{}, err
	}
	l, err := a.resolve(ctx, record.Issues, what, ref)
	if err != nil {
		return loaded{}, record.Issue{}, err
	}
	data, err := a.readFull(ctx, l.file.Path)
	if err != nil {
		return loaded{}, record.Issue{}, err
	}
	is, err := record.ParseIssue(l.file.Path, data)
	if err != nil {
		return loaded{}, record.Issue{}, refusal.New("record_malformed", l.file.Path, err.Error(), "fix the file (abcd lint lists every problem)")
	}
	return l, is, nil
}

// resolveAny resolves refs of any family to full ids. A ref with a family's prefix is looked up in
// that family; any other (a slug fragment) must match exactly one record across all of them.
func (a *App) resolveAny(ctx context.Context, what string, refs []string) ([]string, error) {
	out := []string{}
	for _, ref := range refs {
		id, err := a.resolveAcross(ctx, what, ref)
		if err != nil {
			return nil, err
		}
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

func (a *App) resolveAcross(ctx context.Context, what, ref string) (string, error) {
	if fam, ok := familyOfRef(ref); ok {
		l, err := a.resolve(ctx, fam, what, ref)
		return l.summary.ID, err
	}
	var found []string
	for _, fam := range record.Families() {
		l, err := a.resolve(ctx, fam, what, ref)
		if err == nil {
			found = append(found, l.summary.ID)
			continue
		}
		if r, ok := refusal.As(err); !ok || r.Code != "ref_unresolved" || strings.Contains(r.Remedy, "candidates") {
			return "", err
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", refusal.New("ref_unresolved", what, fmt.Sprintf("no record matches %q", clip(ref)),
			"give a record id, a unique prefix of one (such as itd-2611) or a slug fragment; abcd intent list, spec list, issue list and decision list show them")
	}
	return "", refusal.New("ref_unresolved", what, fmt.Sprintf("%q matches records of several families", clip(ref)),
		"give more of it; candidates: "+strings.Join(found, ", "))
}

func familyOfRef(ref string) (record.Family, bool) {
	for _, f := range []record.Family{record.Intents, record.Specs, record.Issues, record.Decisions} {
		if strings.HasPrefix(ref, record.Prefix(f)+"-") {
			return f, true
		}
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
