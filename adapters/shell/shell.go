// Package shell reads one command line the way a POSIX shell or bash will run it, with the
// mvdan.cc/sh syntax parser, into the guard's neutral model: every command in every segment, past the
// wrappers that run another command, and into the strings the line executes (bash -c, eval, a heredoc
// fed to a shell, git aliases, find -exec, trap, an interpreter's shell-outs), to a bounded depth. It
// follows what the line itself sets (variables, $IFS, descriptors, functions, git configuration) and
// what echo, printf and decoders make of known text. It never runs anything.
package shell

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
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
	// maxLoopValues bounds the values a for loop's body is read with, one walk each.
	maxLoopValues = 8
	// maxEcho bounds the piece of the line a command's text or a reason quotes.
	maxEcho = 200
)

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
	st := newState()
	w.line(line, scope{st: st})
	if w.refused != "" {
		out.Refused = w.refused
		return out, nil
	}
	out.Commands = w.cmds
	out.Holds = st.heldFiles()
	return out, nil
}

// walker collects the commands of a line within the bounds.
type walker struct {
	cmds    []guard.Command
	refused string
	nodes   int
	parsed  int
	// quietly reads words for their values only: the commands inside are walked elsewhere.
	quietly bool
	// arithSeen are the values already read as arithmetic (arith.go).
	arithSeen map[string]bool
}

func (w *walker) refuse(why string) {
	if w.refused == "" && !w.quietly {
		w.refused = why
	}
}

func (w *walker) tick() bool {
	w.nodes++
	if w.nodes > MaxNodes {
		w.refuse(fmt.Sprintf("the command line is too complex to check (more than %d syntax nodes)", MaxNodes))
		return false
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
	if st.Background {
		sc.background = true
	}
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok {
		return w.call(ce, st, sc)
	}
	red := w.redirects(st.Redirs, sc)
	if st.Cmd == nil {
		// Only redirections: > /dev/sda truncates or writes its target all the same.
		if len(red.out) > 0 {
			w.emit(guard.Command{Name: guard.Lit(""), Redirects: red.out, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Remote: sc.remote, Text: w.text(st, sc)})
		}
		return nil
	}
	if red.stdin != nil {
		sc.stdin = red.stdin
	}
	if len(red.out) > 0 {
		w.emit(guard.Command{Name: guard.Lit(""), Redirects: red.out, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Remote: sc.remote, Text: w.text(st, sc)})
	}
	return w.compound(st, sc)
}

// compound walks a statement that is not a simple command.
func (w *walker) compound(st *syntax.Stmt, sc scope) []guard.CdStep {
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		return w.binary(c, sc)
	case *syntax.Subshell:
		w.stmts(c.Stmts, sc.sub())
	case *syntax.Block:
		return w.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		for cl := c; cl != nil; cl = cl.Else {
			w.stmts(cl.Cond, sc)
			w.stmts(cl.Then, sc)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, sc)
		w.bindRead(c.Cond, sc)
		body := sc
		if endless(c) {
			body.st = sc.st.clone()
			body.st.forever = true
		}
		w.stmts(c.Do, body)
	case *syntax.ForClause:
		w.forLoop(c, sc)
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
		inner := sc.sub()
		if c.Name != nil {
			sc.st.funcs[c.Name.Value] = c.Body
			inner.st.funcs[c.Name.Value] = c.Body
			inner.st.inFunc = c.Name.Value
		}
		w.stmt(c.Body, inner)
	case *syntax.DeclClause:
		w.declare(c, st, sc)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, sc.with("time"))
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, sc.with("coproc"))
	default:
		// let, (( )), [[ ]]: only their substitutions run commands.
		w.substs(c, sc)
	}
	return nil
}

// binary walks a && b, a || b and a | b.
func (w *walker) binary(c *syntax.BinaryCmd, sc scope) []guard.CdStep {
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
	}
	// Each side of a pipe runs in a subshell; the right reads what the left writes.
	left := sc.sub()
	left.piped = true
	w.stmt(c.X, left)
	right := sc.sub()
	right.piped = true
	right.stdin = w.stmtOutput(c.X, sc.sub())
	w.stmt(c.Y, right)
	return nil
}

