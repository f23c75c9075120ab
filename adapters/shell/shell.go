// Package shell reads one command line the way a POSIX shell or bash will run it, with the
// mvdan.cc/sh syntax parser, into the guard's neutral model: every command in every segment, past the
// wrappers that run another command, and into the strings the line executes (bash -c, eval, a heredoc
// fed to a shell, git aliases, find -exec), to a bounded depth. It never runs anything.
package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// Bounds on the work one line may cause. A line past any of them is refused (the guard blocks it
// with the reason), never allowed unread.
const (
	// MaxLineBytes bounds the line, and MaxTotalBytes everything parsed for it (executed strings
	// included).
	MaxLineBytes  = 64 << 10
	MaxTotalBytes = 256 << 10
	// MaxDepth bounds executed strings inside executed strings (bash -c "eval '...'").
	MaxDepth = 4
	// MaxCommands bounds the commands one line may hold, and MaxNodes the syntax nodes walked.
	MaxCommands = 1024
	MaxNodes    = 100_000
	// MaxNesting bounds brackets, braces and quotes open at once, checked before parsing so the
	// parser's own recursion stays shallow.
	MaxNesting = 64
	// maxUnwrap bounds the wrappers around one command (sudo env nice ... rm).
	maxUnwrap = 16
	// maxEcho bounds the piece of the line a command's text or a reason quotes.
	maxEcho = 200
)

// unknownVar stands for an unknown value when text with holes is parsed again as shell (a heredoc
// holding $VAR fed to bash): the second parse reads it as a variable, so as unknown.
const unknownVar = "${__abcd_unknown}"

// Reader implements ports.CommandReader. Home is the folder ~ and $HOME stand for.
type Reader struct {
	Home string
}

// ReadLine reads one command line.
func (r Reader) ReadLine(line string) (guard.Line, error) {
	out := guard.Line{Home: r.Home, Commands: []guard.Command{}}
	switch {
	case len(line) > MaxLineBytes:
		out.Refused = fmt.Sprintf("the command line is %d bytes, more than the %d the guard reads", len(line), MaxLineBytes)
		return out, nil
	case strings.ContainsRune(line, 0):
		out.Refused = "the command line holds a NUL byte, which no shell command can"
		return out, nil
	case !utf8.ValidString(line):
		out.Refused = "the command line is not valid UTF-8"
		return out, nil
	}
	w := &walker{}
	w.line(line, scope{})
	if w.refused != "" {
		out.Refused = w.refused
		return out, nil
	}
	out.Commands = w.cmds
	return out, nil
}

// walker collects the commands of a line within the bounds.
type walker struct {
	cmds    []guard.Command
	refused string
	nodes   int
	parsed  int
}

// scope is what holds for the commands of one stretch of the line.
type scope struct {
	cd    []guard.CdStep
	depth int
	via   []string
	// stdin is what feeds the command's standard input: a pipe or a heredoc.
	stdin *input
	src   string
}

// input is a command's standard input: text when it is known, else the commands producing it.
type input struct {
	text  string
	known bool
	from  string
}

func (s scope) with(via string) scope {
	s.via = append(slices.Clone(s.via), via)
	return s
}

func (w *walker) refuse(why string) {
	if w.refused == "" {
		w.refused = why
	}
}

func (w *walker) tick() bool {
	w.nodes++
	if w.nodes > MaxNodes {
		w.refuse(fmt.Sprintf("the command line is too complex to check (more than %d syntax nodes)", MaxNodes))
	}
	return w.refused == ""
}

// line parses src as shell and walks it; executed strings come back here one level deeper.
func (w *walker) line(src string, sc scope) {
	if sc.depth > MaxDepth {
		w.refuse(fmt.Sprintf("the command line executes strings nested more than %d deep (bash -c inside eval inside ...)", MaxDepth))
		return
	}
	w.parsed += len(src)
	if w.parsed > MaxTotalBytes {
		w.refuse(fmt.Sprintf("the command line and the strings it executes come to more than %d bytes", MaxTotalBytes))
		return
	}
	if n := nesting(src); n > MaxNesting {
		w.refuse(fmt.Sprintf("the command line nests brackets or quotes %d deep, more than the %d the guard reads", n, MaxNesting))
		return
	}
	f, err := parse(src)
	if err != nil {
		w.refuse("the command line is not shell the guard can read: " + text.ClipAt(err.Error(), maxEcho))
		return
	}
	sc.src = src
	w.stmts(f.Stmts, sc)
}

