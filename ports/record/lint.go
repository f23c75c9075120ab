package record

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// LintInput narrows lint to the record files a change touched, for CI and git hooks: Changed, those
// that differ from a commit in the working tree (with the files git does not track yet), as a check
// before a merge or a push does (--changed origin/main); Staged, those staged for the next commit,
// as a pre-commit or pre-merge-commit hook does. Neither: the whole record.
type LintInput struct {
	Changed loop.Revision `json:"changed,omitempty"`
	Staged  bool          `json:"staged,omitempty"`
}

// LintResult is every finding over the record lint read, with counts per level. Checked counts the
// record files checked: all of them, or those the change touched.
type LintResult struct {
	Checked  int              `json:"checked" jsonschema:"minimum=0"`
	Errors   int              `json:"errors" jsonschema:"minimum=0"`
	Warnings int              `json:"warnings" jsonschema:"minimum=0"`
	Findings []record.Finding `json:"findings"`
}

func LintVerb() verb.Verb {
	return verb.Declare(verb.Verb{Name: "lint", Path: []string{"lint"}, Example: "abcd lint\nabcd lint --changed origin/main\nabcd lint --staged", Summary: "Check the record: references, ids, front matter, folders, criteria and steps, merge conflicts", ReadOnly: true, Idempotent: true}, lint)
}

func lint(ctx context.Context, a *Deps, in *LintInput) (LintResult, error) {
	if err := a.RecordPresent("lint"); err != nil {
		return LintResult{}, err
	}
	if in.Changed != "" && in.Staged {
		return LintResult{}, refusal.New(refusal.CodeInputInvalid, "", "takes --changed or --staged, not both",
			"give --changed REV to check what differs from a commit, or --staged for what the next commit holds").On("lint", "staged")
	}
	var findings []record.Finding
	var checked int
	var err error
	if in.Changed != "" || in.Staged {
		findings, checked, err = a.lintChanged(ctx, string(in.Changed), in.Staged)
	} else {
		findings, checked, err = a.lintAll(ctx)
	}
	if err != nil {
		return LintResult{}, err
	}
	if findings, err = a.lintRepository(ctx, findings); err != nil {
		return LintResult{}, err
	}
	res := LintResult{Checked: checked, Findings: findings}
	for _, f := range findings {
		if f.Level == record.LevelError {
			res.Errors++
		} else {
			res.Warnings++
		}
	}
	return res, nil
}

// lintAll reads every record file whole and lints them all.
func (a *Deps) lintAll(ctx context.Context) ([]record.Finding, int, error) {
	var all []record.Loaded
	for _, folder := range record.Folders() {
		files, err := a.Records.List(ctx, folder.Dir, folder.Prefix, 0)
		if err != nil {
			return nil, 0, err
		}
		at := len(all)
		all = append(all, make([]record.Loaded, len(files))...)
		core.InParallel(len(files), func(i int) {
			all[at+i] = parseLoaded(folder, files[i].Path, files[i].Data, files[i].Err)
		})
	}
	return record.Lint(all), len(all), nil
}

// lintChanged lints the record files a change touched, whole, against the names of every record
// file (ids and references) and the open specs' front matter (an intent planned twice, a shipped
// intent with an open spec): a small change to a large record reads a few files.
func (a *Deps) lintChanged(ctx context.Context, rev string, staged bool) ([]record.Finding, int, error) {
	paths, err := a.Git.Changed(ctx, core.AbcdDir, rev, staged)
	if errors.Is(err, ports.ErrNoGit) {
		return nil, 0, refusal.New(refusal.CodeGitUnavailable, "", "git cannot run here ("+err.Error()+"), and it names the files a change touched",
			"run it where git runs, or ", refusal.Run("lint"), " alone to check the whole record")
	}
	if err != nil {
		return nil, 0, err
	}
	var names []string
	byFolder := map[string]record.Folder{}
	for _, folder := range record.Folders() {
		n, err := a.Records.Names(ctx, folder.Dir, folder.Prefix)
		if err != nil {
			return nil, 0, err
		}
		names = append(names, n...)
		byFolder[folder.Dir] = folder
	}
	exists := make(map[string]bool, len(names))
	for _, n := range names {
		exists[n] = true
	}
	var changed []record.Loaded
	needSpecs := false
	for _, p := range paths {
		folder, ok := byFolder[path.Dir(p)]
		if !ok || !strings.HasPrefix(path.Base(p), folder.Prefix+"-") || !strings.HasSuffix(p, ".md") || !exists[p] {
			continue // not a record file, or one the change removed
		}
		data, err := a.Records.Read(ctx, p)
		changed = append(changed, parseLoaded(folder, p, data, err))
		// The other open specs matter to a changed open spec (its intent planned twice) and to a
		// changed shipped intent (a spec of it still open); nothing else needs them read.
		needSpecs = needSpecs || folder.Family == record.Specs && folder.Lifecycle == "open" || folder.Family == record.Intents && folder.Lifecycle == "shipped"
	}
	var others []record.Loaded
	if needSpecs {
		if others, err = a.openSpecHeaders(ctx, changed); err != nil {
			return nil, 0, err
		}
	}
	return record.LintChanged(changed, others, names), len(changed), nil
}

