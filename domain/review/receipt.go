package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxCommits bounds the commits one receipt may list.
const MaxCommits = 200

// commitID is a full commit id: SHA-1 (40 hex) or SHA-256 (64 hex), lowercase as git prints it.
var commitID = pattern.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// DoD is the definition-of-done command the implementer ran, its exit code and where its output is.
type DoD struct {
	Command  string `json:"command" jsonschema:"minLength=1,maxLength=1024"`
	ExitCode int    `json:"exit_code"`
	// Output is a file holding the command's output, relative to the lane folder.
	Output string `json:"output" jsonschema:"minLength=1,maxLength=1024"`
}

// ImplementerReceipt is what the implementer hands back: the commits it made on the lane's branch,
// the definition-of-done run, its report, and the model that did the work; or, with blocked, the step
// handed back and why.
type ImplementerReceipt struct {
	SchemaVersion int    `json:"schema_version"`
	Run           string `json:"run" jsonschema:"minLength=1,maxLength=64"`
	Lane          string `json:"lane" jsonschema:"minLength=1,maxLength=64"`
	Branch        string `json:"branch" jsonschema:"minLength=1,maxLength=255"`
	// Commits are full commit ids, 40 hex characters (or 64 in a SHA-256 repository): the commits the
	// implementer made on the lane's branch. Required unless blocked is given; a blocked receipt lists
	// the commits it made, if any.
	Commits []string `json:"commits,omitempty" jsonschema:"minItems=1,maxItems=200,uniqueItems=true,pattern=^[0-9a-f]{40}([0-9a-f]{24})?$"`
	// DoD is the definition-of-done run; its exit code must be 0 unless blocked is given.
	DoD DoD `json:"dod"`
	// Report is a file holding the implementer's report, relative to the lane folder.
	Report string `json:"report" jsonschema:"minLength=1,maxLength=1024"`
	Model  string `json:"model" jsonschema:"minLength=1,maxLength=200"`
	// Blocked hands the step back instead of delivering it: why the implementer cannot finish it (a
	// definition of done it cannot make pass, a step that cannot be done as written). The lane is
	// handed back with this reason, and the lanes that build on it with it; the run goes on with the
	// others.
	Blocked string `json:"blocked,omitempty" jsonschema:"minLength=1,maxLength=2000"`
}

// MaxBlockedChars bounds a receipt's blocked reason, in characters.
const MaxBlockedChars = 2000

// DecodeImplementerReceipt reads an implementer's receipt: strict JSON of at most MaxReceiptBytes,
// with every member present, typed and within its bounds; 1 to 200 distinct full commit ids; a
// definition-of-done exit code of 0; output and report paths that stay inside the lane folder.
// Every problem is named at once. Whether the run, lane, branch and commits are true is for the
// caller to say, with CheckReceiptFacts; so the caller can name those problems with these, the
// receipt is returned as far as it decoded even with an error (the zero receipt when it is not one
// JSON object at all).
func DecodeImplementerReceipt(data []byte) (ImplementerReceipt, error) {
	var p problems
	if !strict("the receipt", data, MaxReceiptBytes, &p) {
		return ImplementerReceipt{}, p.err()
	}
	var r ImplementerReceipt
	var rawCommits, rawDoD json.RawMessage
	got := decodeObjectOptional(data, "the receipt", "", []field{
		{"schema_version", &r.SchemaVersion, "the number 1"},
		{"run", &r.Run, "a string, the run's id"},
		{"lane", &r.Lane, "a string, the lane's id"},
		{"branch", &r.Branch, "a string, the lane's branch"},
		{"commits", &rawCommits, "an array of the lane's full commit ids"},
		{"dod", &rawDoD, "an object with command, exit_code and output"},
		{"report", &r.Report, "a string, the report file relative to the lane folder"},
		{"model", &r.Model, "a string, the model that did the work"},
		{"blocked", &r.Blocked, "a string, why the step is handed back"},
	}, []string{"commits", "blocked"}, &p)
	if got["blocked"] {
		checkLength("blocked", r.Blocked, MaxBlockedChars, &p)
	}
	if got["schema_version"] && r.SchemaVersion != ReturnVersion {
		p.add("\"schema_version\" is %d; this abcd reads version %d: write \"schema_version\": %d", r.SchemaVersion, ReturnVersion, ReturnVersion)
	}
	for _, s := range []struct {
		name, value string
		max         int
	}{{"run", r.Run, 64}, {"lane", r.Lane, 64}, {"branch", r.Branch, 255}, {"model", r.Model, 200}} {
		if got[s.name] {
			checkLength(s.name, s.value, s.max, &p)
		}
	}
	switch {
	case got["commits"]:
		r.Commits = decodeCommits(rawCommits, &p)
	case r.Blocked == "":
		p.add("the receipt has no \"commits\": add it as an array of the lane's full commit ids (or, to hand the step back, say why in \"blocked\")")
	}
	if got["dod"] {
		r.DoD = decodeDoD(rawDoD, r.Blocked != "", &p)
	}
	if got["report"] {
		checkLanePath("report", r.Report, &p)
	}
	return r, p.err()
}

