package record

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/internal/frontmatter"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// Loaded is one record file as a listing loaded it: its folder's family and lifecycle, and either the
// parsed record (the pointer for its family) or the error that stopped it.
type Loaded struct {
	Family    Family
	Lifecycle string // the folder's
	File      string
	Intent    *Intent
	Spec      *Spec
	Issue     *Issue
	Decision  *Decision
	Err       error
}

// Finding is one lint result.
type Finding struct {
	Level   string `json:"level"`
	Code    string `json:"code"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
	Remedy  string `json:"remedy"`
}

// Finding levels.
const (
	LevelError   = "error"
	LevelWarning = "warning"
)

// loadedView is what lint needs of any record.
type loadedView struct {
	l         *Loaded
	id        string
	lifecycle string // front matter; "" for decisions
	fields    []frontmatter.Field
	sections  []Section
}

func view(l *Loaded) (loadedView, bool) {
	v := loadedView{l: l}
	switch {
	case l.Err != nil:
		return v, false
	case l.Family == Intents && l.Intent != nil:
		v.id, v.lifecycle, v.fields, v.sections = l.Intent.Front.ID, l.Intent.Front.Lifecycle, l.Intent.Fields, l.Intent.Sections
	case l.Family == Specs && l.Spec != nil:
		v.id, v.lifecycle, v.fields, v.sections = l.Spec.Front.ID, l.Spec.Front.Lifecycle, l.Spec.Fields, l.Spec.Sections
	case l.Family == Issues && l.Issue != nil:
		v.id, v.lifecycle, v.fields, v.sections = l.Issue.Front.ID, l.Issue.Front.Lifecycle, l.Issue.Fields, l.Issue.Sections
	case l.Family == Decisions && l.Decision != nil:
		v.id, v.fields, v.sections = l.Decision.Front.ID, l.Decision.Fields, l.Decision.Sections
	default:
		return v, false
	}
	return v, true
}

// Lint checks every record a listing loaded, and the references between them. Findings are sorted by
// file, then line, then code (then message). Codes:
//   - malformed (error): the file could not be loaded or parsed.
//   - conflict_markers (error): the file holds an unresolved merge conflict (git's <<<<<<< lines).
//   - duplicate_id (error): several files carry one id; one finding per file, naming the others. The
//     same record in two lifecycle folders (one file name) is a move to finish; two records with
//     one id, a record to renumber.
//   - wrong_folder (error): the front matter's lifecycle is not the folder's, or the file name does
//     not start with the front matter's id.
//   - broken_reference (error): a spec's implements, an issue's related or a decision's supersedes
//     names an id no record has (ids in the names of malformed files count as existing).
//   - planned_twice (error): two open specs implement one intent under one title, as two plans of
//     the intent (on two branches) leave them.
//   - no_criteria (error; a warning in drafts): an intent with no acceptance criterion.
//   - no_steps (error; a warning while the spec is open): a spec with no step.
//   - step_order (error): a step builds on itself, on a step that does not exist, or the steps
//     build on each other in a cycle.
//   - unwritten (warning): an intent outside drafts whose Press Release is unwritten.
//   - shipped_with_open_spec (warning): a shipped intent with a spec in the open folder.
//   - closed_twice (warning): an issue closed on two branches with different reasons, both kept
//     under the merge's marker.
//   - record_symlink (error): the record file is a symbolic link, which abcd neither reads nor writes.
//   - stray_temp (LintTemps): a temporary file a killed write left.
//   - change_pending (LintPending): a change a killed writer left in the journal, not yet finished.
//   - install_incomplete (LintInstall): abcd ahoy install was interrupted before it finished.
func Lint(records []Loaded) []Finding {
	ix := indexRecords(records)
	out := ix.findings
	for _, v := range ix.views {
		out = append(out, ix.lintIDs(v)...)
		out = append(out, lintPlace(v)...)
		out = append(out, ix.lintFamily(v)...)
	}
	sortFindings(out)
	return out
}

// lintIndex is what lint knows of the whole record before it looks at each file.
type lintIndex struct {
	views    []loadedView
	known    map[string]bool
	byID     map[string][]string
	specsOf  map[string][]*Loaded // intent id → its specs in the open folder
	findings []Finding            // the files that could not be loaded
}

func indexRecords(records []Loaded) lintIndex {
	ix := lintIndex{findings: []Finding{}, views: make([]loadedView, 0, len(records)),
		known: make(map[string]bool, len(records)), byID: make(map[string][]string, len(records)), specsOf: map[string][]*Loaded{}}
	for k := range records {
		l := &records[k]
		v, ok := view(l)
		if !ok {
			if id, ok := IDOfFileName(l.File); ok {
				ix.known[id] = true
			}
			ix.findings = append(ix.findings, unloaded(l))
			continue
		}
		ix.views = append(ix.views, v)
		ix.known[v.id] = true
		ix.byID[v.id] = append(ix.byID[v.id], l.File)
		if l.Family == Specs && l.Lifecycle == "open" {
			ix.specsOf[l.Spec.Front.Implements] = append(ix.specsOf[l.Spec.Front.Implements], l)
		}
	}
	return ix
}

// unloaded is the finding for a file that could not be loaded.
func unloaded(l *Loaded) Finding {
	err := l.Err
	if err == nil {
		err = errors.New("no parsed record was loaded")
	}
	var pe *ParseError
	switch re, ok := refusal.As(err); {
	case ok && re.Code == refusal.CodeRecordSymlink:
		return Finding{LevelError, "record_symlink", l.File, 0, re.Why, re.Remedy.String()}
	case errors.As(err, &pe) && IsConflict(pe):
		return Finding{LevelError, "conflict_markers", l.File, pe.Line, pe.Problem,
			"resolve the conflict: keep what stands from each side, remove the <<<<<<<, ======= and >>>>>>> lines, then git add the file and lint again"}
	case errors.As(err, &pe):
		return Finding{LevelError, "malformed", l.File, pe.Line, pe.Problem, pe.Remedy}
	}
	return Finding{LevelError, "malformed", l.File, 0, err.Error(), "fix the file, or remove it"}
}

// lintIDs tells the two cases of an id several files carry apart: the same record in two lifecycle
// folders (one file name: a move that did not finish) and two records (a collision of ids made on
// two clones, or a copied file).
func (ix lintIndex) lintIDs(v loadedView) []Finding {
	files := ix.byID[v.id]
	if len(files) < 2 {
		return nil
	}
	var moved, others []string
	for _, f := range files {
		switch {
		case f == v.l.File:
		case path.Base(f) == path.Base(v.l.File):
			moved = append(moved, f)
		default:
			others = append(others, f)
		}
	}
	slices.Sort(moved)
	slices.Sort(others)
	line := fieldLine(v.fields, "id")
	var out []Finding
	if len(moved) > 0 {
		out = append(out, Finding{LevelError, "duplicate_id", v.l.File, line,
			fmt.Sprintf("the same record %s also stands in %s: a move between lifecycle folders that did not finish", v.id, strings.Join(moved, ", ")),
			fmt.Sprintf("run abcd record finish-move %s: it keeps the record in its later folder with what each copy holds", v.id)})
	}
	if len(others) > 0 {
		out = append(out, Finding{LevelError, "duplicate_id", v.l.File, line,
			fmt.Sprintf("id %s is also carried by %s, another record", v.id, strings.Join(others, ", ")),
			fmt.Sprintf("give one of them a new id: run abcd record renumber %s (it rewrites the references made to it)", v.l.File)})
	}
	return out
}

// lintPlace checks a record stands where its front matter says: its lifecycle's folder, and a file
// name that starts with its id.
func lintPlace(v loadedView) []Finding {
	l, file := v.l, v.l.File
	var out []Finding
	if l.Family != Decisions && v.lifecycle != l.Lifecycle {
		remedy := fmt.Sprintf("set lifecycle: %s (the folder is the lifecycle)", l.Lifecycle)
		if dir, ok := FolderOf(l.Family, v.lifecycle); ok {
			remedy += ", or move the file to " + dir.Dir
		}
		out = append(out, Finding{LevelError, "wrong_folder", file, fieldLine(v.fields, "lifecycle"),
			fmt.Sprintf("lifecycle %s in the %s folder", v.lifecycle, l.Lifecycle), remedy})
	}
	if id, ok := IDOfFileName(file); !ok || id != v.id {
		out = append(out, Finding{LevelError, "wrong_folder", file, fieldLine(v.fields, "id"),
			fmt.Sprintf("the file name does not start with its id %s", v.id),
			fmt.Sprintf("rename the file to %s", FileName(v.id, slugOfFile(file, v.id)))})
	}
	return out
}

// refs checks the ids a front matter key names exist.
func (ix lintIndex) refs(v loadedView, key string, ids []string) []Finding {
	var out []Finding
	for _, id := range ids {
		if !ix.known[id] {
			out = append(out, Finding{LevelError, "broken_reference", v.l.File, fieldLine(v.fields, key),
				fmt.Sprintf("%s names %s, which no record has", key, id), fmt.Sprintf("correct the id in %s, or remove it", key)})
		}
	}
	return out
}

// lintFamily runs the checks of the record's own family.
func (ix lintIndex) lintFamily(v loadedView) []Finding {
	l := v.l
	switch l.Family {
	case Intents:
		return ix.lintIntent(v)
	case Specs:
		return append(ix.refs(v, "implements", []string{l.Spec.Front.Implements}), ix.lintSpec(v)...)
	case Issues:
		return append(ix.refs(v, "related", l.Issue.Front.Related), lintClosedTwice(v)...)
	case Decisions:
		return ix.refs(v, "supersedes", l.Decision.Front.Supersedes)
	}
	return nil
}

func (ix lintIndex) lintIntent(v loadedView) []Finding {
	l, i, file := v.l, v.l.Intent, v.l.File
	var out []Finding
	if len(i.Criteria) == 0 {
		line := 0
		if s, ok := FindSection(i.Sections, SectionCriteria); ok {
			line = s.Line
		}
		// A draft is being written: a missing criterion is a warning until it is planned.
		level := LevelError
		if l.Lifecycle == "drafts" {
			level = LevelWarning
		}
		out = append(out, Finding{level, "no_criteria", file, line, "the intent has no acceptance criterion",
			fmt.Sprintf("under ## %s, write at least one line as - ac-1: Given <context>, when <action>, then <outcome>", SectionCriteria)})
	}
	if l.Lifecycle != "drafts" {
		if s, ok := FindSection(i.Sections, SectionPressRelease); !ok || !Written(s) {
			out = append(out, Finding{LevelWarning, "unwritten", file, s.Line, fmt.Sprintf("a %s intent whose ## %s is unwritten", l.Lifecycle, SectionPressRelease),
				fmt.Sprintf("write the ## %s section", SectionPressRelease)})
		}
	}
	if l.Lifecycle == "shipped" {
		for _, s := range ix.specsOf[i.Front.ID] {
			out = append(out, Finding{LevelWarning, "shipped_with_open_spec", file, fieldLine(v.fields, "lifecycle"),
				fmt.Sprintf("the intent is shipped but its spec %s is open (%s)", s.Spec.Front.ID, s.File),
				fmt.Sprintf("run abcd spec close %s, or move the intent back by hand if it has not shipped", s.Spec.Front.ID)})
		}
	}
	return out
}

func (ix lintIndex) lintSpec(v loadedView) []Finding {
	l, file := v.l, v.l.File
	var out []Finding
	if len(l.Spec.Steps) == 0 {
		line := 0
		if s, ok := FindSection(l.Spec.Sections, SectionSteps); ok {
			line = s.Line
		}
		// An open spec is being written (intent plan creates it empty): a warning until closed.
		level := LevelError
		if l.Lifecycle == "open" {
			level = LevelWarning
		}
		out = append(out, Finding{level, "no_steps", file, line, "the spec has no step",
			fmt.Sprintf("under ## %s, write the steps as a numbered list: 1. text", SectionSteps)})
	}
	if problem, line := StepOrderProblem(l.Spec.Steps); problem != "" {
		out = append(out, Finding{LevelError, "step_order", file, line, problem,
			"make each (after …) name earlier steps that exist, with no step building on itself through others"})
	}
	if l.Lifecycle != "open" {
		return out
	}
	var twins []string
	for _, other := range ix.specsOf[l.Spec.Front.Implements] {
		if other != l && other.Spec.Front.Title == l.Spec.Front.Title {
			twins = append(twins, other.File)
		}
	}
	if len(twins) > 0 {
		slices.Sort(twins)
		out = append(out, Finding{LevelError, "planned_twice", file, fieldLine(v.fields, "title"),
			fmt.Sprintf("%s: more open specs of intent %s under the same title, as planning it on two branches leaves them", strings.Join(twins, ", "), l.Spec.Front.Implements),
			fmt.Sprintf("keep one: carry what the others hold into it, then remove them (git rm %s); or give each its own title if all are meant", strings.Join(twins, " "))})
	}
	return out
}

// lintClosedTwice names an issue a merge found closed on both sides with different reasons.
func lintClosedTwice(v loadedView) []Finding {
	s, ok := FindSection(v.sections, SectionResolution)
	if !ok || !strings.Contains(s.Body, ClosedTwiceMarker) {
		return nil
	}
	return []Finding{{LevelWarning, "closed_twice", v.l.File, s.Line,
		"the issue was closed on two branches with different reasons, and the merge kept both",
		"keep the reason that stands (or both) under ## " + SectionResolution + " and remove the marker line " + ClosedTwiceMarker + " …-->"}}
}

// LintChanged is Lint for the records a change touched: each of changed is checked whole, against
// the names of every record file (names: what ids exist, which files share one) and others, records
// read only for what the checks of the changed need (the open specs' front matter). An unchanged
// record whose reference a change broke by removing its target is left to a whole lint.
func LintChanged(changed, others []Loaded, names []string) []Finding {
	ix := indexRecords(append(slices.Clone(changed), others...))
	ix.byID = make(map[string][]string, len(names))
	for _, n := range names {
		if id, ok := IDOfFileName(n); ok {
			ix.known[id] = true
			ix.byID[id] = append(ix.byID[id], n)
		}
	}
	touched := make(map[string]bool, len(changed))
	for _, l := range changed {
		touched[l.File] = true
	}
	out := []Finding{}
	for _, f := range ix.findings {
		if touched[f.File] {
			out = append(out, f)
		}
	}
	for _, v := range ix.views {
		if !touched[v.l.File] {
			continue
		}
		out = append(out, ix.lintIDs(v)...)
		out = append(out, lintPlace(v)...)
		out = append(out, ix.lintFamily(v)...)
	}
	sortFindings(out)
	return out
}

// LintMerge adds what git says of the record beside its files: each record path git's index holds
// an unresolved merge conflict for (merge_unresolved, an error: a side's move or removal, or content,
// not yet settled), and a clone that merges the record without abcd's merge driver
// (merge_driver_missing, a warning on attributes, the .gitattributes file).
func LintMerge(findings []Finding, unmerged []string, driverMissing bool, attributes string) []Finding {
	for _, p := range unmerged {
		findings = append(findings, Finding{LevelError, "merge_unresolved", p, 0,
			"git holds an unresolved merge conflict on this record file (git status shows which side changed, moved or removed it)",
			"resolve any conflict markers in it, then run abcd record finish-merge: it marks each record whole at its path resolved, removes what both sides removed, and carries a change git paired with the wrong record into that record's own file"})
	}
	if driverMissing {
		findings = append(findings, Finding{LevelWarning, "merge_driver_missing", attributes, 0,
			"this clone merges the record's files without abcd's merge driver, so two branches' Progress lines, audits and closes conflict where they could merge",
			"run abcd ahoy install: it adds the driver to this clone's git config (and its lines to .gitattributes)"})
	}
	sortFindings(findings)
	return findings
}

// sortFindings orders findings by file, then line, then code (then message).
func sortFindings(out []Finding) {
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
	})
}

// StrayTemp is a temporary file a killed write left, as the record store found it: File from the
// repository root; Ignored when it lies where git ignores it; Staged when it lies in abcd's temporary
// folder (which git ignores once .abcd/.gitignore stands); Uninstalled when abcd ahoy install has not
// finished, so no command but the install writes.
type StrayTemp struct {
	File        string
	Ignored     bool
	Staged      bool
	Uninstalled bool
}

// LintTemps adds a stray_temp finding for each temporary file a killed write left, keeping Lint's
// order. One beside a record is an error, as `git add -A` would commit it (a whole copy of a record);
// one in abcd's git-ignored temporary folder is a warning, which the next write removes. One in that
// folder before .abcd/.gitignore exists (an install a kill interrupted) is an error git would commit,
// which the install run again removes.
func LintTemps(findings []Finding, temps []StrayTemp) []Finding {
	for _, t := range temps {
		f := Finding{Level: LevelError, Code: "stray_temp", File: t.File,
			Message: "a temporary file a killed write left; git would commit it, and it copies a record whole",
			Remedy:  "remove it: the record beside it is whole, as every write lands in one step"}
		switch {
		case t.Ignored:
			f.Level = LevelWarning
			f.Message = "a temporary file a killed write left, in abcd's git-ignored temporary folder"
			f.Remedy = "run any command that writes (the next write removes it), or remove it"
		case t.Staged:
			f.Message = "a temporary file a killed abcd ahoy install left in abcd's temporary folder, which git sees until .abcd/.gitignore is written"
			f.Remedy = "run abcd ahoy install again: it writes .abcd/.gitignore and removes this file"
		case t.Uninstalled:
			f.Remedy = "run abcd ahoy install again (it removes what a killed install left), or remove it"
		}
		findings = append(findings, f)
	}
	sortFindings(findings)
	return findings
}

// LintMergeTemps adds a stray_temp finding for each temporary file a killed merge driver left,
// keeping Lint's order: one in the git folder (Ignored) is a warning, which the next merge removes;
// one at the top of the work tree is an error, as `git add -A` would commit it (a whole copy of a
// record's merge).
func LintMergeTemps(findings []Finding, temps []StrayTemp) []Finding {
	for _, t := range temps {
		f := Finding{Level: LevelError, Code: "stray_temp", File: t.File,
			Message: "a temporary file a killed merge driver left in the work tree; git would commit it, and it copies a merged record whole",
			Remedy:  "remove it: the merge it was written for was finished or stopped by git"}
		if t.Ignored {
			f.Level = LevelWarning
			f.Message = "a temporary file a killed merge driver left in the git folder, which git never lists"
			f.Remedy = "run any merge of a record (the next one removes it), or remove it"
		}
		findings = append(findings, f)
	}
	sortFindings(findings)
	return findings
}

// LintInstall puts an install_incomplete finding first when abcd ahoy install was interrupted before
// it wrote missing (.abcd/.gitignore, .abcd/config.json): until it is run again, every command that
// writes refuses.
func LintInstall(findings []Finding, missing []string) []Finding {
	if len(missing) == 0 {
		return findings
	}
	f := Finding{Level: LevelError, Code: "install_incomplete", File: missing[0],
		Message: "abcd ahoy install did not finish: " + strings.Join(missing, " and ") + " missing; until it does, abcd writes nothing here",
		Remedy:  "run abcd ahoy install again: it makes what is missing and leaves the rest"}
	return append([]Finding{f}, findings...)
}

// LintKeeps warns of each record folder without its keep file (keepless: the keep files' paths), an
// install older than the keep files: see KeepFile.
func LintKeeps(findings []Finding, keepless []string) []Finding {
	for _, p := range keepless {
		findings = append(findings, Finding{LevelWarning, "keep_file_missing", p, 0,
			"this record folder has no keep file: when one branch moves the folder's last record out, git's merge takes the folder as renamed and puts a record another branch added to it in the wrong folder",
			"run abcd ahoy install: it adds the keep files; commit them"})
	}
	sortFindings(findings)
	return findings
}

// LintPending puts a change_pending finding first when a change a killed writer left waits in the
// journal at file: until the next writer finishes it, the record may read half changed (a record in
// two folders, read as a duplicate id), and the other findings are read in that light.
func LintPending(findings []Finding, file string) []Finding {
	f := Finding{Level: LevelError, Code: "change_pending", File: file,
		Message: "a change a killed abcd left is waiting here, not yet finished: until it is, the record may read half changed (a record in two folders shows as a duplicate id)",
		Remedy:  "run the interrupted command again, or any command that changes the record: it finishes the change first; then lint again"}
	return append([]Finding{f}, findings...)
}

// slugOfFile keeps a file's slug when renaming it to its id.
func slugOfFile(file, id string) string {
	base := strings.TrimSuffix(file[strings.LastIndexAny(file, `/\`)+1:], ".md")
	if _, ok := FamilyOfID(base[:min(len(base), idLen)]); ok {
		base = strings.TrimPrefix(base[idLen:], "-")
	}
	return Slug(base)
}
