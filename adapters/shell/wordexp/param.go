package wordexp

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// param reads $NAME and ${NAME...}: the value the line gave the variable, with the expansion's
// operation applied where it can be, and unknown otherwise ($HOME and $PWD stay named, so the
// guard reads them as the home folder and the folder the command runs in).
func param(sh Shell, x *syntax.ParamExp, quoted bool, ps []piece) []piece {
	sh.Walk(x)
	hole := func(name string) []piece {
		return append(ps, piece{Part: guard.Part{Hole: true, Var: name, Quoted: quoted}})
	}
	if x.Param == nil || x.Length || x.Names != 0 || x.Width || x.IsSet || x.NestedParam != nil {
		return hole("")
	}
	name := x.Param.Value
	if x.Excl {
		// ${!name}: the variable name holds
		v, ok := sh.Lookup(name)
		if !ok || len(v.Words) == 0 {
			return hole("")
		}
		t, known := v.Words[0].Text()
		if !known || !ValidName(t) {
			return hole("")
		}
		name = t
	}
	if name == "IFS" && !quoted && x.Exp == nil && x.Repl == nil {
		// $IFS unquoted is a break between words
		ifs, _ := sh.IFS()
		if x.Slice != nil && ifs != "" {
			ifs = ifs[:1]
		}
		return append(ps, piece{Part: guard.Part{Text: ifs}, split: true})
	}
	v, set := sh.Lookup(name)
	if name == "IFS" && !set {
		// an IFS the line did not set is the default, whatever is done to it (${IFS%?} is space and tab)
		v, set = Value{Words: []guard.Word{guard.Lit(" \t\n")}}, true
	}
	words := v.Words
	all := name == "@" || name == "*"
	if x.Index != nil {
		words = index(words, x.Index)
		all = isAt(x.Index)
	} else if v.Array && len(words) > 0 && !all {
		words = words[:1]
	}
	if x.Exp != nil {
		words, set = paramOp(sh, x.Exp, words, set)
	}
	if !set {
		return hole(name)
	}
	for i, val := range words {
		if x.Repl != nil || x.Slice != nil || (x.Exp != nil && isTextOp(x.Exp.Op)) {
			val = textOp(sh, x, val)
		}
		if i > 0 {
			if quoted && all {
				ps = append(ps, piece{Part: guard.Part{Text: " "}, split: true})
			} else {
				ps = append(ps, piece{Part: guard.Part{Text: " ", Quoted: quoted}, split: !quoted})
			}
		}
		ps = expanded(ps, val, quoted)
	}
	return ps
}

// index picks ${a[n]} or every element for ${a[@]} and ${a[*]}.
func index(words []guard.Word, idx syntax.ArithmExpr) []guard.Word {
	if isAt(idx) {
		return words
	}
	n, ok := arithInt(idx)
	if !ok || n < 0 || n >= len(words) {
		return []guard.Word{guard.HoleWord("")}
	}
	return words[n : n+1]
}

func isAt(idx syntax.ArithmExpr) bool {
	if wd, ok := idx.(*syntax.Word); ok {
		l := wd.Lit()
		return l == "@" || l == "*"
	}
	return false
}

// arithInt is an arithmetic expression that is a plain integer (or a negated one).
func arithInt(e syntax.ArithmExpr) (int, bool) {
	switch x := e.(type) {
	case *syntax.Word:
		n, err := strconv.Atoi(x.Lit())
		return n, err == nil
	case *syntax.UnaryArithm:
		if x.Op == syntax.Minus {
			n, ok := arithInt(x.X)
			return -n, ok
		}
	case *syntax.ParenArithm:
		return arithInt(x.X)
	}
	return 0, false
}

// paramOp applies ${x:-word} and its kin to whether the variable is set.
func paramOp(sh Shell, e *syntax.Expansion, words []guard.Word, set bool) ([]guard.Word, bool) {
	empty := set && len(words) == 1 && isEmpty(words[0])
	alt := func() []guard.Word {
		if e.Word == nil {
			return []guard.Word{guard.Lit("")}
		}
		return []guard.Word{Unsplit(sh, e.Word)}
	}
	switch e.Op {
	case syntax.DefaultUnset, syntax.AssignUnset:
		if !set {
			// the line never set it: the default is what runs, unless the environment holds it
			return alt(), true
		}
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		if !set || empty {
			return alt(), true
		}
	case syntax.AlternateUnset:
		if set {
			return alt(), true
		}
		return nil, false
	case syntax.AlternateUnsetOrNull:
		if set && !empty {
			return alt(), true
		}
		return nil, false
	}
	return words, set
}

func isEmpty(w guard.Word) bool {
	t, ok := w.Text()
	return ok && t == ""
}

func isTextOp(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix,
		syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		return true
	}
	return false
}

// textOp applies a replacement, a slice, a prefix or suffix removal or a case change to a known
// value; an unknown value stays unknown.
func textOp(sh Shell, x *syntax.ParamExp, v guard.Word) guard.Word {
	t, ok := v.Text()
	if !ok {
		return guard.HoleWord("")
	}
	switch {
	case x.Repl != nil:
		orig, ok1 := Unsplit(sh, x.Repl.Orig).Text()
		with := ""
		if x.Repl.With != nil {
			var ok2 bool
			if with, ok2 = Unsplit(sh, x.Repl.With).Text(); !ok2 {
				return guard.HoleWord("")
			}
		}
		if !ok1 {
			return guard.HoleWord("")
		}
		return guard.Lit(replacePattern(t, orig, with, x.Repl.All))
	case x.Slice != nil:
		off, ok := arithInt(x.Slice.Offset)
		if !ok {
			return guard.HoleWord("")
		}
		r := []rune(t)
		if off < 0 {
			off = max(0, len(r)+off)
		}
		off = min(off, len(r))
		end := len(r)
		if x.Slice.Length != nil {
			n, ok := arithInt(x.Slice.Length)
			if !ok {
				return guard.HoleWord("")
			}
			if n < 0 {
				end = max(off, len(r)+n)
			} else {
				end = min(len(r), off+n)
			}
		}
		return guard.Lit(string(r[off:end]))
	}
	pat := ""
	if x.Exp.Word != nil {
		p, ok := Unsplit(sh, x.Exp.Word).Text()
		if !ok {
			return guard.HoleWord("")
		}
		pat = p
	}
	switch x.Exp.Op {
	case syntax.UpperAll:
		return guard.Lit(strings.ToUpper(t))
	case syntax.LowerAll:
		return guard.Lit(strings.ToLower(t))
	case syntax.UpperFirst, syntax.LowerFirst:
		if t == "" {
			return v
		}
		r, n := utf8.DecodeRuneInString(t)
		first := strings.ToUpper(string(r))
		if x.Exp.Op == syntax.LowerFirst {
			first = strings.ToLower(string(r))
		}
		return guard.Lit(first + t[n:])
	}
	return guard.Lit(removeAffix(t, pat, x.Exp.Op))
}