// forLoop reads a for loop's body once for each value it takes, when the values are known and few;
// otherwise once, with the variable unknown but named by the commands its values come from.
func (w *walker) forLoop(c *syntax.ForClause, sc scope) {
	iter, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		w.substs(c.Loop, sc)
		w.stmts(c.Do, sc)
		return
	}
	var items []guard.Word
	for _, it := range iter.Items {
		items = append(items, w.fields(it, sc)...)
	}
	allKnown := len(items) > 0 && len(items) <= maxLoopValues
	var from []string
	var reads []guard.Source
	for _, it := range items {
		if !it.Known() {
			allKnown = false
			for _, p := range it.Parts {
				if p.Hole && p.From != "" {
					from = append(from, p.From)
				}
			}
			reads = addReads(reads, it.Sources())
		}
	}
	if allKnown {
		for _, it := range items {
			body := sc
			body.st = sc.st.clone()
			body.st.set(iter.Name.Value, wordexp.Value{Words: []guard.Word{it}})
			w.stmts(c.Do, body)
		}
		return
	}
	sc.st.set(iter.Name.Value, wordexp.Value{Words: []guard.Word{{Parts: []guard.Part{{Hole: true, From: strings.Join(from, " "), Reads: reads}}}}})
	w.stmts(c.Do, sc)
}

// bindRead gives the variables of a while loop's read the value the loop reads: known text, or a
// value from the commands feeding it (pgrep x | while read p; do kill $p; done).
func (w *walker) bindRead(cond []*syntax.Stmt, sc scope) {
	if len(cond) == 0 {
		return
	}
	ce, ok := cond[len(cond)-1].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || ce.Args[0].Lit() != "read" {
		return
	}
	red := w.quiet().redirects(cond[len(cond)-1].Redirs, sc)
	in := sc.stdin
	if red.stdin != nil {
		in = red.stdin
	}
	var words []guard.Word
	for _, a := range ce.Args[1:] {
		words = append(words, w.quiet().fields(a, sc)...)
	}
	w.readWords(words, in, sc)
}

// endless reports a loop that never ends by its condition: while true, while :, until false.
func endless(c *syntax.WhileClause) bool {
	if len(c.Cond) != 1 {
		return false
	}
	ce, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	switch name := ce.Args[0].Lit(); {
	case !c.Until && (name == "true" || name == ":"):
		return true
	case c.Until && name == "false":
		return true
	case !c.Until && name == "[" && len(ce.Args) == 3:
		return ce.Args[1].Lit() != "" && ce.Args[1].Lit() != "0"
	}
	return false
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
	if n == nil || w.quietly {
		return
	}
	run := mayRun(n, sc.src)
	if run || sc.st.codeInValues() {
		w.evaluated(n, sc)
	}
	if !run {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		if !w.tick() {
			return false
		}
		switch s := node.(type) {
		case *syntax.CmdSubst:
			w.stmts(s.Stmts, sc.sub().with("$(…)"))
			return false
		case *syntax.ProcSubst:
			w.stmts(s.Stmts, sc.sub().with("<(…)"))
			return false
		}
		return true
	})
}

// evaluated reads what bash evaluates as arithmetic inside a node: the values of the variables its
// arithmetic names, and the name [[ -v ]] tests (arith.go).
func (w *walker) evaluated(n syntax.Node, sc scope) {
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.UnaryTest:
			if wd, ok := x.X.(*syntax.Word); ok && x.Op == syntax.TsVarSet {
				if t, known := w.quiet().word(wd, sc).Text(); known {
					w.arith(t, sc, "[[ -v ]]")
				}
			}
		case *syntax.LetClause:
			// let "i+1": a quoted expression is read as arithmetic all the same
			for _, e := range x.Exprs {
				if wd, ok := e.(*syntax.Word); ok && len(wd.Parts) == 1 && wd.Lit() == "" {
					if t, known := w.quiet().word(wd, sc).Text(); known {
						w.arith(t, sc, "let")
						if f, err := parse("(( " + t + " ))"); err == nil {
							w.arithNames(f, sc)
						}
					}
				}
			}
		}
		if arithmetic(node) {
			w.arithNames(node, sc)
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

// text is the source of a node, clipped.
func (w *walker) text(n syntax.Node, sc scope) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(sc.src) || start >= end {
		return ""
	}
	return text.ClipAt(sc.src[start:end], maxEcho)
}

func (w *walker) emit(c guard.Command) {
	if w.quietly {
		return
	}
	if len(w.cmds) >= MaxCommands {
		w.refuse(fmt.Sprintf("the command line runs more than %d commands", MaxCommands))
		return
	}
	w.cmds = append(w.cmds, c)
}
