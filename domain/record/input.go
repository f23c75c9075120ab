package record

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
		return refusal.New("ref_invalid", "", why,
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

// MaxTitleBytes bounds a title a person gives.
const MaxTitleBytes = 200

// Title is a record's title: one line of plain text, trimmed.
type Title string

// UnmarshalText trims the title and refuses one that is empty, too long, or holds what a line may
// not (invalid UTF-8, control, bidirectional-control or zero-width characters).
func (t *Title) UnmarshalText(b []byte) error {
	s, err := checkLine(string(b), "title", MaxTitleBytes, `give a short title in quotes, e.g. "Faster cold start"`)
	if err != nil {
		return err
	}
	*t = Title(s)
	return nil
}

func (Title) SchemaRule() contract.Rule {
	return contract.Rule{Description: "one line of plain text, at most 200 bytes", MinLength: 1, MaxLength: MaxTitleBytes}
}

// checkLine trims s and refuses it empty, over max bytes, or holding what a line may not. Codes are
// <what>_empty, <what>_too_long and <what>_invalid.
func checkLine(s, what string, max int, example string) (string, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return "", refusal.New(what+"_empty", "", "the "+what+" is empty", example)
	case len(t) > max:
		return "", refusal.New(what+"_too_long", "", fmt.Sprintf("the %s is %d bytes; at most %d", what, len(t), max),
			"shorten it; put detail in the record's sections")
	}
	if p := text.LineProblem(t); p != "" {
		return "", refusal.New(what+"_invalid", "", "the "+what+" holds "+p, "use plain text on one line")
	}
	return t, nil
}

// Source names who or what noticed an issue: one line of plain text, trimmed.
type Source string

// UnmarshalText trims and checks the source like a title.
func (s *Source) UnmarshalText(b []byte) error {
	v, err := checkLine(string(b), "source", MaxTitleBytes, "name who or what noticed it in plain text")
	if err != nil {
		return err
	}
	if utf8.RuneCountInString(v) > MaxTitleRunes {
		return refusal.New("source_too_long", "", fmt.Sprintf("the source is %d characters; at most %d", utf8.RuneCountInString(v), MaxTitleRunes),
			"shorten it")
	}
	*s = Source(v)
	return nil
}

func (Source) SchemaRule() contract.Rule {
	return contract.Rule{Description: "who or what noticed it: one line of plain text", MinLength: 1, MaxLength: MaxTitleBytes}
}

// MaxNoteBytes bounds the text of a capture and the reason an issue is closed.
const MaxNoteBytes = 4096

// Note is text a person adds to a record's body: an issue's capture, an issue's close reason. It is
// trimmed; it may hold several lines, but not a record's own section headings, an unclosed code
// fence, or hidden characters.
type Note string

// UnmarshalText checks the note (text_invalid; text_empty when there is nothing).
func (n *Note) UnmarshalText(b []byte) error {
	v, err := checkNote(string(b), "text")
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
	v, err := checkNote(string(b), "why")
	if err != nil {
		return err
	}
	*r = Reason(v)
	return nil
}

func (Reason) SchemaRule() contract.Rule {
	return contract.Rule{Description: "why the issue is closed: plain text, several lines allowed, at most 4096 bytes", MinLength: 1, MaxLength: MaxNoteBytes}
}

func checkNote(s, what string) (string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		example := `say why in quotes, e.g. "fixed in 1a2b3c4"`
		if what == "text" {
			example = `say what you noticed in quotes, e.g. "the status line flickers on resize"`
		}
		return "", refusal.New(what+"_empty", "", "no text was given", example)
	}
	if len(t) > MaxNoteBytes {
		return "", refusal.New(what+"_invalid", "", fmt.Sprintf("the text is %d bytes; at most %d", len(t), MaxNoteBytes), "shorten it")
	}
	if p := text.BlockProblem(t); p != "" {
		return "", refusal.New(what+"_invalid", "", "the text holds "+p, "use plain text")
	}
	if err := CheckBody(t); err != nil {
		return "", refusal.New(what+"_invalid", "", err.Error(),
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
		return refusal.New("severity_unknown", "", fmt.Sprintf("%s is not a severity", quoteClip(v)), "use one of "+strings.Join(Severities(), ", "))
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
		return refusal.New("lifecycle_unknown", "", fmt.Sprintf("%s is not a lifecycle", quoteClip(v)),
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
