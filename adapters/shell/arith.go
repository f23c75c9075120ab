package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// Bash evaluates text as arithmetic in more places than $(( )): a variable named in arithmetic is
// evaluated in turn, an array subscript is arithmetic, and the name given to unset, read, printf
// -v, test -v, [[ -v ]] or a declare -i variable's value may carry one. A $(...) inside such text
// runs: x='a[$(rm -rf ~)]'; (( x )) removes the home folder. The guard reads that text as the
// arithmetic it is.

// arith reads text bash evaluates as arithmetic, when it can run a command.
func (w *walker) arith(text string, sc scope, how string) {
	if !strings.Contains(text, "$(") && !strings.Contains(text, "`") {
		return
	}
	if _, err := parse("(( " + text + " ))"); err == nil {
		w.line("(( "+text+" ))", sc.child(sc.via, how))
		return
	}
	// not an expression the parser takes: its substitutions run all the same
	doc, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(text))
	if err != nil {
		w.opaque(sc.child(sc.via, how), how+" "+text, "")
		return
	}
	inner := sc.child(sc.via, how)
	inner.src = text
	w.substs(doc, inner)
}

// arithNames reads the variables arithmetic names: each one's value is evaluated as arithmetic
// too, so a value the line set that holds a $(...) runs it.
func (w *walker) arithNames(n syntax.Node, sc scope) {
	if !sc.st.codeInValues() {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		name := ""
		switch x := node.(type) {
		case *syntax.ParamExp:
			if x.Param != nil {
				name = x.Param.Value
			}
		case *syntax.Lit:
			name = x.Value
		case *syntax.CmdSubst:
			return false
		}
		if !wordexp.ValidName(name) {
			return true
		}
		if v, ok := sc.st.lookup(name); ok && len(v.Words) > 0 {
			if t, known := v.Words[0].Text(); known && !w.arithSeen[t] {
				// each value once: a value naming itself would otherwise be read without end
				if w.arithSeen == nil {
					w.arithSeen = map[string]bool{}
				}
				w.arithSeen[t] = true
				w.arith(t, sc, "arithmetic "+name)
			}
		}
		return true
	})
}

// codeInValues reports whether any variable the line set holds a command substitution as text.
func (s *state) codeInValues() bool {
	for _, v := range s.vars {
		for _, wd := range v.Words {
			for _, p := range wd.Parts {
				if !p.Hole && (strings.Contains(p.Text, "$(") || strings.Contains(p.Text, "`")) {
					return true
				}
			}
		}
	}
	return false
}

// arithmetic reports a node bash evaluates as arithmetic: $(( )), (( )), let, and [[ ]]'s
// numeric comparisons.
func arithmetic(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
		return true
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			return true
		}
	}
	return false
}

// namedSubscripts reads the names a builtin is given whose subscript bash evaluates: unset's,
// read's, mapfile's and the variable printf -v and test -v name.
func (w *walker) namedSubscripts(c *cmdCall, base string) {
	args := c.words[1:]
	var names []guard.Word
	switch base {
	case "unset", "read", "mapfile", "readarray", "wait":
		for _, a := range args {
			if t, _ := a.Text(); !strings.HasPrefix(t, "-") {
				names = append(names, a)
			}
		}
	case "printf", "test", "[":
		flag := "-v"
		names = argv.Values(args, flag)
	}
	for _, n := range names {
		if t, ok := n.Text(); ok && strings.Contains(t, "[") {
			w.arith(t, c.sc, base+" "+t)
		}
	}
}