// openSpecHeaders loads the front matter of the open specs a change did not touch.
func (a *Deps) openSpecHeaders(ctx context.Context, changed []record.Loaded) ([]record.Loaded, error) {
	folder, _ := record.FolderOf(record.Specs, "open")
	files, err := a.Records.List(ctx, folder.Dir, folder.Prefix, record.HeaderReadBytes)
	if err != nil {
		return nil, err
	}
	var out []record.Loaded
	for _, f := range files {
		if f.Err != nil || slices.ContainsFunc(changed, func(l record.Loaded) bool { return l.File == f.Path }) {
			continue
		}
		if h, _, err := record.ParseHeader(record.Specs, f.Path, f.Data); err == nil {
			out = append(out, record.Loaded{Family: record.Specs, Lifecycle: folder.Lifecycle, File: f.Path, Spec: &record.Spec{Front: h.(record.SpecFrontMatter), File: f.Path}})
		}
	}
	return out, nil
}

// lintRepository adds what the repository says beside the record's files: temporary files killed
// writes left, a change a killed writer left pending, conflicts git holds unresolved on record
// files, and a clone without the record's merge driver.
func (a *Deps) lintRepository(ctx context.Context, findings []record.Finding) ([]record.Finding, error) {
	temps, err := a.Records.StrayTemps(ctx)
	if err != nil {
		return nil, err
	}
	missing, err := a.InstallMissing()
	if err != nil {
		return nil, err
	}
	// Without .abcd/.gitignore, git sees abcd's temporary folder too.
	ignored := !slices.Contains(missing, core.GitignoreRel)
	stray := make([]record.StrayTemp, 0, len(temps))
	for _, t := range temps {
		stray = append(stray, record.StrayTemp{File: t.Path, Ignored: t.Ignored && ignored, Staged: t.Ignored, Uninstalled: len(missing) > 0})
	}
	findings = record.LintTemps(findings, stray)
	// What a killed merge driver left: in git's own folder (ignored), or where git sees it.
	merges, err := a.Records.MergeTemps(ctx)
	if err != nil {
		return nil, err
	}
	mergeStray := make([]record.StrayTemp, 0, len(merges))
	for _, t := range merges {
		mergeStray = append(mergeStray, record.StrayTemp{File: t.Path, Ignored: t.Ignored})
	}
	findings = record.LintMergeTemps(findings, mergeStray)
	findings = record.LintInstall(findings, missing)
	if a.Git != nil && a.Setup != nil {
		// Where git cannot run (no git program, a record outside a repository) there is no merge
		// state to ask about; the record's own files were checked all the same.
		unmerged, err := a.Git.Unmerged(ctx, core.AbcdDir)
		if err != nil && !errors.Is(err, ports.ErrNoGit) {
			return nil, err
		}
		if err == nil {
			missing, err := a.MergeDriverMissing(ctx)
			if err != nil {
				return nil, err
			}
			findings = record.LintMerge(findings, unmerged, missing, GitattributesRel)
		}
		keepless, err := a.keepless()
		if err != nil {
			return nil, err
		}
		findings = record.LintKeeps(findings, keepless)
	}
	pending, err := a.Journal.Pending(ctx)
	if err != nil {
		return nil, err
	}
	if pending {
		findings = record.LintPending(findings, journalFile)
	}
	if findings == nil {
		findings = []record.Finding{}
	}
	return findings, nil
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
