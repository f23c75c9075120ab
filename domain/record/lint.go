package record

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	fields    []Field
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
//   - duplicate_id (error): several files carry one id; one finding per file, naming the others.
//   - wrong_folder (error): the front matter's lifecycle is not the folder's, or the file name does
//     not start with the front matter's id.
//   - broken_reference (error): a spec's implements, an issue's related or a decision's supersedes
//     names an id no record has (ids in the names of malformed files count as existing).
//   - no_criteria (error; a warning in drafts): an intent with no acceptance criterion.
//   - no_steps (error; a warning while the spec is open): a spec with no step.
//   - step_order (error): a step builds on itself, on a step that does not exist, or the steps
//     build on each other in a cycle.
//   - unwritten (warning): an intent outside drafts whose Press Release is unwritten.
//   - shipped_with_open_spec (warning): a shipped intent with a spec in the open folder.
//   - record_symlink (error): the record file is a symbolic link, which abcd neither reads nor writes.
//   - stray_temp (LintTemps): a temporary file a killed write left.
//   - change_pending (LintPending): a change a killed writer left in the journal, not yet finished.
func Lint(records []Loaded) []Finding {
	out := []Finding{}
	add := func(level, code, file string, line int, msg, remedy string) {
		out = append(out, Finding{Level: level, Code: code, File: file, Line: line, Message: msg, Remedy: remedy})
	}
	views := make([]loadedView, 0, len(records))
	known := make(map[string]bool, len(records))
	byID := make(map[string][]string, len(records))
	for k := range records {
		l := &records[k]
		v, ok := view(l)
		if !ok {
			if id, ok := IDOfFileName(l.File); ok {
				known[id] = true
			}
			err := l.Err
			if err == nil {
				err = errors.New("no parsed record was loaded")
			}
			var pe *ParseError
			if re, ok := refusal.As(err); ok && re.Code == "record_symlink" {
				add(LevelError, "record_symlink", l.File, 0, re.Why, re.Remedy.String())
			} else if errors.As(err, &pe) {
				add(LevelError, "malformed", l.File, pe.Line, pe.Problem, pe.Remedy)
			} else {
				add(LevelError, "malformed", l.File, 0, err.Error(), "fix the file, or remove it")
			}
			continue
		}
		views = append(views, v)
		known[v.id] = true
		byID[v.id] = append(byID[v.id], l.File)
	}

	specsOf := make(map[string][]*Loaded) // intent id → open specs (by folder)
	for _, v := range views {
		if v.l.Family == Specs && v.l.Lifecycle == "open" {
			specsOf[v.l.Spec.Front.Implements] = append(specsOf[v.l.Spec.Front.Implements], v.l)
		}
	}

	for _, v := range views {
		l, file := v.l, v.l.File
		idLine := fieldLine(v.fields, "id")
		if files := byID[v.id]; len(files) > 1 {
			others := make([]string, 0, len(files)-1)
			for _, f := range files {
				if f != file {
					others = append(others, f)
				}
			}
			slices.Sort(others)
			if len(others) > 0 {
				add(LevelError, "duplicate_id", file, idLine,
					fmt.Sprintf("id %s is also carried by %s", v.id, strings.Join(others, ", ")),
					"give one of them a new id (rename the file and its id: line together), then fix references to it")
			}
		}
		if l.Family != Decisions && v.lifecycle != l.Lifecycle {
			remedy := fmt.Sprintf("set lifecycle: %s (the folder is the lifecycle)", l.Lifecycle)
			if dir, ok := FolderOf(l.Family, v.lifecycle); ok {
				remedy += ", or move the file to " + dir.Dir
			}
			add(LevelError, "wrong_folder", file, fieldLine(v.fields, "lifecycle"),
				fmt.Sprintf("lifecycle %s in the %s folder", v.lifecycle, l.Lifecycle), remedy)
		}
		if id, ok := IDOfFileName(file); !ok || id != v.id {
			add(LevelError, "wrong_folder", file, idLine,
				fmt.Sprintf("the file name does not start with its id %s", v.id),
				fmt.Sprintf("rename the file to %s", FileName(v.id, slugOfFile(file, v.id))))
		}
		ref := func(key string, ids []string) {
			for _, id := range ids {
				if !known[id] {
					add(LevelError, "broken_reference", file, fieldLine(v.fields, key),
						fmt.Sprintf("%s names %s, which no record has", key, id),
						fmt.Sprintf("correct the id in %s, or remove it", key))
				}
			}
		}
		switch l.Family {
		case Intents:
			i := l.Intent
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
				add(level, "no_criteria", file, line, "the intent has no acceptance criterion",
					fmt.Sprintf("under ## %s, write at least one line as - ac-1: Given <context>, when <action>, then <outcome>", SectionCriteria))
			}
			if l.Lifecycle != "drafts" {
				if s, ok := FindSection(i.Sections, SectionPressRelease); !ok || !Written(s) {
					add(LevelWarning, "unwritten", file, s.Line, fmt.Sprintf("a %s intent whose ## %s is unwritten", l.Lifecycle, SectionPressRelease),
						fmt.Sprintf("write the ## %s section", SectionPressRelease))
				}
			}
			if l.Lifecycle == "shipped" {
				for _, s := range specsOf[i.Front.ID] {
					add(LevelWarning, "shipped_with_open_spec", file, fieldLine(v.fields, "lifecycle"),
						fmt.Sprintf("the intent is shipped but its spec %s is open (%s)", s.Spec.Front.ID, s.File),
						fmt.Sprintf("run abcd spec close %s, or move the intent back by hand if it has not shipped", s.Spec.Front.ID))
				}
			}
		case Specs:
			ref("implements", []string{l.Spec.Front.Implements})
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
				add(level, "no_steps", file, line, "the spec has no step",
					fmt.Sprintf("under ## %s, write the steps as a numbered list: 1. text", SectionSteps))
			}
			if problem, line := StepOrderProblem(l.Spec.Steps); problem != "" {
				add(LevelError, "step_order", file, line, problem,
					"make each (after …) name earlier steps that exist, with no step building on itself through others")
			}
		case Issues:
			ref("related", l.Issue.Front.Related)
		case Decisions:
			ref("supersedes", l.Decision.Front.Supersedes)
		}
	}
	sortFindings(out)
	return out
}

// sortFindings orders findings by file, then line, then code (then message).
func sortFindings(out []Finding) {
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
	})
}

// StrayTemp is a temporary file a killed write left, as the record store found it: File from the
// repository root; Ignored when it lies where git ignores it.
type StrayTemp struct {
	File    string
	Ignored bool
}

// LintTemps adds a stray_temp finding for each temporary file a killed write left, keeping Lint's
// order. One beside a record is an error, as `git add -A` would commit it (a whole copy of a record);
// one in abcd's git-ignored temporary folder is a warning, which the next write removes.
func LintTemps(findings []Finding, temps []StrayTemp) []Finding {
	for _, t := range temps {
		f := Finding{Level: LevelError, Code: "stray_temp", File: t.File,
			Message: "a temporary file a killed write left; git would commit it, and it copies a record whole",
			Remedy:  "remove it: the record beside it is whole, as every write lands in one step"}
		if t.Ignored {
			f.Level = LevelWarning
			f.Message = "a temporary file a killed write left, in abcd's git-ignored temporary folder"
			f.Remedy = "run any command that writes (the next write removes it), or remove it"
		}
		findings = append(findings, f)
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
