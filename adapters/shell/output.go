package shell

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// input is what a command reads or a substitution yields: its text when the reader can tell what
// it is (it may still hold unknown parts), else the names of the commands producing it.
type input struct {
	word guard.Word
	has  bool
	from string
	// reads are what it was made from, when it is not known text: the files the commands writing it
	// read and the variables that went into it.
	reads []guard.Source
	// unread is the content of a file the line did not write (< FILE): nothing the guard can read
	// as code, only where it came from.
	unread bool
}

func (in *input) hasWord() bool { return in != nil && in.has }

// code is an input a shell or an interpreter could run: nil for none, or for a file's content the
// line does not know.
func (in *input) code() *input {
	if in == nil || in.unread {
		return nil
	}
	return in
}

// sources are what an input was made from: its reads, or for known text the variables and reads
// of its unknown parts.
func (in *input) sources() []guard.Source {
	if in == nil {
		return nil
	}
	if in.has {
		return in.word.Sources()
	}
	return in.reads
}

// asWord is what a command reads on standard input, as the guard's model holds it: the known text,
// or one hole naming what feeds it and what that read.
func (in *input) asWord() guard.Word {
	switch {
	case in == nil:
		return guard.Word{}
	case in.has:
		return in.word
	}
	return guard.Word{Parts: []guard.Part{{Hole: true, From: in.from, Reads: in.reads}}}
}

func known(w guard.Word) *input { return &input{word: w, has: true} }

func fromNames(names ...string) *input {
	return &input{from: strings.TrimSpace(strings.Join(names, " "))}
}

// maxReads bounds what one value is known to be made from: a long pipe of reads keeps the first.
const maxReads = 16

// addReads adds sources not already among dst, up to maxReads.
func addReads(dst, src []guard.Source) []guard.Source {
	for _, s := range src {
		if len(dst) >= maxReads {
			break
		}
		if !slices.ContainsFunc(dst, func(d guard.Source) bool { return d.Var == s.Var && d.File.String() == s.File.String() }) {
			dst = append(dst, s)
		}
	}
	return dst
}

// maxOutput bounds the text the reader follows through a pipe or a substitution.
const maxOutput = 64 << 10

// output is what a list of statements writes, as far as the reader can tell: what echo, printf,
// cat of a heredoc, pwd, basename and the like print, and what decoders (base64 -d, rev, tr, xxd
// -r) make of a known input. Anything else is named by the commands that write it.
func (w *walker) output(list []*syntax.Stmt, sc scope) *input {
	var parts []guard.Part
	var names []string
	var reads []guard.Source
	all := true
	for _, st := range list {
		o := w.stmtOutput(st, sc)
		reads = addReads(reads, o.sources())
		if o.hasWord() && all {
			parts = append(parts, o.word.Parts...)
			continue
		}
		all = false
		names = append(names, o.from)
	}
	if all {
		return known(guard.Word{Parts: parts})
	}
	out := fromNames(names...)
	out.reads = reads
	return out
}

func (w *walker) stmtOutput(st *syntax.Stmt, sc scope) *input {
	if st == nil || !w.tick() {
		return fromNames()
	}
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			left := w.stmtOutput(c.X, sc)
			right := sc
			right.stdin = left
			return w.stmtOutput(c.Y, right)
		}
		return w.output([]*syntax.Stmt{c.X, c.Y}, sc)
	case *syntax.Block:
		return w.output(c.Stmts, sc)
	case *syntax.Subshell:
		return w.output(c.Stmts, sc)
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return known(guard.Word{})
		}
		quiet := w.quiet()
		var words []guard.Word
		for _, a := range c.Args {
			words = append(words, quiet.fields(a, sc)...)
		}
		if red := quiet.redirects(st.Redirs, sc); red.stdin != nil {
			sc.stdin = red.stdin
		}
		return w.callOutput(words, sc)
	}
	if st.Cmd == nil {
		// $(< FILE) is the file's content
		if red := w.quiet().redirects(st.Redirs, sc); red.stdin != nil {
			if red.stdin.unread {
				return &input{from: "file", reads: red.stdin.reads}
			}
			return red.stdin
		}
	}
	out := fromNames(callNames(st)...)
	out.reads = sc.stdin.sources()
	return out
}

// quiet is a walker that reads words without recording their commands (the real walk does).
func (w *walker) quiet() *walker {
	return &walker{nodes: max(w.nodes, MaxNodes-10_000), quietly: true, parsed: w.parsed}
}

