package shell

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// fields reads a word as a command's arguments: wordexp expands it, in sc.
func (w *walker) fields(wd *syntax.Word, sc scope) []guard.Word {
	return wordexp.Fields(wordShell{w: w, sc: sc}, wd)
}

// word reads a word that is never split (an assignment's value, a redirection's target).
func (w *walker) word(wd *syntax.Word, sc scope) guard.Word {
	return wordexp.Unsplit(wordShell{w: w, sc: sc}, wd)
}

// wordShell is the walker in one scope as wordexp sees it: the variables the line set, and the
// substitutions inside a word walked as commands (a quiet walker reads their output only).
type wordShell struct {
	w  *walker
	sc scope
}

func (s wordShell) Lookup(name string) (wordexp.Value, bool) { return s.sc.st.lookup(name) }

func (s wordShell) IFS() (string, bool) { return s.sc.st.ifs() }

func (s wordShell) Substitute(stmts []*syntax.Stmt, via string) wordexp.Output {
	if !s.w.quietly {
		s.w.stmts(stmts, s.sc.sub().with(via))
	}
	out := s.w.output(stmts, s.sc.sub())
	if out.hasWord() {
		return wordexp.Output{Word: out.word, Known: true}
	}
	return wordexp.Output{From: out.from, Reads: out.reads}
}

func (s wordShell) Walk(n syntax.Node) { s.w.substs(n, s.sc) }

func (s wordShell) Tick() bool { return s.w.tick() }