// parse reads bash, then zsh for what bash refuses (macOS runs zsh).
func parse(src string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err == nil {
		return f, nil
	}
	if f2, err2 := syntax.NewParser(syntax.Variant(syntax.LangZsh)).Parse(strings.NewReader(src), ""); err2 == nil {
		return f2, nil
	}
	return nil, err
}

// nesting is the deepest run of open brackets, braces and backquotes, counted without parsing so
// that a hostile line cannot drive the parser's recursion deep.
func nesting(s string) int {
	depth, deepest := 0, 0
	tick := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		case '`':
			if tick {
				depth--
			} else {
				depth++
			}
			tick = !tick
		}
		deepest = max(deepest, depth)
	}
	return deepest
}

// stmts walks a list; each statement's cd holds for the statements after it.
func (w *walker) stmts(list []*syntax.Stmt, sc scope) []guard.CdStep {
	var effects []guard.CdStep
	cur := sc
	for _, st := range list {
		if w.refused != "" {
			return nil
		}
		eff := w.stmt(st, cur)
		if len(eff) > 0 {
			cur.cd = append(slices.Clone(cur.cd), eff...)
			effects = append(effects, eff...)
		}
	}
	return effects
}

// unsure marks cd steps as possibly failed for what runs after them regardless.
func unsure(steps []guard.CdStep) []guard.CdStep {
	out := slices.Clone(steps)
	for i := range out {
		out[i].Sure = false
	}
	return out
}

func sure(steps []guard.CdStep) []guard.CdStep {
	out := slices.Clone(steps)
	for i := range out {
		out[i].Sure = true
	}
	return out
}

// stmt walks one statement and returns the cd steps it leaves in force.
func (w *walker) stmt(st *syntax.Stmt, sc scope) []guard.CdStep {
	if st == nil || !w.tick() {
		return nil
	}
	switch c := st.Cmd.(type) {
	case nil:
		// Only redirections: > /dev/sda truncates or writes its target all the same.
		reds, stdin := w.redirects(st.Redirs, sc)
		_ = stdin
		if len(reds) > 0 {
			w.emit(guard.Command{Name: guard.Lit(""), Redirects: reds, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Text: w.text(st, sc)})
		}
	case *syntax.CallExpr:
		return w.call(c, st, sc)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			effX := w.stmt(c.X, sc)
			scY := sc
			scY.cd = append(slices.Clone(sc.cd), sure(effX)...)
			effY := w.stmt(c.Y, scY)
			return unsure(append(effX, effY...))
		case syntax.OrStmt:
			effX := w.stmt(c.X, sc)
			scY := sc
			scY.cd = append(slices.Clone(sc.cd), unsure(effX)...)
			effY := w.stmt(c.Y, scY)
			if exits(c.Y) {
				// cd x || exit: what follows runs only where the cd went.
				return sure(effX)
			}
			return unsure(append(effX, effY...))
		default:
			w.stmt(c.X, sc)
			scY := sc
			scY.stdin = w.source(c.X, sc)
			w.stmt(c.Y, scY)
		}
	case *syntax.Subshell:
		w.stmts(c.Stmts, sc)
	case *syntax.Block:
		return w.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		for cl := c; cl != nil; cl = cl.Else {
			w.stmts(cl.Cond, sc)
			w.stmts(cl.Then, sc)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, sc)
		w.stmts(c.Do, sc)
	case *syntax.ForClause:
		w.substs(c.Loop, sc)
		w.stmts(c.Do, sc)
	case *syntax.CaseClause:
		w.substs(c.Word, sc)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.substs(p, sc)
			}
			w.stmts(item.Stmts, sc)
		}
	case *syntax.FuncDecl:
		// A function's body runs when it is called, which the line may do: check it as if it ran.
		w.stmt(c.Body, sc)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, sc.with("time"))
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, sc.with("coproc"))
	default:
		// declare/export/local, let, (( )), [[ ]]: only their substitutions run commands.
		w.substs(c, sc)
	}
	if _, ok := st.Cmd.(*syntax.CallExpr); !ok && st.Cmd != nil {
		w.redirects(st.Redirs, sc)
	}
	return nil
}

// exits reports a statement that leaves the shell or function (exit, return).
func exits(st *syntax.Stmt) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	name := ce.Args[0].Lit()
	return name == "exit" || name == "return"
}

