package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// piece is one part of a word as it is built, and whether the shell splits its text into fields
// (text that came from an unquoted expansion).
type piece struct {
	guard.Part
	split bool
}

// maxFields bounds the words one shell word may expand to (brace expansion, an array, splitting); past
// it the rest is read as one unknown word.
const maxFields = 256

// fields reads one shell word the way the shell expands it in a command's arguments: braces, then
// parameters, commands and arithmetic, then splitting at $IFS. Every command substitution inside it
// runs, so it is walked as commands too.
func (w *walker) fields(wd *syntax.Word, sc scope) (out []guard.Word) {
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
			ps = w.part(p, sc, false, ps)
		}
		out = append(out, w.split(ps, sc)...)
		if len(out) > maxFields {
			return append(out[:maxFields], guard.HoleWord(""))
		}
	}
	return out
}

// word reads a shell word that is never split: an assignment's value, a redirection's target, a
// heredoc's body, a case word.
func (w *walker) word(wd *syntax.Word, sc scope) guard.Word {
	var out guard.Word
	if wd == nil {
		return out
	}
	var ps []piece
	for _, p := range wd.Parts {
		ps = w.part(p, sc, false, ps)
	}
	for _, p := range ps {
		out.Parts = addPart(out.Parts, p.Part)
	}
	if len(out.Parts) == 0 {
		out.Parts = []guard.Part{{Text: "", Quoted: true}}
	}
	return out
}

// addPart appends a part; adjacent known text of the same quoting is one part, so a split spelling
// ("r"m) reads whole.
func addPart(parts []guard.Part, p guard.Part) []guard.Part {
	n := len(parts)
	if n > 0 && !p.Hole && !parts[n-1].Hole && parts[n-1].Quoted == p.Quoted {
		parts[n-1].Text += p.Text
		return parts
	}
	return append(parts, p)
}

// split breaks the pieces into fields at the separators in split text; a word left with nothing
// (an unquoted empty value) is no word at all.
func (w *walker) split(ps []piece, sc scope) []guard.Word {
	ifs, ifsKnown := sc.st.ifs()
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
			cur.Parts = addPart(cur.Parts, p.Part)
			started = started || p.Hole || p.Quoted || p.Text != ""
			continue
		}
		if !ifsKnown {
			cur.Parts = addPart(cur.Parts, guard.Part{Hole: true})
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
			cur.Parts = addPart(cur.Parts, guard.Part{Text: string(r)})
			started = true
		}
	}
	flush()
	return out
}

