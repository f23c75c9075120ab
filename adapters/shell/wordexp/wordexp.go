// Package wordexp reads one shell word the way bash expands it into the words a command runs with:
// brace expansion, parameters with their operations, command and process substitutions, quote
// removal and splitting at $IFS. A value it cannot know until the line runs (a variable the line
// did not set, a command's output it cannot tell) is a hole in the word, named by the variable or
// the commands it comes from, never read as empty: that is what the guard needs of a word and what
// mvdan.cc/sh/v3/expand, which reads an unknown as empty, cannot give (docs/architecture.md,
// "adapters/shell: reading commands as bash does").
package wordexp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// Shell is what reading a word needs of the reader walking the line: the variables the line set
// before the word, and the commands inside the word, which run.
type Shell interface {
	// Lookup is a variable's value when the line set it.
	Lookup(name string) (Value, bool)
	// IFS is the field separators, and whether they are known.
	IFS() (string, bool)
	// Substitute walks the commands of a command or process substitution (via names which: $(…)
	// or <(…)) and gives what they print.
	Substitute(stmts []*syntax.Stmt, via string) Output
	// Walk walks the substitutions inside a node the reader does not expand itself (arithmetic, a
	// parameter expansion's operands).
	Walk(n syntax.Node)
	// Tick counts one node of the line's bound; false stops the reading.
	Tick() bool
}

// Value is a variable's value: one word, or an array's elements.
type Value struct {
	Words []guard.Word
	Array bool
}

// Output is what commands print, as far as the reader can tell: their text when Known (it may
// still hold holes), else From names the commands producing it.
type Output struct {
	Word  guard.Word
	Known bool
	From  string
	// Reads are what the output was made from, when it is not known (the files the commands read).
	Reads []guard.Source
}

// piece is one part of a word as it is built, and whether the shell splits its text into fields
// (text that came from an unquoted expansion).
type piece struct {
	guard.Part
	split bool
}

// maxFields bounds the words one shell word may expand to (brace expansion, an array, splitting); past
// it the rest is read as one unknown word.
const maxFields = 256

// Fields reads one shell word the way the shell expands it in a command's arguments: braces, then
// parameters, commands and arithmetic, then splitting at $IFS. Every command substitution inside it
// runs, so sh walks it as commands too.
func Fields(sh Shell, wd *syntax.Word) (out []guard.Word) {
	if wd == nil {
		return nil
	}
	alts, cut := braceAlternatives(wd)
	if cut {
		// braces past the bound: what the rest expands to is not read, so it is unknown
		defer func() { out = append(out, guard.HoleWord("")) }()
	}
	for _, alt := range alts {
		var ps []piece
		for _, p := range alt {
			ps = part(sh, p, false, ps)
		}
		out = append(out, split(sh, ps)...)
		if len(out) > maxFields {
			return append(out[:maxFields], guard.HoleWord(""))
		}
	}
	return out
}

// Unsplit reads a shell word that is never split: an assignment's value, a redirection's target, a
// heredoc's body, a case word.
func Unsplit(sh Shell, wd *syntax.Word) guard.Word {
	var out guard.Word
	if wd == nil {
		return out
	}
	var ps []piece
	for _, p := range wd.Parts {
		ps = part(sh, p, false, ps)
	}
	for _, p := range ps {
		out.Parts = AddPart(out.Parts, p.Part)
	}
	if len(out.Parts) == 0 {
		out.Parts = []guard.Part{{Text: "", Quoted: true}}
	}
	return out
}

// AddPart appends a part; adjacent known text of the same quoting is one part, so a split spelling
// ("r"m) reads whole.
func AddPart(parts []guard.Part, p guard.Part) []guard.Part {
	n := len(parts)
	if n > 0 && !p.Hole && !parts[n-1].Hole && parts[n-1].Quoted == p.Quoted {
		parts[n-1].Text += p.Text
		return parts
	}
	return append(parts, p)
}

