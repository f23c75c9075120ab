package record

import (
	"fmt"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/internal/frontmatter"
)

// Limits on what the parsers accept. A reader bounds its read of a whole record by MaxFileBytes (+1,
// to detect an oversize file); a listing that needs only the front matter reads HeaderReadBytes.
const (
	MaxFileBytes   = 256 << 10
	MaxHeaderBytes = 8 << 10
	// HeaderReadBytes is enough of a file's start for ParseHeader to see any header within
	// MaxHeaderBytes together with its closing line's ending.
	HeaderReadBytes = MaxHeaderBytes + 2
)

// ParseError is a refusal of one record file. Line is 1-based; 0 means the file as a whole (its
// size). Msg is Problem and Remedy joined: what is wrong, then what to do about it.
type ParseError struct {
	File    string
	Line    int
	Msg     string
	Problem string // what is wrong
	Remedy  string // what to change
}

// Error is "<file>:<line>: <msg>"; without a file (SetLifecycle and AppendToSection, whose callers
// know it) "line <line>: <msg>", or just the message for line 0.
func (e *ParseError) Error() string {
	switch {
	case e.File != "":
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func newParseError(file string, line int, problem, remedy string) *ParseError {
	return &ParseError{File: file, Line: line, Msg: problem + ": " + remedy, Problem: problem, Remedy: remedy}
}

const fence = "---"

// family rules: the keys of each family's front matter, in canonical order, and which are lists.
var familyKeys = map[Family][]string{
	Intents:   {"id", "type", "title", "lifecycle", "kind", "severity", "created"},
	Specs:     {"id", "type", "title", "lifecycle", "implements", "created"},
	Issues:    {"id", "type", "title", "lifecycle", "severity", "source", "related", "created"},
	Decisions: {"id", "type", "title", "date", "supersedes"},
}

var (
	kinds      = []string{"standalone", "bundle-member", "discipline"}
	severities = []string{"critical", "major", "minor", "trivial"}
)

// Keys lists a family's front matter keys in canonical order; every one is required exactly once.
func Keys(f Family) []string { return append([]string(nil), familyKeys[f]...) }

// Kinds lists the intent kinds.
func Kinds() []string { return append([]string(nil), kinds...) }

// Severities lists the severities of intents and issues, most severe first.
func Severities() []string { return append([]string(nil), severities...) }

// CheckTitle refuses a title (or an issue source) a record cannot hold: the title rule as stored
// (title.go). Callers trim what a person typed before checking.
func CheckTitle(title string) error {
	if p, r, ok := checkFree("title", title); !ok {
		return fmt.Errorf("%s: %s", p, r)
	}
	return nil
}

// checkFree applies the title rule, as stored, to a front matter member.
func checkFree(key, v string) (problem, remedy string, ok bool) {
	switch fault, detail := checkTitleText(v, true); fault {
	case titleHidden:
		return key + " holds " + detail, "remove it: a " + key + " is one line of plain text", false
	case titleEmpty:
		return key + " is empty", "write one", false
	case titleEdges:
		return key + " has leading or trailing white space", "remove it", false
	case titleLong:
		return key + " is " + detail + " long", fmt.Sprintf("shorten it to at most %d", MaxTitleRunes), false
	}
	return "", "", true
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// header is a parsed front matter block.
type header struct {
	family Family
	fields []frontmatter.Field // in file order
	size   int                 // bytes through the closing line's ending
	close  int                 // line number of the closing ---
}

func (h *header) field(key string) *frontmatter.Field {
	for i := range h.fields {
		if h.fields[i].Key == key {
			return &h.fields[i]
		}
	}
	return nil
}

// parseHeader reads and checks the front matter of a record of family f at the start of data. Only
// the header's own bytes are looked at.
func parseHeader(f Family, file string, data []byte) (header, *ParseError) {
	keys, ok := familyKeys[f]
	if !ok {
		return header{}, newParseError(file, 0, fmt.Sprintf("unknown record family %q", f), "use intents, specs, issues or decisions")
	}
	b, fe := frontmatter.Read(data, frontmatter.Spec{Noun: TypeOf(f), Keys: keys, Lists: []string{"related", "supersedes"},
		MaxBytes: MaxHeaderBytes, Check: func(fd frontmatter.Field) (string, string, bool) { return checkField(f, fd) }})
	h := header{family: f, fields: b.Fields, size: b.Size, close: b.Close}
	if fe != nil {
		return h, newParseError(file, fe.Line, fe.Problem, fe.Remedy)
	}
	// Cross-key rules.
	id := h.field("id").Value
	for _, k := range []string{"related", "supersedes"} {
		if fd := h.field(k); fd != nil {
			for _, v := range fd.List {
				if v == id {
					return h, newParseError(file, fd.Line, k+" names the record's own id "+id, "remove it")
				}
			}
		}
	}
	return h, nil
}

// checkField applies a key's type rule to its value.
func checkField(f Family, fd frontmatter.Field) (problem, remedy string, ok bool) {
	v := fd.Value
	switch fd.Key {
	case "id":
		if g, ok := FamilyOfID(v); !ok || g != f {
			return fmt.Sprintf("id %q is not %s id", v, article(TypeOf(f))), fmt.Sprintf("write %s- and sixteen digits, as the file name starts (%s)", Prefix(f), exampleID(f)), false
		}
	case "type":
		if v != TypeOf(f) {
			remedy := "write type: " + TypeOf(f)
			if g, ok := FamilyOfType(v); ok {
				remedy += ", or move the file to a " + string(g) + " folder"
			}
			return fmt.Sprintf("type %q where this file must be %s", v, article(TypeOf(f))), remedy, false
		}
	case "title", "source":
		return checkFree(fd.Key, v)
	case "lifecycle":
		if !hasLifecycle(f, v) || v == "" {
			return fmt.Sprintf("lifecycle %q is not %s lifecycle", v, article(TypeOf(f))), "write one of " + strings.Join(lifecycles[f], ", ") + " (the name of the folder the file is in)", false
		}
	case "kind":
		if !oneOf(v, kinds) {
			return fmt.Sprintf("kind %q is not allowed", v), "write one of " + strings.Join(kinds, ", "), false
		}
	case "severity":
		if !oneOf(v, severities) {
			return fmt.Sprintf("severity %q is not allowed", v), "write one of " + strings.Join(severities, ", "), false
		}
	case "created", "date":
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return fmt.Sprintf("%s %q is not a date", fd.Key, v), "write it as YYYY-MM-DD, such as 2026-07-01", false
		}
	case "implements":
		if g, ok := FamilyOfID(v); !ok || g != Intents {
			return fmt.Sprintf("implements %q is not an intent id", v), "write the full id of the intent this spec builds, such as " + exampleID(Intents), false
		}
	case "related", "supersedes":
		want := Family("")
		if fd.Key == "supersedes" {
			want = Decisions
		}
		for i, item := range fd.List {
			if g, ok := FamilyOfID(item); !ok || (want != "" && g != want) {
				what := "a record id"
				if want != "" {
					what = "a decision id"
				}
				return fmt.Sprintf("%s item %q is not %s", fd.Key, item, what), "write full ids, such as " + exampleID(orFamily(want, Issues)), false
			}
			for _, prev := range fd.List[:i] {
				if prev == item {
					return fmt.Sprintf("%s lists %s twice", fd.Key, item), "remove one", false
				}
			}
		}
	}
	return "", "", true
}

func orFamily(f, def Family) Family {
	if f == "" {
		return def
	}
	return f
}

func exampleID(f Family) string { return Prefix(f) + "-2607011230051234" }

func article(noun string) string {
	if noun != "" && strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an " + noun
	}
	return "a " + noun
}

// decode builds the family's typed front matter from checked fields.
func (h *header) decode() any {
	get := func(k string) string { return h.field(k).Value }
	switch h.family {
	case Intents:
		return IntentFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Lifecycle: get("lifecycle"), Kind: get("kind"), Severity: get("severity"), Created: get("created")}
	case Specs:
		return SpecFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Lifecycle: get("lifecycle"), Implements: get("implements"), Created: get("created")}
	case Issues:
		return IssueFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Lifecycle: get("lifecycle"), Severity: get("severity"), Source: get("source"), Related: h.field("related").List, Created: get("created")}
	default:
		return DecisionFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Date: get("date"), Supersedes: h.field("supersedes").List}
	}
}

// ParseHeader reads only the front matter of a record of family f: bounded by MaxHeaderBytes, with no
// look at the body, so data may be just the file's first HeaderReadBytes. It returns the typed front
// matter (IntentFrontMatter, SpecFrontMatter, IssueFrontMatter or DecisionFrontMatter, by value) and
// the header's byte length through the closing --- line's ending.
func ParseHeader(f Family, file string, data []byte) (any, int, error) {
	h, pe := parseHeader(f, file, data)
	if pe != nil {
		return nil, 0, pe
	}
	return h.decode(), h.size, nil
}
