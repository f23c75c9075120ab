package record

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// The value types below are what a verb takes from a person: each checks itself when a front door
// decodes input into it (UnmarshalText) and describes itself to the schema generator (SchemaRule),
// so the CLI, MCP and the published schema refuse the same value the same way, with the same code.
// A refusal from them names no verb or field: the decoder adds the field it was decoding.

// Ref names one record: a full id, a unique prefix of one (at least 5 characters), or a slug
// fragment. Matching it against the record is ResolveRef's job; this is the shape of a ref.
type Ref string

// UnmarshalText keeps the ref as written (ResolveRef trims and folds case) once it has a ref's shape.
func (r *Ref) UnmarshalText(b []byte) error {
	s := string(b)
	if why := refShape(s); why != "" {
		return refusal.New(refusal.CodeRefInvalid, "", why,
			"give a record id, a unique prefix of one (at least 5 characters, such as itd-2611) or a slug fragment")
	}
	*r = Ref(s)
	return nil
}

// refShape says why s is not a ref: the rules of ResolveRef's badRef, and no leading dot, dash or
// tilde (a ref never names a place on disk or an option).
func refShape(s string) string {
	if why := badRef(s); why != "" {
		return "is not a record ref: " + why
	}
	switch t := strings.TrimSpace(s); t[0] {
	case '.', '-', '~':
		return fmt.Sprintf("is not a record ref: it starts with %q", t[:1])
	}
	return ""
}

func (Ref) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a record id, a unique prefix of one, or a slug fragment",
		MinLength: 1, MaxLength: MaxRefBytes, Pattern: `^[^/\\]*$`}
}

// Title is a record's title: one line of plain text, trimmed (the title rule, title.go).
type Title string

// UnmarshalText refuses a title the rule refuses (title_empty, title_too_long, title_invalid) and
// keeps it trimmed.
func (t *Title) UnmarshalText(b []byte) error {
	s, err := checkLine(string(b), "title", `give a short title in quotes, e.g. "Faster cold start"`)
	if err != nil {
		return err
	}
	*t = Title(s)
	return nil
}

func (Title) SchemaRule() contract.Rule {
	return titleRule("one line of plain text, 1 to 200 characters, with no control, bidirectional-control or zero-width character; white space at either end is trimmed", false)
}

// lineCodes are the refusal codes of the title rule for a title and for a source.
var lineCodes = map[string]map[titleFault]refusal.Code{
	"title":  {titleEmpty: refusal.CodeTitleEmpty, titleLong: refusal.CodeTitleTooLong, titleHidden: refusal.CodeTitleInvalid},
	"source": {titleEmpty: refusal.CodeSourceEmpty, titleLong: refusal.CodeSourceTooLong, titleHidden: refusal.CodeSourceInvalid},
}

// checkLine applies the title rule to s as typed, and returns it trimmed.
func checkLine(s, what string, example string) (string, error) {
	fault, detail := checkTitleText(s, false)
	code := lineCodes[what][fault]
	switch fault {
	case titleEmpty:
		return "", refusal.New(code, "", "the "+what+" is empty", example)
	case titleLong:
		return "", refusal.New(code, "", fmt.Sprintf("the %s is %s; at most %d", what, detail, MaxTitleRunes),
			"shorten it; put detail in the record's sections")
	case titleHidden:
		return "", refusal.New(code, "", "the "+what+" holds "+detail, "use plain text on one line")
	}
	return strings.TrimSpace(s), nil
}

// Source names who or what noticed an issue: one line of plain text, trimmed.
type Source string

// UnmarshalText checks the source by the title rule (source_empty, source_too_long,
// source_invalid) and keeps it trimmed.
func (s *Source) UnmarshalText(b []byte) error {
	v, err := checkLine(string(b), "source", "name who or what noticed it in plain text")
	if err != nil {
		return err
	}
	*s = Source(v)
	return nil
}

func (Source) SchemaRule() contract.Rule {
	return titleRule("who or what noticed it: one line of plain text, 1 to 200 characters, with no control, bidirectional-control or zero-width character; white space at either end is trimmed", false)
}

// MaxNoteBytes bounds the text of a capture and the reason an issue is closed.
const MaxNoteBytes = 4096