// ValidCommitID reports whether s is a full commit id as git prints it.
func ValidCommitID(s string) bool { return commitID.MatchString(s) }

// LanePathOK reports whether a receipt's file name stays inside the lane folder (checkLanePath
// finds nothing wrong with it).
func LanePathOK(s string) bool {
	var p problems
	checkLanePath("path", s, &p)
	return len(p) == 0
}

// JoinProblems is every problem of the given errors in one *ReturnError, in order; nil when none is
// one. An error that is not a *ReturnError is returned as it is, first.
func JoinProblems(errs ...error) error {
	var all problems
	for _, err := range errs {
		if err == nil {
			continue
		}
		var re *ReturnError
		if !errors.As(err, &re) {
			return err
		}
		all = append(all, re.Problems...)
	}
	return all.err()
}

// checkLength refuses an empty (or blank) value or one longer than max characters.
func checkLength(name, value string, max int, p *problems) {
	if strings.TrimSpace(value) == "" {
		p.add("%q is empty: write it", name)
	} else if n := utf8.RuneCountInString(value); n > max {
		p.add("%q is %d characters, more than %d: shorten it", name, n, max)
	}
}

func decodeCommits(raw json.RawMessage, p *problems) []string {
	elems, ok := decodeArray(raw, "commits", "an array of the lane's full commit ids", p)
	if !ok {
		return nil
	}
	switch {
	case len(elems) == 0:
		p.add("\"commits\" is empty: list the commits the lane made, from 1 to %d", MaxCommits)
	case len(elems) > MaxCommits:
		p.add("\"commits\" lists %d commits, more than %d: a lane's change must fit in %d commits", len(elems), MaxCommits, MaxCommits)
	}
	out := make([]string, 0, len(elems))
	first := map[string]int{}
	for i, e := range elems {
		var c string
		at := fmt.Sprintf("commits[%d]", i)
		if !decodeValue(e, &c) {
			p.add("%q must be a string, a full commit id; it is %s", at, describe(e))
			continue
		}
		out = append(out, c)
		if !commitID.MatchString(c) {
			p.add("%s %q is not a full commit id: write the 40 (or 64) lowercase hex characters git rev-parse prints", at, text.Clip(c))
			continue
		}
		if j, dup := first[c]; dup {
			p.add("%s repeats commits[%d] (%s): list each commit once", at, j, c)
			continue
		}
		first[c] = i
	}
	return out
}

// decodeDoD reads the receipt's definition-of-done run; a blocked receipt may report one that failed.
func decodeDoD(raw json.RawMessage, blocked bool, p *problems) DoD {
	var d DoD
	got := decodeObject(raw, "\"dod\"", "dod.", []field{
		{"command", &d.Command, "a string, the definition-of-done command as run"},
		{"exit_code", &d.ExitCode, "a whole number, the command's exit code"},
		{"output", &d.Output, "a string, the output file relative to the lane folder"},
	}, p)
	if got["command"] {
		checkLength("dod.command", d.Command, 1024, p)
	}
	if got["exit_code"] && d.ExitCode != 0 && !blocked {
		p.add("the definition-of-done command %q exited %d: a lane is done only when it exits 0; fix what fails, run it again and hand back a new receipt (or, if you cannot make it pass, hand the step back: say why in \"blocked\")", text.Clip(d.Command), d.ExitCode)
	}
	if got["output"] {
		checkLanePath("dod.output", d.Output, p)
	}
	return d
}

