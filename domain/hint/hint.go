// Package hint is a result's next step as data: its words, and the verb to run with its arguments or
// the file (and key in it) to change. Each front door spells a step in its own terms, as it spells a
// refusal's remedy (refusal.Renderer): the command line as the command to type, MCP as the tool to
// call with its arguments. The core holds no door's spelling.
package hint

import (
	"strconv"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// Next is one next step. Run and File are the step as data; Text is the whole step in the words of
// the door that answered, filled by that door (Spell).
type Next struct {
	// Text is the step spelled by the door that answered: a command to type on the command line, a
	// tool to call with its arguments over MCP.
	Text string `json:"text" jsonschema:"minLength=1"`
	// Run is the verb the step runs (its MCP tool name) with its arguments, when it runs one.
	Run *Run `json:"run,omitempty"`
	// File is the file the step changes, and the key or section in it, when it names one.
	File *File `json:"file,omitempty"`

	// Parts are the step's words in order, which a door spells into Text; not on the wire.
	Parts []Part `json:"-"`
}

// Run is a verb to run with its arguments, every value a string.
type Run struct {
	Verb string            `json:"verb" jsonschema:"pattern=^[a-z][a-z0-9_]*$"`
	Args map[string]string `json:"args"`
	// Fill names the arguments the person or agent fills in; their value in Args is a placeholder,
	// <what goes there>.
	Fill []string `json:"fill"`
}

// File is a file to change (absolute, or relative to the repository root), and the key or section
// in it ("" for the file as a whole).
type File struct {
	Path string `json:"path" jsonschema:"minLength=1"`
	Key  string `json:"key,omitempty"`
}

// Part is one piece of a step's words: text, the invocation, a field of a verb's input, or the file
// (the step's File).
type Part struct {
	Text  string
	Run   *refusal.Invocation
	Field *refusal.FieldRef
	File  bool
}

// Arg is one argument of the step's verb.
type Arg = refusal.Arg

// With is an argument with a known value.
func With(name, value string) Arg { return refusal.With(name, value) }

// Flag is a boolean argument set: the command line spells it as its flag alone, the data as "true".
func Flag(name string) Arg { return refusal.With(name, true) }

// Hole is an argument the person or agent fills in; what says what goes there.
func Hole(name, what string) Arg { return refusal.Hole(name, what) }

// Invocation is the verb a step runs, with its arguments.
type Invocation struct{ inv refusal.Invocation }

// Do is the verb to run with its arguments.
func Do(verb string, args ...Arg) Invocation {
	return Invocation{refusal.Invocation{Verb: verb, Args: args}}
}

// FileRef is the file a step changes, and the key or section in it.
type FileRef struct{ File }

// At is a file to change, and the key or section in it ("" for none).
func At(path, key string) FileRef { return FileRef{File{Path: path, Key: key}} }

// Say is a next step from words (string), at most one invocation (Do), at most one file (At) and
// fields of a verb's input (refusal.Field), read in order. A second invocation or file is a
// programming error, written out in words so it shows.
func Say(parts ...any) Next {
	var n Next
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			if x != "" {
				n.Parts = append(n.Parts, Part{Text: x})
			}
		case Invocation:
			if n.Run != nil {
				n.Parts = append(n.Parts, Part{Text: "(a second verb: " + x.inv.Verb + ")"})
				continue
			}
			inv := x.inv
			n.Run = runOf(inv)
			n.Parts = append(n.Parts, Part{Run: &inv})
		case FileRef:
			if n.File != nil {
				n.Parts = append(n.Parts, Part{Text: x.Path})
				continue
			}
			f := x.File
			n.File = &f
			n.Parts = append(n.Parts, Part{File: true})
		case refusal.FieldRef:
			n.Parts = append(n.Parts, Part{Field: &x})
		default:
			n.Parts = append(n.Parts, Part{Text: "(a part of unknown kind)"})
		}
	}
	return n
}

// runOf is an invocation as data: every value as its string, the placeholders named in Fill.
func runOf(inv refusal.Invocation) *Run {
	r := &Run{Verb: inv.Verb, Args: map[string]string{}, Fill: []string{}}
	for _, a := range inv.Args {
		var v string
		switch x := a.Value.(type) {
		case string:
			v = x
		case bool:
			v = strconv.FormatBool(x)
		}
		if a.Placeholder {
			v = "<" + v + ">"
			r.Fill = append(r.Fill, a.Name)
		}
		r.Args[a.Name] = v
	}
	return r
}

// Spelled is the step with its Text spelled through r.
func (n Next) Spelled(r refusal.Renderer) Next {
	n.Text = n.render(r)
	return n
}

// String is the step spelled in no door's terms, for logs and tests.
func (n Next) String() string { return n.render(refusal.Plain) }

func (n Next) render(r refusal.Renderer) string {
	var words []any
	for _, p := range n.Parts {
		switch {
		case p.Run != nil:
			words = append(words, *p.Run)
		case p.Field != nil:
			words = append(words, *p.Field)
		case p.File && n.File != nil:
			words = append(words, n.File.Path)
		default:
			words = append(words, p.Text)
		}
	}
	return refusal.Say(words...).Render(r)
}