// passThrough are filters whose output is their input, near enough for where it came from.
var passThrough = []string{"tee", "cat", "head", "tail", "pv", "dd", "buffer", "mbuffer", "stdbuf", "sed", "awk", "grep", "cut", "sort", "uniq", "iconv", "dos2unix", "col", "fold", "fmt"}

// sameText are the filters whose output is their input's text, near enough to read it as code.
var sameText = []string{"tee", "cat", "head", "tail", "pv", "dd", "buffer", "mbuffer", "stdbuf", "sort", "uniq", "grep", "fold"}

// decoders turn a download's bytes into something else: their output still comes from it.
var decoders = []string{"base64", "base32", "basenc", "gunzip", "zcat", "gzip", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "zstd", "unzstd", "zstdcat", "lz4", "openssl", "gpg", "uudecode", "xxd", "rev", "tr", "perl", "python", "python3", "ruby", "node", "jq", "yq"}

func (w *walker) callOutput(words []guard.Word, sc scope) *input {
	out := w.callText(words, sc)
	if out.hasWord() || len(words) == 0 {
		return out
	}
	reads := outputReads(words, sc.stdin)
	if len(reads) == 0 {
		return out
	}
	tainted := *out
	tainted.reads = addReads(slices.Clone(out.reads), reads)
	tainted.unread = false
	return &tainted
}

// callText is what a command prints, as far as the reader can tell.
func (w *walker) callText(words []guard.Word, sc scope) *input {
	if len(words) == 0 {
		return known(guard.Word{})
	}
	if sc.stdin != nil && sc.stdin.unread {
		// a file's content the line does not know: what a filter makes of it is not known either
		sc.stdin = &input{from: "file", reads: sc.stdin.reads}
	}
	name, ok := words[0].Text()
	if !ok {
		return fromNames(from(sc.stdin))
	}
	base := path.Base(name)
	args := words[1:]
	switch base {
	case "echo":
		return known(echoOutput(args))
	case "printf":
		if out, ok := printfOutput(args); ok {
			return known(out)
		}
	case "pwd":
		return known(guard.Word{Parts: []guard.Part{{Hole: true, Var: "PWD"}, {Text: "\n"}}})
	case "true", ":":
		return known(guard.Word{})
	case "basename", "dirname", "realpath", "readlink":
		if out, ok := pathOutput(base, args); ok {
			return known(out)
		}
	case "ls":
		if out, ok := lsOutput(args); ok {
			return known(out)
		}
	case "which", "command", "type":
		if out, ok := whichOutput(base, args); ok {
			return known(out)
		}
	case "cat":
		if len(args) == 0 && sc.stdin != nil {
			return sc.stdin
		}
	}
	if sc.stdin.hasWord() {
		if t, ok := sc.stdin.word.Text(); ok {
			if out, ok := transform(base, args, t); ok {
				return known(guard.Lit(out))
			}
		}
	}
	if slices.Contains(passThrough, base) || slices.Contains(decoders, base) {
		switch {
		case sc.stdin.hasWord() && slices.Contains(sameText, base):
			return sc.stdin
		case sc.stdin != nil && !sc.stdin.hasWord() && sc.stdin.from != "":
			return fromNames(sc.stdin.from, base)
		}
	}
	return fromNames(base)
}

func from(in *input) string {
	if in == nil {
		return ""
	}
	return in.from
}

// echoOutput is what echo prints: its words joined by spaces and a newline (-n drops it, -e reads
// backslash escapes).
func echoOutput(args []guard.Word) guard.Word {
	newline, escapes := true, false
	for len(args) > 0 {
		t, ok := args[0].Text()
		if !ok || len(t) < 2 || t[0] != '-' || strings.Trim(t[1:], "neE") != "" {
			break
		}
		newline = newline && !strings.Contains(t, "n")
		escapes = strings.Contains(t, "e") || escapes && !strings.Contains(t, "E")
		args = args[1:]
	}
	var parts []guard.Part
	for i, a := range args {
		if i > 0 {
			parts = append(parts, guard.Part{Text: " "})
		}
		// echo ~ prints the home folder: the shell expanded it first
		for _, p := range wordexp.ExpandTilde(a).Parts {
			if escapes && !p.Hole {
				p.Text = wordexp.ANSIC(p.Text)
			}
			parts = append(parts, p)
		}
	}
	if newline {
		parts = append(parts, guard.Part{Text: "\n"})
	}
	return guard.Word{Parts: parts}
}

