// Package refusal is the one shape every front door uses to say no: what was refused, why, and the
// remedy. Use cases return *Error; front doors render it as text or as the refusal document.
//
// A refusal is door-neutral. When it is about a verb's input it names the verb and the field as
// data, and its remedy is words and invocations (a verb with its arguments) as data; each front door
// spells them its own way (the CLI as a command line, MCP as a tool and its arguments), so the core
// never holds one door's spelling.
package refusal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
)

// Kind says which exit code a refusal maps to and whether trying again may help.
type Kind string

const (
	// Refused: bad input or a rule said no. Nothing was written. Exit 2.
	Refused Kind = "refused"
	// Contention: a lock is held or a run is paused; trying again later may work. Exit 3.
	Contention Kind = "contention"
	// Fault: something unexpected broke. Exit 1.
	Fault Kind = "fault"
)

// Kinds lists every kind, in the order of their exit codes' rarity: refused (2), contention (3),
// fault (1).
func Kinds() []Kind { return []Kind{Refused, Contention, Fault} }

// ExitCode is the process exit code for a kind.
func (k Kind) ExitCode() int {
	switch k {
	case Refused:
		return 2
	case Contention:
		return 3
	default:
		return 1
	}
}

// Error is a refusal a use case returns. Code is a stable snake_case identifier for machines; What,
// Why and Remedy are for people. None of them may carry a secret.
type Error struct {
	Kind Kind
	Code Code
	// What names the thing refused in words (a record id, a file). When it is empty, Verb and Field
	// name it: the verb's input field, or the verb itself when Field is empty.
	What  string
	Verb  string
	Field string
	Why   string
	// Remedy is what to do about it: words and invocations, spelled by the front door.
	Remedy Remedy
}

func (e *Error) Error() string {
	what := e.subject(Plain)
	if len(e.Remedy) == 0 {
		return fmt.Sprintf("%s: %s", what, e.Why)
	}
	return fmt.Sprintf("%s: %s (%s)", what, e.Why, e.Remedy.Render(Plain))
}

func (e *Error) subject(r Renderer) string {
	if e.What != "" || e.Verb == "" {
		return e.What
	}
	return r.Subject(e.Verb, e.Field)
}

// On makes the verb (and the input field, if any) the thing a refusal is about, in place of What.
func (e *Error) On(verb, field string) *Error {
	e.What, e.Verb, e.Field = "", verb, field
	return e
}

// New is a refusal of kind Refused. The remedy is any mix of words (strings), invocations (Run)
// and field references (Field), read in order.
func New(code Code, what, why string, remedy ...any) *Error {
	return &Error{Kind: Refused, Code: code, What: what, Why: why, Remedy: Say(remedy...)}
}

// Busy is a refusal of kind Contention.
func Busy(code Code, what, why string, remedy ...any) *Error {
	return &Error{Kind: Contention, Code: code, What: what, Why: why, Remedy: Say(remedy...)}
}

// As finds a refusal in err's chain.
func As(err error) (*Error, bool) {
	var r *Error
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// Invocation is a verb to run with its arguments, as data.
type Invocation struct {
	Verb string
	Args []Arg
}

// Arg is one argument of an invocation: a string, a bool, an int or a []string. A placeholder
// stands for what the person fills in, and is spelled as such by every door.
type Arg struct {
	Name        string
	Value       any
	Placeholder bool
}

// Run is an invocation of verb with args.
func Run(verb string, args ...Arg) Invocation { return Invocation{Verb: verb, Args: args} }

// With is an argument with a known value.
func With(name string, value any) Arg { return Arg{Name: name, Value: value} }

// Hole is an argument the person fills in; hint says what goes there ("spec", "title").
func Hole(name, hint string) Arg { return Arg{Name: name, Value: hint, Placeholder: true} }

// FieldRef is one input field of a verb, named in a remedy's words ("give it with --base").
type FieldRef struct{ Verb, Field string }

// Field names a verb's input field.
func Field(verb, field string) FieldRef { return FieldRef{Verb: verb, Field: field} }

// Part is one piece of a remedy: words, an invocation, or a field.
type Part struct {
	Text  string
	Run   *Invocation
	Field *FieldRef
}

// Remedy is a remedy's parts in order.
type Remedy []Part

// Say builds a remedy from words (string), invocations (Invocation) and fields (FieldRef); a
// Remedy among them is spliced in. Anything else is a programming error, written out so it shows.
func Say(parts ...any) Remedy {
	var r Remedy
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			if x != "" {
				r = append(r, Part{Text: x})
			}
		case Invocation:
			r = append(r, Part{Run: &x})
		case FieldRef:
			r = append(r, Part{Field: &x})
		case Remedy:
			r = append(r, x...)
		default:
			r = append(r, Part{Text: fmt.Sprintf("%v", x)})
		}
	}
	return r
}

