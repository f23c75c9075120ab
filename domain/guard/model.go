// Package guard reads a command line the way the shell will run it and decides whether an agent may
// run it: allow, warn (it runs, with a message) or block (with why, the rule and a safer command).
// It holds the neutral command model a shell reader fills, the rule registry and its strict decoding,
// matching and the verdict. It is pure: no I/O, no clock, no randomness.
package guard

import "strings"

// Part is a piece of one word: literal text, or a hole whose value the reader cannot know (a
// variable, a command's output).
type Part struct {
	Text string
	// Quoted is true for text that came from quotes, where glob characters and a leading ~ are
	// literal.
	Quoted bool
	Hole   bool
	// Var names the variable a hole reads ($HOME is HOME); From names the command whose output a hole
	// is ($(pgrep node) is pgrep; a find -exec {} is find; xargs' appended words are the command
	// feeding the pipe).
	Var  string
	From string
	// Output is what reading the word yields, for a process substitution whose output the reader
	// knows (bash <(echo ...)), as a word that may hold unknown parts; nil otherwise.
	Output *Word
	// Reads are what a hole's value was made from, as far as the reader can tell: the files the
	// commands printing it read (cat FILE, base64 FILE, < FILE) and the variables whose values went
	// into it (echo $TOKEN | base64), so that a secret is known wherever its copy goes.
	Reads []Source
}

// Source is one thing a value was made from: the content of a file, as its path was written, or
// the value of a variable.
type Source struct {
	File Word
	Var  string
}

// Sources are what a word's value is made from: the variables its holes read and what each hole's
// value was made from.
func (w Word) Sources() []Source {
	var out []Source
	for _, p := range w.Parts {
		if !p.Hole {
			continue
		}
		if p.Var != "" {
			out = append(out, Source{Var: p.Var})
		}
		out = append(out, p.Reads...)
	}
	return out
}

// Word is one argument as the shell passes it.
type Word struct{ Parts []Part }

// Lit is a word whose whole value is known text.
func Lit(s string) Word { return Word{Parts: []Part{{Text: s}}} }

// HoleWord is a word whose value is unknown, the output of from when from is not empty.
func HoleWord(from string) Word { return Word{Parts: []Part{{Hole: true, From: from}}} }

// Known reports whether every part's value is known.
func (w Word) Known() bool {
	for _, p := range w.Parts {
		if p.Hole {
			return false
		}
	}
	return true
}

// Text is the word's value when it is known.
func (w Word) Text() (string, bool) {
	if len(w.Parts) == 1 && !w.Parts[0].Hole {
		return w.Parts[0].Text, true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Hole {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), true
}

// AllHole reports a word that is nothing but unknown values (and at least one).
func (w Word) AllHole() bool {
	holes := 0
	for _, p := range w.Parts {
		if !p.Hole && p.Text != "" {
			return false
		}
		if p.Hole {
			holes++
		}
	}
	return holes > 0
}

// String shows the word as a person would read it: holes as $NAME or $(cmd).
func (w Word) String() string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch {
		case !p.Hole:
			b.WriteString(p.Text)
		case p.Var != "":
			b.WriteString("$" + p.Var)
		case p.From != "":
			b.WriteString("$(" + p.From + " …)")
		default:
			b.WriteString("$(…)")
		}
	}
	return b.String()
}

// prefix is the known text before the first hole.
func (w Word) prefix() string {
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Hole {
			break
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Assign is NAME=value set for one command (before it, or through env).
type Assign struct {
	Name  string
	Value Word
}

// Redirect is an output redirection: > >> >| &> and their fd forms.
type Redirect struct {
	Op     string
	Target Word
}

// CdStep is one change of directory earlier in the same line that is in force for a command.
type CdStep struct {
	// Target is where cd goes; Home is true for a bare cd (which goes home).
	Target Word
	Home   bool
	// Sure is true when the command runs only if the cd succeeded (cd x && cmd); a cd joined by ;
	// may fail and leave the line where it was.
	Sure bool
}

// Command is one command the line runs, after wrappers (sudo, env, timeout, ...) are set aside.
type Command struct {
	// Name is the command as run; its base name (rm for /bin/rm) is what rules name.
	Name      Word
	Args      []Word
	Env       []Assign
	Redirects []Redirect
	Cd        []CdStep
	// Depth is how many executed strings deep it was found (bash -c '...' is 1).
	Depth int
	// Via is the path it was reached by: the wrappers and executed strings around it, outermost first.
	Via []string
	// Opaque is a command whose text cannot be known: eval "$X", bash -c "$CMD", curl ... | sh. Its
	// one argument, when the reader knows where the text comes from, is a hole from those commands.
	Opaque bool
	// Spawns is a call of a function the line defines that calls itself in the background or in a
	// pipe: each call starts two more (a fork bomb).
	Spawns bool
	// Stdin is what the command reads on its standard input, as far as the reader can tell: known
	// text (a heredoc, echo ... |), or one hole naming the commands feeding it and what they read;
	// no parts when nothing on the line feeds it.
	Stdin Word
	// Remote is a command another machine runs (ssh host CMD): its paths are that machine's.
	Remote bool
	// Text is the command as written, for the verdict.
	Text string
}

// Base is the name rules match: the last path element of a known name, or "" when it is unknown.
func (c Command) Base() string {
	name, ok := c.Name.Text()
	if !ok {
		// $DIR/rm and $(which rm) still run the program named rm
		if n := len(c.Name.Parts); n > 0 && !c.Name.Parts[n-1].Hole {
			last := c.Name.Parts[n-1].Text
			if i := strings.LastIndexByte(last, '/'); i >= 0 && i < len(last)-1 {
				return last[i+1:]
			}
		}
		return ""
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// Line is everything one command line runs, as a reader found it.
type Line struct {
	Commands []Command
	// Home is the folder ~ and $HOME stand for, when the reader knows it.
	Home string
	// Refused is why the line could not be read within the reader's bounds (too large, too deep, not
	// shell): such a line is blocked with this reason, never allowed unread.
	Refused string
	// Holds are the files the line writes from other files or variables (cp a b, tar czf b a,
	// cmd > b), by path as written, and what each was made from: sending b is sending those.
	Holds map[string][]Source
}