// substs walks the command substitutions inside a node that is not itself a command.
func (w *walker) substs(n syntax.Node, sc scope) {
	if n == nil || !mayRun(n, sc.src) {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		if !w.tick() {
			return false
		}
		switch s := node.(type) {
		case *syntax.CmdSubst:
			w.stmts(s.Stmts, sc.with("$(…)"))
			return false
		case *syntax.ProcSubst:
			w.stmts(s.Stmts, sc.with("<(…)"))
			return false
		}
		return true
	})
}

// mayRun reports whether a node's source can hold a command substitution at all, so that long
// arithmetic or parameter forms without one are not walked node by node.
func mayRun(n syntax.Node, src string) bool {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start >= end {
		return true
	}
	text := src[start:end]
	if strings.Contains(text, "`") || strings.Contains(text, "<(") || strings.Contains(text, ">(") {
		return true
	}
	// $( runs a command; $(( is arithmetic, which runs one only through a $( inside it.
	for i := strings.Index(text, "$("); i >= 0; {
		if i+2 >= len(text) || text[i+2] != '(' {
			return true
		}
		next := strings.Index(text[i+3:], "$(")
		if next < 0 {
			return false
		}
		i += 3 + next
	}
	return false
}

// redirects reads a statement's output targets and what a heredoc or here-string feeds it.
func (w *walker) redirects(rs []*syntax.Redirect, sc scope) ([]guard.Redirect, *input) {
	var out []guard.Redirect
	var stdin *input
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			out = append(out, guard.Redirect{Op: r.Op.String(), Target: w.word(r.Word, sc)})
		case syntax.DplOut:
			// >&word is a file when word is not a descriptor number or -
			t := w.word(r.Word, sc)
			if s, ok := t.Text(); !ok || !isFD(s) {
				out = append(out, guard.Redirect{Op: r.Op.String(), Target: t})
			}
		case syntax.Hdoc, syntax.DashHdoc:
			body := w.word(r.Hdoc, sc)
			stdin = textOf(body, "heredoc")
		case syntax.WordHdoc:
			body := w.word(r.Word, sc)
			stdin = textOf(body, "here-string")
			if stdin.known {
				stdin.text += "\n"
			}
		default:
			w.word(r.Word, sc)
		}
	}
	return out, stdin
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// textOf turns a word into text to parse again: unknown parts become a variable, so still unknown.
func textOf(wd guard.Word, from string) *input {
	var b strings.Builder
	known := true
	for _, p := range wd.Parts {
		if p.Hole {
			b.WriteString(unknownVar)
			known = false
			continue
		}
		b.WriteString(p.Text)
	}
	return &input{text: b.String(), known: true, from: from + map[bool]string{true: "", false: " (with unknown parts)"}[known]}
}

// source is what a pipe's left side writes: echo's or printf's words, a heredoc cat passes on, or
// else the names of the commands writing.
func (w *walker) source(st *syntax.Stmt, sc scope) *input {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return w.source(b.Y, sc)
	}
	names := strings.Join(callNames(st), " ")
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return &input{from: names}
	}
	quiet := &walker{nodes: MaxNodes - 10_000}
	words := make([]guard.Word, 0, len(ce.Args))
	for _, a := range ce.Args {
		words = append(words, quiet.word(a, sc))
	}
	name, _ := words[0].Text()
	switch path.Base(name) {
	case "echo", "printf":
		args := words[1:]
		for len(args) > 0 {
			t, ok := args[0].Text()
			if !ok || !strings.HasPrefix(t, "-") || len(t) < 2 || strings.Trim(t[1:], "neE") != "" || path.Base(name) == "printf" {
				break
			}
			args = args[1:]
		}
		parts := make([]string, 0, len(args))
		for _, a := range args {
			parts = append(parts, textOf(a, "").text)
		}
		return &input{text: strings.Join(parts, " "), known: true, from: name}
	case "cat":
		if len(words) == 1 {
			if _, in := quiet.redirects(st.Redirs, sc); in != nil {
				return in
			}
		}
	}
	return &input{from: names}
}

// callNames are the command names a statement runs at its top level, for a hole's From.
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

// text is the source of a node, clipped.
func (w *walker) text(n syntax.Node, sc scope) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(sc.src) || start >= end {
		return ""
	}
	return text.ClipAt(sc.src[start:end], maxEcho)
}

func (w *walker) emit(c guard.Command) {
	if len(w.cmds) >= MaxCommands {
		w.refuse(fmt.Sprintf("the command line runs more than %d commands", MaxCommands))
		return
	}
	w.cmds = append(w.cmds, c)
}