// split breaks the pieces into fields at the separators in split text; a word left with nothing
// (an unquoted empty value) is no word at all.
func split(sh Shell, ps []piece) []guard.Word {
	ifs, ifsKnown := sh.IFS()
	var out []guard.Word
	var cur guard.Word
	started, pending := false, false
	flush := func() {
		if started {
			out = append(out, cur)
		}
		cur, started, pending = guard.Word{}, false, false
	}
	for _, p := range ps {
		if !p.split || p.Hole {
			if pending {
				flush()
			}
			cur.Parts = AddPart(cur.Parts, p.Part)
			started = started || p.Hole || p.Quoted || p.Text != ""
			continue
		}
		if !ifsKnown {
			cur.Parts = AddPart(cur.Parts, guard.Part{Hole: true})
			started = true
			continue
		}
		for _, r := range p.Text {
			if strings.ContainsRune(ifs, r) {
				pending = true
				continue
			}
			if pending {
				flush()
			}
			cur.Parts = AddPart(cur.Parts, guard.Part{Text: string(r)})
			started = true
		}
	}
	flush()
	return out
}

// part reads one piece of a word into ps.
func part(sh Shell, p syntax.WordPart, quoted bool, ps []piece) []piece {
	if !sh.Tick() {
		return ps
	}
	switch x := p.(type) {
	case *syntax.Lit:
		if quoted {
			return append(ps, piece{Part: guard.Part{Text: unescapeDouble(x.Value), Quoted: true}})
		}
		if strings.HasPrefix(x.Value, "\\~") {
			// an escaped ~ is a literal one, never the home folder
			return append(ps, piece{Part: guard.Part{Text: unescapeBare(x.Value), Quoted: true}})
		}
		return append(ps, piece{Part: guard.Part{Text: unescapeBare(x.Value)}})
	case *syntax.SglQuoted:
		v := x.Value
		if x.Dollar {
			v = ANSIC(v)
		}
		return append(ps, piece{Part: guard.Part{Text: v, Quoted: true}})
	case *syntax.DblQuoted:
		if len(x.Parts) == 0 {
			return append(ps, piece{Part: guard.Part{Text: "", Quoted: true}})
		}
		for _, in := range x.Parts {
			ps = part(sh, in, true, ps)
		}
		return ps
	case *syntax.ParamExp:
		return param(sh, x, quoted, ps)
	case *syntax.CmdSubst:
		out := sh.Substitute(x.Stmts, "$(…)")
		if out.Known {
			return expanded(ps, trimNewlines(out.Word), quoted)
		}
		return append(ps, piece{Part: guard.Part{Hole: true, From: out.From, Quoted: quoted, Reads: out.Reads}})
	case *syntax.ProcSubst:
		out := sh.Substitute(x.Stmts, "<(…)")
		hole := guard.Part{Hole: true, From: "process substitution", Quoted: quoted, Reads: out.Reads}
		if out.Known {
			word := out.Word
			hole.Output = &word
		} else if out.From != "" {
			hole.From = "process substitution " + out.From
		}
		return append(ps, piece{Part: hole})
	case *syntax.ArithmExp:
		sh.Walk(x)
		return append(ps, piece{Part: guard.Part{Hole: true, Quoted: quoted}})
	case *syntax.ExtGlob:
		return append(ps, piece{Part: guard.Part{Text: x.Op.String() + x.Pattern.Value + ")", Quoted: quoted}})
	case *syntax.BraceExp:
		// a word walked again after its braces were split: read it as its first alternative
		if len(x.Elems) > 0 {
			for _, in := range x.Elems[0].Parts {
				ps = part(sh, in, quoted, ps)
			}
		}
		return ps
	default:
		sh.Walk(p)
		return append(ps, piece{Part: guard.Part{Hole: true, Quoted: quoted}})
	}
}

// expanded adds a value's parts as an expansion adds them: quoted, or split and globbed.
func expanded(ps []piece, v guard.Word, quoted bool) []piece {
	for _, p := range v.Parts {
		p.Quoted = quoted
		ps = append(ps, piece{Part: p, split: !quoted && !p.Hole})
	}
	if len(v.Parts) == 0 && quoted {
		ps = append(ps, piece{Part: guard.Part{Text: "", Quoted: true}})
	}
	return ps
}

func trimNewlines(v guard.Word) guard.Word {
	parts := append([]guard.Part(nil), v.Parts...)
	for len(parts) > 0 {
		last := &parts[len(parts)-1]
		if last.Hole {
			break
		}
		last.Text = strings.TrimRight(last.Text, "\n")
		if last.Text != "" {
			break
		}
		parts = parts[:len(parts)-1]
	}
	return guard.Word{Parts: parts}
}
