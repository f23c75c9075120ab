package loop

import (
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxRunIDBytes bounds a run id.
const MaxRunIDBytes = 64

// RunID names a run: run-<digits>, lowercase letters, digits and dashes after the prefix.
type RunID string

// ValidRunID reports whether s has a run id's shape.
func ValidRunID(s string) bool {
	if !strings.HasPrefix(s, "run-") || len(s) > MaxRunIDBytes || len(s) == len("run-") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// UnmarshalText refuses anything but a run id's shape (run_invalid).
func (r *RunID) UnmarshalText(b []byte) error {
	if !ValidRunID(string(b)) {
		return refusal.New(refusal.CodeRunInvalid, "", fmt.Sprintf("%q is not a run id (run-<digits>)", text.Clip(string(b))),
			refusal.Run("implement_status"), " to list the runs")
	}
	*r = RunID(b)
	return nil
}

// UnknownRun is the one refusal of a run id that names no run in this repository, whoever finds it
// (the run store taking its lock, the loop reading its state).
func UnknownRun(run string) *refusal.Error {
	return refusal.New(refusal.CodeRunUnknown, run, "is not a run in this repository", refusal.Run("implement_status"), " to list the runs")
}

func (RunID) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a run id, run-<digits>", MinLength: 5, MaxLength: MaxRunIDBytes, Pattern: "^run-[a-z0-9-]+$"}
}

// MaxRevisionBytes bounds a revision a person names.
const MaxRevisionBytes = 255

// Revision names a commit to git: a branch, a tag, a commit id or an expression such as HEAD~3. Git
// resolves it; this is the shape that can never be read as an option or a range.
type Revision string

// UnmarshalText refuses a revision that is empty, too long, starts with a dash, holds white space,
// hidden characters or "..", the range operator (revision_invalid).
func (r *Revision) UnmarshalText(b []byte) error {
	s := string(b)
	why := ""
	switch {
	case s == "":
		why = "is empty"
	case len(s) > MaxRevisionBytes:
		why = fmt.Sprintf("is %d bytes; at most %d", len(s), MaxRevisionBytes)
	case strings.HasPrefix(s, "-"):
		why = "starts with a dash, so git would read it as an option"
	case strings.Contains(s, ".."):
		why = "holds .., a range, not one commit"
	case strings.ContainsAny(s, " \t\n\r"):
		why = "holds white space"
	default:
		if p := text.LineProblem(s); p != "" {
			why = "holds " + p
		}
	}
	if why != "" {
		return refusal.New(refusal.CodeRevisionInvalid, "", fmt.Sprintf("%q %s", text.Clip(s), why),
			"name one commit: a branch, a tag, a commit id or an expression such as HEAD~3")
	}
	*r = Revision(s)
	return nil
}

func (Revision) SchemaRule() contract.Rule {
	return contract.Rule{Description: "one commit: a branch, a tag, a commit id or an expression such as HEAD~3",
		MinLength: 1, MaxLength: MaxRevisionBytes, Pattern: `^[^- \t\n\r][^ \t\n\r]*$`}
}

// MaxReturnPathBytes bounds a return path a person or agent hands in.
const MaxReturnPathBytes = 1024

// ReturnPath is where an agent wrote its return: absolute, or relative to the repository root,
// with forward or back slashes. Which await it names is the run's to decide.
type ReturnPath string

// UnmarshalText refuses a path that is empty, too long, holds hidden characters, or climbs with
// ".." (receipt_path_invalid).
func (p *ReturnPath) UnmarshalText(b []byte) error {
	s := string(b)
	why := ""
	switch {
	case strings.TrimSpace(s) == "":
		why = "is empty"
	case len(s) > MaxReturnPathBytes:
		why = fmt.Sprintf("is %d bytes; at most %d", len(s), MaxReturnPathBytes)
	case climbs(s):
		why = "climbs out with .."
	default:
		if pr := text.LineProblem(s); pr != "" {
			why = "holds " + pr
		}
	}
	if why != "" {
		return refusal.New(refusal.CodeReceiptPathInvalid, "", fmt.Sprintf("the path %q %s", text.ClipPath(s), why),
			"give the return path an await names (", refusal.Run("implement_status"), " lists them)")
	}
	*p = ReturnPath(s)
	return nil
}

func (ReturnPath) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the return path an await names: absolute, or relative to the repository root",
		MinLength: 1, MaxLength: MaxReturnPathBytes}
}

// climbs reports a ".." segment, with either slash.
func climbs(s string) bool {
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}