// part reads one piece of a word into ps.
func (w *walker) part(p syntax.WordPart, sc scope, quoted bool, ps []piece) []piece {
	if !w.tick() {
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
			v = ansiC(v)
		}
		return append(ps, piece{Part: guard.Part{Text: v, Quoted: true}})
	case *syntax.DblQuoted:
		if len(x.Parts) == 0 {
			return append(ps, piece{Part: guard.Part{Text: "", Quoted: true}})
		}
		for _, in := range x.Parts {
			ps = w.part(in, sc, true, ps)
		}
		return ps
	case *syntax.ParamExp:
		return w.param(x, sc, quoted, ps)
	case *syntax.CmdSubst:
		if !w.quietly {
			w.stmts(x.Stmts, sc.sub().with("$(…)"))
		}
		out := w.output(x.Stmts, sc.sub())
		if out.hasWord() {
			return expanded(ps, trimNewlines(out.word), quoted)
		}
		return append(ps, piece{Part: guard.Part{Hole: true, From: out.from, Quoted: quoted}})
	case *syntax.ProcSubst:
		if !w.quietly {
			w.stmts(x.Stmts, sc.sub().with("<(…)"))
		}
		hole := guard.Part{Hole: true, From: "process substitution", Quoted: quoted}
		if out := w.output(x.Stmts, sc.sub()); out.hasWord() {
			text := textOf(out.word)
			hole.Output = &text
		} else if out.from != "" {
			hole.From = "process substitution " + out.from
		}
		return append(ps, piece{Part: hole})
	case *syntax.ArithmExp:
		w.substs(x, sc)
		return append(ps, piece{Part: guard.Part{Hole: true, Quoted: quoted}})
	case *syntax.ExtGlob:
		return append(ps, piece{Part: guard.Part{Text: x.Op.String() + x.Pattern.Value + ")", Quoted: quoted}})
	case *syntax.BraceExp:
		// a word walked again after its braces were split: read it as its first alternative
		if len(x.Elems) > 0 {
			for _, in := range x.Elems[0].Parts {
				ps = w.part(in, sc, quoted, ps)
			}
		}
		return ps
	default:
		w.substs(p, sc)
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

// param reads $NAME and ${NAME...}: the value the line gave the variable, with the expansion's
// operation applied where it can be, and unknown otherwise ($HOME and $PWD stay named, so the
// guard reads them as the home folder and the folder the command runs in).
func (w *walker) param(x *syntax.ParamExp, sc scope, quoted bool, ps []piece) []piece {
	w.substs(x, sc)
	hole := func(name string) []piece {
		return append(ps, piece{Part: guard.Part{Hole: true, Var: name, Quoted: quoted}})
	}
	if x.Param == nil || x.Length || x.Names != 0 || x.Width || x.IsSet || x.NestedParam != nil {
		return hole("")
	}
	name := x.Param.Value
	if x.Excl {
		// ${!name}: the variable name holds
		v, ok := sc.st.lookup(name)
		if !ok || len(v.words) == 0 {
			return hole("")
		}
		t, known := v.words[0].Text()
		if !known || !validName(t) {
			return hole("")
		}
		name = t
	}
	if name == "IFS" && !quoted && x.Exp == nil && x.Repl == nil {
		// $IFS unquoted is a break between words
		ifs, _ := sc.st.ifs()
		if x.Slice != nil && ifs != "" {
			ifs = ifs[:1]
		}
		return append(ps, piece{Part: guard.Part{Text: ifs}, split: true})
	}
	v, set := sc.st.lookup(name)
	if name == "IFS" && !set {
		// an IFS the line did not set is the default, whatever is done to it (${IFS%?} is space and tab)
		v, set = value{words: []guard.Word{guard.Lit(" \t\n")}}, true
	}
	words := v.words
	all := name == "@" || name == "*"
	if x.Index != nil {
		words = index(words, x.Index)
		all = isAt(x.Index)
	} else if v.array && len(words) > 0 && !all {
		words = words[:1]
	}
	if x.Exp != nil {
		words, set = w.paramOp(x.Exp, words, set, sc)
	}
	if !set {
		return hole(name)
	}
	for i, val := range words {
		if x.Repl != nil || x.Slice != nil || (x.Exp != nil && isTextOp(x.Exp.Op)) {
			val = textOp(x, val, w, sc)
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
func (w *walker) paramOp(e *syntax.Expansion, words []guard.Word, set bool, sc scope) ([]guard.Word, bool) {
	empty := set && len(words) == 1 && isEmpty(words[0])
	alt := func() []guard.Word {
		if e.Word == nil {
			return []guard.Word{guard.Lit("")}
		}
		return []guard.Word{w.word(e.Word, sc)}
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
func textOp(x *syntax.ParamExp, v guard.Word, w *walker, sc scope) guard.Word {
	t, ok := v.Text()
	if !ok {
		return guard.HoleWord("")
	}
	switch {
	case x.Repl != nil:
		orig, ok1 := w.word(x.Repl.Orig, sc).Text()
		with := ""
		if x.Repl.With != nil {
			var ok2 bool
			if with, ok2 = w.word(x.Repl.With, sc).Text(); !ok2 {
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
		p, ok := w.word(x.Exp.Word, sc).Text()
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

// removeAffix removes the shortest or longest prefix or suffix matching a shell pattern.
func removeAffix(t, pat string, op syntax.ParExpOperator) string {
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix:
		idx := []int{}
		for i := 0; i <= len(t); i++ {
			idx = append(idx, i)
		}
		if op == syntax.RemLargePrefix {
			for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
		for _, i := range idx {
			if wildMatch(pat, t[:i]) {
				return t[i:]
			}
		}
	default:
		idx := []int{}
		for i := len(t); i >= 0; i-- {
			idx = append(idx, i)
		}
		if op == syntax.RemLargeSuffix {
			for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
		for _, i := range idx {
			if wildMatch(pat, t[i:]) {
				return t[:i]
			}
		}
	}
	return t
}

// replacePattern is ${t/pat/with} (every match with all).
func replacePattern(t, pat, with string, all bool) string {
	if pat == "" {
		return t
	}
	var b strings.Builder
	for i := 0; i < len(t); {
		n := -1
		for j := len(t); j > i; j-- {
			if wildMatch(pat, t[i:j]) {
				n = j - i
				break
			}
		}
		if n < 0 {
			b.WriteByte(t[i])
			i++
			continue
		}
		b.WriteString(with)
		i += n
		if !all {
			b.WriteString(t[i:])
			return b.String()
		}
	}
	return b.String()
}

// wildMatch matches a shell pattern (* ? [...] and literal text) against all of s; * crosses /.
func wildMatch(pat, s string) bool {
	if len(pat) > 256 || len(s) > 4096 {
		return false
	}
	px, sx := 0, 0
	nextPx, nextSx := -1, -1
	for px < len(pat) || sx < len(s) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			case '[':
				if end := strings.IndexByte(pat[px+1:], ']'); end >= 0 && sx < len(s) {
					class := pat[px+1 : px+1+end]
					neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
					if neg {
						class = class[1:]
					}
					if inClass(class, s[sx]) != neg {
						px += end + 2
						sx++
						continue
					}
				}
			default:
				if c == '\\' && px+1 < len(pat) {
					c = pat[px+1]
					if sx < len(s) && s[sx] == c {
						px += 2
						sx++
						continue
					}
				} else if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

func inClass(class string, c byte) bool {
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= c && c <= class[i+2] {
				return true
			}
			i += 2
			continue
		}
		if class[i] == c {
			return true
		}
	}
	return false
}

// braceAlternatives expands a word's braces ({a,b}, {1..3}, {a..c}) into the words' parts, bounded:
// cut is true when some alternatives were left unread.
func braceAlternatives(wd *syntax.Word) (alts [][]syntax.WordPart, cut bool) {
	if hasBraceLit(wd) {
		syntax.SplitBraces(wd)
	}
	alts = [][]syntax.WordPart{nil}
	braces := 0
	for _, p := range wd.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range alts {
				alts[i] = append(alts[i], p)
			}
			continue
		}
		braces++
		var elems [][]syntax.WordPart
		if b.Sequence {
			seq, more := sequence(b)
			cut = cut || more
			for _, s := range seq {
				elems = append(elems, []syntax.WordPart{&syntax.Lit{Value: s}})
			}
		} else {
			for _, e := range b.Elems {
				if braces > maxBraces {
					cut = true
					break
				}
				sub, more := braceAlternatives(e)
				cut = cut || more
				elems = append(elems, sub...)
			}
		}
		if len(elems) == 0 {
			continue
		}
		if braces > maxBraces || len(alts)*len(elems) > maxFields {
			cut = true
			elems = elems[:1]
		}
		next := make([][]syntax.WordPart, 0, len(alts)*len(elems))
		for _, a := range alts {
			for _, e := range elems {
				next = append(next, append(append([]syntax.WordPart(nil), a...), e...))
			}
		}
		alts = next
	}
	return alts, cut
}

// maxBraces bounds the brace expressions one word's expansion reads.
const maxBraces = 16

func hasBraceLit(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// sequence is {x..y[..step]} over integers or single letters; more is true past the bound.
func sequence(b *syntax.BraceExp) (out []string, more bool) {
	if len(b.Elems) < 2 {
		return nil, false
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	step := 1
	if len(b.Elems) > 2 {
		if n, err := strconv.Atoi(b.Elems[2].Lit()); err == nil && n != 0 {
			step = max(n, -n)
		}
	}
	x, err1 := strconv.Atoi(from)
	y, err2 := strconv.Atoi(to)
	if err1 != nil || err2 != nil {
		if len(from) != 1 || len(to) != 1 {
			return nil, false
		}
		x, y = int(from[0]), int(to[0])
	}
	for i := x; (x <= y && i <= y) || (x > y && i >= y); {
		if len(out) == maxFields {
			return out, true
		}
		if err1 == nil {
			out = append(out, strconv.Itoa(i))
		} else {
			out = append(out, string(rune(i)))
		}
		if x <= y {
			i += step
		} else {
			i -= step
		}
	}
	return out, false
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

// ansiC decodes $'...' text, and echo -e's and printf's escapes.
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
			if e == '0' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '7' {
				j++ // echo -e's \0nnn
			}
			start := j
			for j < len(s) && j < start+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[start:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// validName is a shell variable name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