// checkLanePath refuses a file name that could leave the lane folder or is not a plain relative
// path: empty, too long, absolute, with a drive letter, a backslash, a ".." segment or a control
// character, or naming the folder itself.
func checkLanePath(name, value string, p *problems) {
	const max = 1024
	const remedy = "name a file inside the lane folder, relative to it, with / between folders"
	if value == "" {
		p.add("%q is empty: %s", name, remedy)
		return
	}
	if n := utf8.RuneCountInString(value); n > max {
		p.add("%q is %d characters, more than %d: %s", name, n, max, remedy)
	}
	if strings.ContainsFunc(value, unicode.IsControl) {
		p.add("%q %q has a control character: %s", name, text.Clip(value), remedy)
	}
	if strings.Contains(value, `\`) {
		p.add("%q %q has a backslash: %s", name, text.Clip(value), remedy)
	}
	if strings.HasPrefix(value, "/") {
		p.add("%q %q is an absolute path: %s", name, text.Clip(value), remedy)
	} else if len(value) >= 2 && value[1] == ':' && ('a' <= value[0]|0x20 && value[0]|0x20 <= 'z') {
		p.add("%q %q starts with a drive letter: %s", name, text.Clip(value), remedy)
	}
	if slices.Contains(strings.Split(value, "/"), "..") {
		p.add("%q %q has a \"..\" segment: %s", name, text.Clip(value), remedy)
	} else if path.Clean(value) == "." {
		p.add("%q %q names the lane folder itself, not a file: %s", name, text.Clip(value), remedy)
	}
}

// ReceiptFacts are what only the caller can know about a receipt: the run, lane and branch it was
// awaited for, and what git and the filesystem say. Nil slices and empty problems mean "fine".
type ReceiptFacts struct {
	Run, Lane, Branch string
	// Unreachable lists the receipt's commits not reachable from the lane branch.
	Unreachable []string
	// FromBase lists the receipt's commits already reachable from the base.
	FromBase []string
	// OutputProblem and ReportProblem say what is wrong with the file, e.g. "is a symlink" or
	// "does not exist"; "" when it is a regular file inside the lane folder.
	OutputProblem, ReportProblem string
}

// CheckReceiptFacts names every gap between a decoded receipt and the facts, in a *ReturnError, or
// returns nil. Run, lane and branch are always compared, so a fact left empty fails closed.
func CheckReceiptFacts(r ImplementerReceipt, f ReceiptFacts) error {
	var p problems
	for _, m := range []struct{ name, got, want string }{
		{"run", r.Run, f.Run}, {"lane", r.Lane, f.Lane}, {"branch", r.Branch, f.Branch},
	} {
		// A receipt that names nothing here was refused for that by its decoding already.
		if m.got != m.want && (m.got != "" || m.want == "") {
			p.add("the receipt names the %s %q, but it was awaited for %q: write \"%s\": %q", m.name, text.Clip(m.got), m.want, m.name, m.want)
		}
	}
	for _, c := range f.Unreachable {
		p.add("the commit %s is not reachable from the lane branch %q: commit the work on that branch, or remove the id", text.Clip(c), f.Branch)
	}
	for _, c := range f.FromBase {
		p.add("the commit %s is already reachable from the base: list only the commits the lane made", text.Clip(c))
	}
	if f.OutputProblem != "" {
		p.add("the definition-of-done output %q %s: write the command's output to a regular file inside the lane folder", text.Clip(r.DoD.Output), f.OutputProblem)
	}
	if f.ReportProblem != "" {
		p.add("the report %q %s: write the report to a regular file inside the lane folder", text.Clip(r.Report), f.ReportProblem)
	}
	return p.err()
}

// ReturnVersion is the schema_version of the JSON an agent hands back: the implementer's receipt
// and the auditor's return.
const ReturnVersion = 1

func (ImplementerReceipt) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(ReturnVersion)}
}