// Note is text a person adds to a record's body: an issue's capture, an issue's close reason. It is
// trimmed; it may hold several lines, but not a record's own section headings, an unclosed code
// fence, or hidden characters.
type Note string

// UnmarshalText checks the note (text_invalid; text_empty when there is nothing).
func (n *Note) UnmarshalText(b []byte) error {
	v, err := checkNote(string(b), noteText)
	if err != nil {
		return err
	}
	*n = Note(v)
	return nil
}

func (Note) SchemaRule() contract.Rule {
	return contract.Rule{Description: "plain text, several lines allowed, at most 4096 bytes", MinLength: 1, MaxLength: MaxNoteBytes}
}

// Reason is why an issue is closed: a Note, with its own codes (why_empty, why_invalid).
type Reason string

// UnmarshalText checks the reason like a note.
func (r *Reason) UnmarshalText(b []byte) error {
	v, err := checkNote(string(b), noteWhy)
	if err != nil {
		return err
	}
	*r = Reason(v)
	return nil
}

func (Reason) SchemaRule() contract.Rule {
	return contract.Rule{Description: "why the issue is closed: plain text, several lines allowed, at most 4096 bytes", MinLength: 1, MaxLength: MaxNoteBytes}
}

// noteRule is what a note's refusals say: its codes, and the example an empty one gives.
type noteRule struct {
	empty, invalid refusal.Code
	example        string
}

var (
	noteText = noteRule{refusal.CodeTextEmpty, refusal.CodeTextInvalid, `say what you noticed in quotes, e.g. "the status line flickers on resize"`}
	noteWhy  = noteRule{refusal.CodeWhyEmpty, refusal.CodeWhyInvalid, `say why in quotes, e.g. "fixed in 1a2b3c4"`}
)

func checkNote(s string, rule noteRule) (string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", refusal.New(rule.empty, "", "no text was given", rule.example)
	}
	if len(t) > MaxNoteBytes {
		return "", refusal.New(rule.invalid, "", fmt.Sprintf("the text is %d bytes; at most %d", len(t), MaxNoteBytes), "shorten it")
	}
	if p := text.BlockProblem(t); p != "" {
		return "", refusal.New(rule.invalid, "", "the text holds "+p, "use plain text")
	}
	if err := CheckBody(t); err != nil {
		return "", refusal.New(rule.invalid, "", err.Error(),
			"rephrase it; a record's body cannot hold its own section headings or an unclosed code fence")
	}
	return t, nil
}

// Severity is how bad an issue or an intent's problem is.
type Severity string

// UnmarshalText refuses anything but a severity (severity_unknown).
func (s *Severity) UnmarshalText(b []byte) error {
	v := string(b)
	if !slices.Contains(Severities(), v) {
		return refusal.New(refusal.CodeSeverityUnknown, "", fmt.Sprintf("%s is not a severity", quoteClip(v)), "use one of "+strings.Join(Severities(), ", "))
	}
	*s = Severity(v)
	return nil
}

func (Severity) SchemaRule() contract.Rule {
	return contract.Rule{Description: "critical, major, minor or trivial", Enum: Severities()}
}

// Lifecycle is a lifecycle folder's name. Which ones a family has is the verb's to check.
type Lifecycle string

// AllLifecycles lists every family's lifecycles once, in the record's order.
func AllLifecycles() []string {
	var out []string
	for _, f := range Folders() {
		if f.Lifecycle != "" && !slices.Contains(out, f.Lifecycle) {
			out = append(out, f.Lifecycle)
		}
	}
	return out
}

// UnmarshalText refuses a name no family's lifecycle has (lifecycle_unknown).
func (l *Lifecycle) UnmarshalText(b []byte) error {
	v := string(b)
	if !slices.Contains(AllLifecycles(), v) {
		return refusal.New(refusal.CodeLifecycleUnknown, "", fmt.Sprintf("%s is not a lifecycle", quoteClip(v)),
			"use one of "+strings.Join(AllLifecycles(), ", "))
	}
	*l = Lifecycle(v)
	return nil
}

func (Lifecycle) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a lifecycle folder: " + strings.Join(AllLifecycles(), ", "), Enum: AllLifecycles()}
}

// quoteClip quotes what a person wrote for a message, clipped.
func quoteClip(s string) string { return fmt.Sprintf("%q", text.Clip(s)) }
