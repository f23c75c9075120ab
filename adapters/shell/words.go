package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// word reads one shell word: literal and quoted text as known parts, expansions as holes. The
// command substitutions inside it run, so they are walked as commands too.
func (w *walker) word(wd *syntax.Word, sc scope) guard.Word {
	var out guard.Word
	if wd == nil {
		return out
	}
	for _, p := range wd.Parts {
		w.part(p, sc, false, &out)
	}
	if len(out.Parts) == 0 {
		out.Parts = []guard.Part{{Text: "", Quoted: true}}
	}
	return out
}

func (w *walker) part(p syntax.WordPart, sc scope, quoted bool, out *guard.Word) {
	if !w.tick() {
		return
	}
	add := func(part guard.Part) {
		n := len(out.Parts)
		// Adjacent known text of the same quoting is one part, so a split spelling ("r"m) reads whole.
		if n > 0 && !part.Hole && !out.Parts[n-1].Hole && out.Parts[n-1].Quoted == part.Quoted {
			out.Parts[n-1].Text += part.Text
			return
		}
		out.Parts = append(out.Parts, part)
	}
	switch x := p.(type) {
	case *syntax.Lit:
		if quoted {
			add(guard.Part{Text: unescapeDouble(x.Value), Quoted: true})
		} else {
			add(guard.Part{Text: unescapeBare(x.Value)})
		}
	case *syntax.SglQuoted:
		v := x.Value
		if x.Dollar {
			v = ansiC(v)
		}
		add(guard.Part{Text: v, Quoted: true})
	case *syntax.DblQuoted:
		if len(x.Parts) == 0 {
			add(guard.Part{Text: "", Quoted: true})
		}
		for _, in := range x.Parts {
			w.part(in, sc, true, out)
		}
	case *syntax.ParamExp:
		name := ""
		if x.Param != nil {
			name = x.Param.Value
		}
		if x.Length || x.Excl || x.Repl != nil || x.Slice != nil || x.Index != nil {
			name = ""
		}
		w.substs(x, sc)
		add(guard.Part{Hole: true, Var: name})
	case *syntax.CmdSubst:
		w.stmts(x.Stmts, sc.with("$(…)"))
		add(guard.Part{Hole: true, From: strings.Join(callNames(x), " ")})
	case *syntax.ProcSubst:
		w.stmts(x.Stmts, sc.with("<(…)"))
		add(guard.Part{Hole: true, From: "process substitution"})
	case *syntax.ArithmExp:
		w.substs(x, sc)
		add(guard.Part{Hole: true})
	case *syntax.ExtGlob:
		add(guard.Part{Text: x.Op.String() + x.Pattern.Value + ")"})
	default:
		w.substs(p, sc)
		add(guard.Part{Hole: true})
	}
}

// unescapeBare is an unquoted word's text: a backslash keeps the next character literal.
func unescapeBare(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble is double-quoted text: a backslash escapes only $ ` " \ and a newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes $'...' text.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j < i+1+width && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