// Renderer spells the door-neutral parts of a refusal in one front door's terms.
type Renderer interface {
	// Run spells an invocation with the word that asks for it ("run `abcd ...`", "call ...").
	Run(Invocation) string
	// Field spells one input field of a verb ("--base", "the base argument").
	Field(verb, field string) string
	// Subject spells the verb, or one input field of it, as the thing refused.
	Subject(verb, field string) string
}

// Render spells the remedy through r.
func (r Remedy) Render(with Renderer) string {
	var b strings.Builder
	for _, p := range r {
		switch {
		case p.Run != nil:
			b.WriteString(with.Run(*p.Run))
		case p.Field != nil:
			b.WriteString(with.Field(p.Field.Verb, p.Field.Field))
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// String is the remedy spelled door-neutrally, for logs and Error.
func (r Remedy) String() string { return r.Render(Plain) }

// Runs lists the remedy's invocations, for a test or a door that checks them.
func (r Remedy) Runs() []Invocation {
	var out []Invocation
	for _, p := range r {
		if p.Run != nil {
			out = append(out, *p.Run)
		}
	}
	return out
}

// Plain spells the parts in no door's terms: a verb and its arguments as JSON.
var Plain Renderer = plain{}

type plain struct{}

func (plain) Run(inv Invocation) string {
	if len(inv.Args) == 0 {
		return "run " + inv.Verb
	}
	return "run " + inv.Verb + " with " + ArgsJSON(inv.Args)
}

func (plain) Field(_, field string) string { return "the " + field + " argument" }

func (plain) Subject(verb, field string) string {
	if field == "" {
		return verb
	}
	return verb + " " + field
}

// ArgsJSON writes an invocation's arguments as one JSON object, in their order, a placeholder as
// "<hint>".
func ArgsJSON(args []Arg) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(plainJSON(a.Name))
		b.WriteByte(':')
		v := a.Value
		if a.Placeholder {
			v = "<" + fmt.Sprint(a.Value) + ">"
		}
		b.WriteString(plainJSON(v))
	}
	b.WriteByte('}')
	return b.String()
}

// plainJSON is v as JSON without HTML escaping: a remedy is read, and <hint> must stay legible.
func plainJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Document is the published refusal document: under --json it is the one document stdout carries when
// a verb does not return its result.
type Document struct {
	Kind     Kind   `json:"kind"`
	Code     Code   `json:"code"`
	What     string `json:"what" jsonschema:"minLength=1"`
	Why      string `json:"why" jsonschema:"minLength=1"`
	Remedy   string `json:"remedy"`
	ExitCode int    `json:"exit_code"`
}

// DocumentOf renders any error as a refusal document in no door's terms; an error that is not a
// refusal is a fault.
func DocumentOf(err error) Document { return DocumentFor(err, Plain) }

// DocumentFor renders any error as a refusal document, spelling its door-neutral parts through r.
func DocumentFor(err error, r Renderer) Document {
	e, ok := As(err)
	if !ok {
		e = &Error{Kind: Fault, Code: CodeFault, What: "abcd", Why: err.Error(),
			Remedy: Say("this is a bug or an environment problem; run again with the same input and report it if it persists")}
	}
	kind := e.Kind
	if kind == "" {
		kind = Refused
	}
	why := e.Why
	if why == "" {
		why = "no reason given"
	}
	what := e.subject(r)
	if what == "" {
		what = "abcd"
	}
	code := e.Code
	if code == "" {
		code = CodeFault // every refusal abcd makes names its code; a test holds the product to it
	}
	return Document{Kind: kind, Code: code, What: what, Why: why, Remedy: e.Remedy.Render(r), ExitCode: kind.ExitCode()}
}

func (Kind) SchemaEnum() contract.Rule { return contract.Enum(Kinds()...) }

func (Document) SchemaFields() map[string]contract.Rule {
	var exits []int
	for _, k := range Kinds() {
		exits = append(exits, k.ExitCode())
	}
	slices.Sort(exits)
	codes := contract.Rule{}
	for _, d := range Codes() {
		codes.Enum, codes.Meanings = append(codes.Enum, string(d.Code)), append(codes.Meanings, d.Meaning)
	}
	return map[string]contract.Rule{"exit_code": {Ints: exits}, "code": codes}
}
