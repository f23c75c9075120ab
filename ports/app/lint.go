package app

import (
	"context"

	"github.com/abcd-dev/abcd/domain/record"
)

// LintResult is every finding over the whole record, with counts per level.
type LintResult struct {
	Checked  int              `json:"checked" jsonschema:"minimum=0"`
	Errors   int              `json:"errors" jsonschema:"minimum=0"`
	Warnings int              `json:"warnings" jsonschema:"minimum=0"`
	Findings []record.Finding `json:"findings"`
}

func lintVerb() Verb {
	return declare(Verb{Name: "lint", Path: []string{"lint"}, Summary: "Check the record: references, ids, front matter, folders, criteria and steps", ReadOnly: true, Idempotent: true}, lint)
}

func lint(ctx context.Context, a *App, _ *EmptyInput) (LintResult, error) {
	if err := a.initialized("lint"); err != nil {
		return LintResult{}, err
	}
	var all []record.Loaded
	for _, folder := range record.Folders() {
		files, err := a.Records.List(ctx, folder.Dir, folder.Prefix, 0)
		if err != nil {
			return LintResult{}, err
		}
		at := len(all)
		all = append(all, make([]record.Loaded, len(files))...)
		inParallel(len(files), func(i int) {
			all[at+i] = parseLoaded(folder, files[i].Path, files[i].Data, files[i].Err)
		})
	}
	temps, err := a.Records.StrayTemps(ctx)
	if err != nil {
		return LintResult{}, err
	}
	stray := make([]record.StrayTemp, 0, len(temps))
	for _, t := range temps {
		stray = append(stray, record.StrayTemp{File: t.Path, Ignored: t.Ignored})
	}
	findings := record.LintTemps(record.Lint(all), stray)
	pending, err := a.Journal.Pending(ctx)
	if err != nil {
		return LintResult{}, err
	}
	if pending {
		findings = record.LintPending(findings, journalFile)
	}
	res := LintResult{Checked: len(all), Findings: findings}
	if res.Findings == nil {
		res.Findings = []record.Finding{}
	}
	for _, f := range findings {
		if f.Level == "error" {
			res.Errors++
		} else {
			res.Warnings++
		}
	}
	return res, nil
}

// parseLoaded parses one record whole for lint.
func parseLoaded(folder record.Folder, file string, data []byte, readErr error) record.Loaded {
	l := record.Loaded{Family: folder.Family, Lifecycle: folder.Lifecycle, File: file, Err: readErr}
	if readErr != nil {
		return l
	}
	switch folder.Family {
	case record.Intents:
		v, err := record.ParseIntent(file, data)
		l.Intent, l.Err = &v, err
	case record.Specs:
		v, err := record.ParseSpec(file, data)
		l.Spec, l.Err = &v, err
	case record.Issues:
		v, err := record.ParseIssue(file, data)
		l.Issue, l.Err = &v, err
	case record.Decisions:
		v, err := record.ParseDecision(file, data)
		l.Decision, l.Err = &v, err
	}
	if l.Err != nil {
		l.Intent, l.Spec, l.Issue, l.Decision = nil, nil, nil, nil
	}
	return l
}
