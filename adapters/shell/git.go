package shell

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/gitcmd"
	"github.com/abcd-dev/abcd/domain/guard"
)

// git reads a git command with all the configuration it runs under (gitcmd reads which), given to
// the command as a -c before its own words, and follows what git runs: the shell commands its
// configuration, environment and words make it run, and an alias in its subcommand's place.
func (w *walker) git(c *cmdCall) {
	g := gitcmd.Read(c.words[1:], c.env, c.sc.st.gitConfig)
	cmd := c.command()
	if len(g.Config) > 0 {
		args := make([]guard.Word, 0, 2*len(g.Config)+len(cmd.Args))
		for _, kv := range g.Config {
			args = append(args, guard.Lit("-c"), kv)
		}
		cmd.Args = append(args, cmd.Args...)
	}
	w.emit(cmd)
	if g.Sets != nil {
		c.sc.st.gitConfig = append(c.sc.st.gitConfig, *g.Sets)
	}
	for _, r := range g.Runs {
		w.executed(r.Words, c.sc, c.via, r.How)
	}
	if g.Alias != nil {
		w.gitAlias(c, g)
	}
}

// gitAlias follows an alias in the subcommand's place: a ! alias runs as a shell command, the
// remaining words its arguments; any other is git's own words, read as shell words, then run.
func (w *walker) gitAlias(c *cmdCall, g gitcmd.Command) {
	a := g.Alias
	inner := c.sc.child(c.via, "git alias "+a.Name)
	if a.Shell {
		w.line(a.Body, inner)
		return
	}
	if inner.depth > MaxDepth {
		w.refuse("the command line executes strings nested more than 4 deep")
		return
	}
	f, err := parse(a.Body)
	if err != nil || len(f.Stmts) != 1 {
		w.opaque(inner, "git alias "+a.Name, "")
		return
	}
	ce, isCall := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !isCall {
		w.opaque(inner, "git alias "+a.Name, "")
		return
	}
	inner.src = a.Body
	words := append([]guard.Word{guard.Lit("git")}, g.Global...)
	for _, arg := range ce.Args {
		words = append(words, w.fields(arg, inner)...)
	}
	words = append(words, g.Rest[1:]...)
	w.command(&cmdCall{words: words, env: c.env, sc: inner, via: inner.via, text: c.text})
}