// printfOutput is what printf prints for a known format: %s, %b, %c, %d and %% with its
// arguments, the format repeated while arguments remain, and the format's escapes.
func printfOutput(args []guard.Word) (guard.Word, bool) {
	if t, _ := argv.FirstText(args); t == "--" {
		args = args[1:]
	}
	format, ok := argv.FirstText(args)
	if !ok || strings.HasPrefix(format, "-v") {
		return guard.Word{}, false
	}
	rest := args[1:]
	var parts []guard.Part
	for round := 0; round < 64; round++ {
		used := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				j := wordexp.EscapeEnd(format, i)
				parts = append(parts, guard.Part{Text: wordexp.ANSIC(format[i:j])})
				i = j - 1
			case c != '%' || i+1 >= len(format):
				parts = append(parts, guard.Part{Text: string(c)})
			default:
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
					j++
				}
				if j >= len(format) {
					return guard.Word{}, false
				}
				i = j
				if format[j] == '%' {
					parts = append(parts, guard.Part{Text: "%"})
					continue
				}
				arg := guard.Lit("")
				if len(rest) > 0 {
					arg, rest, used = rest[0], rest[1:], true
				}
				conv, ok := conversion(format[j], arg)
				if !ok {
					return guard.Word{}, false
				}
				parts = append(parts, conv...)
			}
		}
		if !used || len(rest) == 0 {
			break
		}
	}
	return guard.Word{Parts: parts}, true
}

// conversion is one printf conversion of arg.
func conversion(verb byte, arg guard.Word) ([]guard.Part, bool) {
	switch verb {
	case 's', 'q':
		return arg.Parts, true
	case 'b':
		var out []guard.Part
		for _, p := range arg.Parts {
			if !p.Hole {
				p.Text = wordexp.ANSIC(p.Text)
			}
			out = append(out, p)
		}
		return out, true
	case 'c':
		t, ok := arg.Text()
		switch {
		case !ok:
			return []guard.Part{{Hole: true}}, true
		case t != "":
			return []guard.Part{{Text: t[:1]}}, true
		}
		return nil, true
	case 'd', 'i', 'u', 'x', 'o', 'X':
		t, ok := arg.Text()
		n, err := strconv.ParseInt(strings.TrimSpace(t), 0, 64)
		if !ok || err != nil {
			return []guard.Part{{Hole: true}}, true
		}
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8}[verb]
		if base == 0 {
			base = 10
		}
		text := strconv.FormatInt(n, base)
		if verb == 'X' {
			text = strings.ToUpper(text)
		}
		return []guard.Part{{Text: text}}, true
	}
	return nil, false
}

// pathOutput is what basename, dirname, realpath and readlink -f print for a known path.
func pathOutput(base string, args []guard.Word) (guard.Word, bool) {
	var ops []guard.Word
	for _, a := range args {
		if t, ok := a.Text(); ok && strings.HasPrefix(t, "-") {
			continue
		}
		ops = append(ops, a)
	}
	if len(ops) == 0 {
		return guard.Word{}, false
	}
	switch base {
	case "realpath", "readlink":
		return guard.Word{Parts: append(append([]guard.Part(nil), ops[0].Parts...), guard.Part{Text: "\n"})}, true
	}
	t, ok := ops[0].Text()
	if !ok {
		if base == "dirname" {
			// the folder holding a path not known: the path, then ..
			return guard.Word{Parts: append(append([]guard.Part(nil), ops[0].Parts...), guard.Part{Text: "/..\n"})}, true
		}
		return guard.Word{}, false
	}
	if base == "basename" {
		b := path.Base(t)
		if len(ops) > 1 {
			if suf, ok := ops[1].Text(); ok {
				b = strings.TrimSuffix(b, suf)
			}
		}
		return guard.Lit(b + "\n"), true
	}
	return guard.Lit(path.Dir(t) + "\n"), true
}

// lsOutput is what ls -d prints: the names it is given, one a line.
func lsOutput(args []guard.Word) (guard.Word, bool) {
	dirs := false
	var parts []guard.Part
	for _, a := range args {
		t, ok := a.Text()
		if ok && strings.HasPrefix(t, "-") {
			dirs = dirs || strings.Contains(t, "d")
			continue
		}
		parts = append(append(parts, a.Parts...), guard.Part{Text: "\n"})
	}
	return guard.Word{Parts: parts}, dirs && len(parts) > 0
}

// whichOutput is where which, command -v and type -p find a program: a folder not known, then its
// name, so the guard still reads which program it is.
func whichOutput(base string, args []guard.Word) (guard.Word, bool) {
	lookup := base == "which"
	var name guard.Word
	for _, a := range args {
		t, ok := a.Text()
		switch {
		case ok && (t == "-v" || t == "-p" || t == "-P"):
			lookup = true
		case ok && strings.HasPrefix(t, "-"):
		case ok:
			name = a
		}
	}
	t, ok := name.Text()
	if !lookup || !ok || t == "" || strings.Contains(t, "/") {
		return guard.Word{}, false
	}
	return guard.Word{Parts: []guard.Part{{Hole: true, From: "which"}, {Text: "/" + t + "\n"}}}, true
}

// transform is what a decoder makes of known text: base64 and base32 -d, rev, tr between sets,
// xxd -r -p, and sed's s/x/y/.
func transform(base string, args []guard.Word, in string) (string, bool) {
	var flags []string
	var ops []string
	for _, a := range args {
		t, ok := a.Text()
		if !ok {
			return "", false
		}
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			flags = append(flags, t)
		} else {
			ops = append(ops, t)
		}
	}
	has := func(names ...string) bool {
		for _, f := range flags {
			if slices.Contains(names, f) {
				return true
			}
		}
		return false
	}
	switch base {
	case "base64", "openssl":
		if base == "openssl" && (len(ops) == 0 || ops[0] != "base64" && ops[0] != "enc") {
			return "", false
		}
		if !has("-d", "--decode", "-D") {
			return "", false
		}
		clean := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, in)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if out, err := enc.DecodeString(clean); err == nil {
				return string(out), true
			}
		}
	case "base32":
		if !has("-d", "--decode") {
			return "", false
		}
		clean := strings.Join(strings.Fields(in), "")
		for _, enc := range []*base32.Encoding{base32.StdEncoding, base32.StdEncoding.WithPadding(base32.NoPadding)} {
			if out, err := enc.DecodeString(clean); err == nil {
				return string(out), true
			}
		}
	case "rev":
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
			r := []rune(l)
			slices.Reverse(r)
			lines = append(lines, string(r))
		}
		return strings.Join(lines, "\n") + "\n", true
	case "tr":
		return trText(flags, ops, in)
	case "xxd":
		if has("-r") && (has("-p", "-ps", "-plain")) || has("-rp", "-pr") {
			if out, err := hex.DecodeString(strings.Join(strings.Fields(in), "")); err == nil {
				return string(out), true
			}
		}
	case "sed":
		if len(ops) == 1 && len(flags) == 0 {
			return sedSubst(ops[0], in)
		}
	}
	return "", false
}

// trText is tr SET1 SET2 (ranges and escapes) or tr -d SET.
func trText(flags, ops []string, in string) (string, bool) {
	if len(flags) > 1 || len(flags) == 1 && flags[0] != "-d" {
		return "", false
	}
	if len(flags) == 1 && len(ops) == 1 {
		set := expandSet(ops[0])
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune(set, r) {
				return -1
			}
			return r
		}, in), true
	}
	if len(flags) != 0 || len(ops) != 2 {
		return "", false
	}
	from, to := []rune(expandSet(ops[0])), []rune(expandSet(ops[1]))
	if len(from) == 0 || len(to) == 0 {
		return "", false
	}
	return strings.Map(func(r rune) rune {
		if i := slices.Index(from, r); i >= 0 {
			return to[min(i, len(to)-1)]
		}
		return r
	}, in), true
}

// expandSet reads a tr set: a-z ranges and backslash escapes ([:classes:] are not read).
func expandSet(s string) string {
	s = wordexp.ANSIC(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && s[i+1] == '-' && s[i] <= s[i+2] {
			for c := s[i]; ; c++ {
				b.WriteByte(c)
				if c == s[i+2] {
					break
				}
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sedSubst applies one s/x/y/[g] with literal text.
func sedSubst(script, in string) (string, bool) {
	if len(script) < 4 || script[0] != 's' {
		return "", false
	}
	sep := script[1:2]
	f := strings.Split(script[2:], sep)
	if len(f) != 3 || strings.ContainsAny(f[0], `.*[]^$\`) || (f[2] != "" && f[2] != "g") {
		return "", false
	}
	n := 1
	if f[2] == "g" {
		n = -1
	}
	var lines []string
	for _, l := range strings.Split(in, "\n") {
		lines = append(lines, strings.Replace(l, f[0], f[1], n))
	}
	return strings.Join(lines, "\n"), true
}

// callNames are the command names a node runs, for a hole's From.
func callNames(n syntax.Node) []string {
	var names []string
	syntax.Walk(n, func(node syntax.Node) bool {
		if len(names) >= 8 {
			return false
		}
		if ce, ok := node.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			if lit := ce.Args[0].Lit(); lit != "" {
				names = append(names, path.Base(lit))
			}
		}
		return true
	})
	return names
}
