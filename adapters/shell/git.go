package shell

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// git reads a git command with all the configuration it runs under: -c on the line, the
// GIT_CONFIG_* variables in its environment and what git config set earlier in the line, each
// given to the command as a -c before its own words. It follows what that configuration runs
// (aliases, an ssh command, a credential helper, an editor) and an ext:: remote's command.
func (w *walker) git(c *cmdCall) {
	extra := slices.Clone(c.sc.st.gitConfig)
	extra = append(extra, envConfig(c.env)...)
	global, rest := gitGlobal(c.words[1:])
	sub, _ := argv.FirstText(rest)
	if sub == "clone" {
		// clone -c KEY=VALUE sets it in the new repository and uses it for the clone itself
		extra = append(extra, argv.Values(rest[1:], "-c", "--config")...)
	}
	cmd := c.command()
	if len(extra) > 0 {
		args := make([]guard.Word, 0, 2*len(extra)+len(cmd.Args))
		for _, kv := range extra {
			args = append(args, guard.Lit("-c"), kv)
		}
		cmd.Args = append(args, cmd.Args...)
	}
	w.emit(cmd)
	config := append(extra, configOf(global)...)
	if sub == "config" {
		if kv, ok := configSet(rest[1:]); ok {
			c.sc.st.gitConfig = append(c.sc.st.gitConfig, kv)
			config = append(config, kv)
			// a ! alias is shell code a later git command runs: read it once, where it is set
			if key, value, ok := splitKV(kv); ok && strings.HasPrefix(strings.ToLower(key), "alias.") && value.Known() {
				if body, bang := strings.CutPrefix(strings.TrimSpace(wordexp.Source(value)), "!"); bang {
					w.executed([]guard.Word{guard.Lit(body)}, c.sc, c.via, "git "+key)
				}
			}
		}
	}
	w.gitRuns(c, config, rest)
	if sub != "" && sub != "config" {
		w.gitAlias(c, config, global, rest)
	}
}

// gitGlobal splits git's words into its global options and the subcommand with its words.
func gitGlobal(args []guard.Word) (global, rest []guard.Word) {
	for i := 0; i < len(args); i++ {
		t, ok := args[i].Text()
		if !ok || !strings.HasPrefix(t, "-") {
			return args[:i], args[i:]
		}
		switch t {
		case "-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path", "--attr-source", "--list-cmds":
			i++
		}
	}
	return args, nil
}

// configOf is the KEY=VALUE words of git's -c options.
func configOf(global []guard.Word) []guard.Word {
	var out []guard.Word
	for i := 0; i < len(global); i++ {
		t, _ := global[i].Text()
		switch {
		case t == "-c" && i+1 < len(global):
			out = append(out, global[i+1])
			i++
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			out = append(out, guard.Lit(t[2:]))
		}
	}
	return out
}

// envConfig is the configuration GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, and
// GIT_CONFIG_PARAMETERS, give git.
func envConfig(env []guard.Assign) []guard.Word {
	vals := map[string]guard.Word{}
	for _, e := range env {
		vals[e.Name] = e.Value
	}
	var out []guard.Word
	count := 0
	if c, ok := vals["GIT_CONFIG_COUNT"]; ok {
		if t, ok := c.Text(); ok {
			count, _ = strconv.Atoi(strings.TrimSpace(t))
		} else {
			count = 8
		}
	}
	for i := range min(count, 64) {
		k, ok := vals["GIT_CONFIG_KEY_"+strconv.Itoa(i)]
		if !ok {
			continue
		}
		v := vals["GIT_CONFIG_VALUE_"+strconv.Itoa(i)]
		out = append(out, guard.Word{Parts: append(append(slices.Clone(k.Parts), guard.Part{Text: "="}), v.Parts...)})
	}
	if p, ok := vals["GIT_CONFIG_PARAMETERS"]; ok {
		if t, ok := p.Text(); ok {
			for _, f := range splitQuoted(t) {
				out = append(out, guard.Lit(f))
			}
		}
	}
	return out
}

// splitQuoted reads GIT_CONFIG_PARAMETERS: 'key'='value' pairs, space separated.
func splitQuoted(s string) []string {
	var out []string
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			inQuote = !inQuote
		case c == ' ' && !inQuote:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// configSet reads git config's setting forms (KEY VALUE, set KEY VALUE, --add, --replace-all,
// --unset) as the KEY=VALUE they leave.
func configSet(args []guard.Word) (guard.Word, bool) {
	var ops []guard.Word
	unset := false
	for i := 0; i < len(args); i++ {
		t, ok := args[i].Text()
		switch {
		case ok && (t == "-f" || t == "--file" || t == "--blob" || t == "--type" || t == "--default" || t == "--comment"):
			i++
		case ok && (t == "--get" || t == "--get-all" || t == "--get-regexp" || t == "--list" || t == "-l" || t == "--get-urlmatch" || t == "-e" || t == "--edit"):
			return guard.Word{}, false
		case ok && (t == "--unset" || t == "--unset-all"):
			unset = true
		case ok && strings.HasPrefix(t, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if t, _ := argv.FirstText(ops); t == "set" || t == "unset" {
		unset = unset || t == "unset"
		ops = ops[1:]
	} else if t == "get" || t == "list" || t == "edit" || t == "rename-section" || t == "remove-section" {
		return guard.Word{}, false
	}
	switch {
	case len(ops) >= 1 && unset:
		return guard.Word{Parts: append(slices.Clone(ops[0].Parts), guard.Part{Text: "="})}, true
	case len(ops) >= 2:
		return guard.Word{Parts: append(append(slices.Clone(ops[0].Parts), guard.Part{Text: "="}), ops[1].Parts...)}, true
	}
	return guard.Word{}, false
}

// codeKeys are configuration keys whose value git runs with the shell.
var codeKeys = []string{"core.sshcommand", "core.fsmonitor", "core.pager", "core.editor", "sequence.editor", "core.askpass", "diff.external",
	"uploadpack.packobjectshook", "core.gitproxy", "gpg.program", "interactive.difffilter", "web.browser"}

// codeEnv are environment variables whose value git (or what it runs) runs with the shell.
var codeEnv = []string{"GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER"}

// gitRuns follows the commands git's configuration and environment make it run, and the command an
// ext:: remote or --upload-pack names.
func (w *walker) gitRuns(c *cmdCall, config []guard.Word, rest []guard.Word) {
	for _, kv := range config {
		key, value, ok := splitKV(kv)
		if !ok {
			continue
		}
		key = strings.ToLower(key)
		val, _ := value.Text()
		switch {
		case strings.HasPrefix(key, "alias."):
		case key == "core.fsmonitor" && (val == "true" || val == "false"):
		case strings.HasSuffix(key, ".helper") && strings.HasPrefix(key, "credential"):
			if strings.HasPrefix(strings.TrimSpace(value.String()), "!") {
				body := strings.TrimPrefix(strings.TrimSpace(wordexp.Source(value)), "!")
				w.executed([]guard.Word{guard.Lit(body)}, c.sc, c.via, "git "+key)
			}
		case slices.Contains(codeKeys, key) || strings.HasPrefix(key, "filter.") || strings.HasPrefix(key, "diff.") && strings.HasSuffix(key, ".command") ||
			(strings.HasPrefix(key, "mergetool.") || strings.HasPrefix(key, "difftool.")) && strings.HasSuffix(key, ".cmd") ||
			strings.HasSuffix(key, ".textconv") || strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver") || strings.HasPrefix(key, "pager."):
			if val != "" || !value.Known() {
				w.executed([]guard.Word{value}, c.sc, c.via, "git "+key)
			}
		}
	}
	for _, e := range c.env {
		if slices.Contains(codeEnv, e.Name) {
			w.executed([]guard.Word{e.Value}, c.sc, c.via, "git "+e.Name)
		}
	}
	w.gitSubRuns(c, rest)
	for i, wd := range rest {
		t, ok := wd.Text()
		if !ok {
			continue
		}
		if cmd, found := strings.CutPrefix(t, "ext::"); found {
			w.executed([]guard.Word{guard.Lit(extCommand(cmd))}, c.sc, c.via, "git ext::")
		}
		for _, o := range []string{"--upload-pack", "--receive-pack", "--exec", "-u"} {
			if v, found := strings.CutPrefix(t, o+"="); found {
				w.executed([]guard.Word{guard.Lit(v)}, c.sc, c.via, "git "+o)
			} else if t == o && o != "-u" && i+1 < len(rest) {
				w.executed(rest[i+1:i+2], c.sc, c.via, "git "+o)
			}
		}
	}
}

// gitAlias follows an alias the line defines (git -c alias.NAME=VALUE NAME, or git config alias.NAME
// earlier): the alias runs in the subcommand's place, and one starting with ! runs as a shell
// command.
func (w *walker) gitAlias(c *cmdCall, config, global, rest []guard.Word) {
	aliases := map[string]guard.Word{}
	for _, kv := range config {
		key, val, ok := splitKV(kv)
		if name, isAlias := strings.CutPrefix(strings.ToLower(key), "alias."); ok && isAlias {
			aliases[name] = val
		}
	}
	sub, ok := argv.FirstText(rest)
	value, found := aliases[strings.ToLower(sub)]
	if !ok || !found {
		return
	}
	inner := c.sc.child(c.via, "git alias "+sub)
	body := wordexp.Source(value)
	if shellBody, bang := strings.CutPrefix(strings.TrimSpace(body), "!"); bang {
		// git runs a ! alias with the shell, the remaining words as its arguments.
		w.line(shellBody, inner)
		return
	}
	if inner.depth > MaxDepth {
		w.refuse("the command line executes strings nested more than 4 deep")
		return
	}
	// A plain alias is git's own words: read them as shell words, then run git with them.
	f, err := parse(body)
	if err != nil || len(f.Stmts) != 1 {
		w.opaque(inner, "git alias "+sub, "")
		return
	}
	ce, isCall := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !isCall {
		w.opaque(inner, "git alias "+sub, "")
		return
	}
	inner.src = body
	words := append([]guard.Word{guard.Lit("git")}, global...)
	for _, a := range ce.Args {
		words = append(words, w.fields(a, inner)...)
	}
	words = append(words, rest[1:]...)
	w.command(&cmdCall{words: words, env: c.env, sc: inner, via: inner.via, text: c.text})
}

// splitKV splits a KEY=VALUE word at its first =, which must be in known text.
func splitKV(kv guard.Word) (string, guard.Word, bool) {
	var key strings.Builder
	for i, p := range kv.Parts {
		if p.Hole {
			return "", guard.Word{}, false
		}
		k, v, found := strings.Cut(p.Text, "=")
		key.WriteString(k)
		if found {
			return key.String(), guard.Word{Parts: append([]guard.Part{{Text: v, Quoted: p.Quoted}}, kv.Parts[i+1:]...)}, true
		}
	}
	return "", guard.Word{}, false
}

// extCommand is an ext:: remote's command as a shell line: git splits it at spaces, "% " being a
// space inside a word and "%%" a percent sign.
func extCommand(s string) string {
	var words []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case s[i] == ' ':
			if b.Len() > 0 {
				words = append(words, text.ShellQuote(b.String()))
				b.Reset()
			}
		default:
			b.WriteByte(s[i])
		}
	}
	if b.Len() > 0 {
		words = append(words, text.ShellQuote(b.String()))
	}
	return strings.Join(words, " ")
}

// subRuns are git subcommands' options whose value is a shell command they run (git rebase -x CMD,
// git difftool --extcmd CMD, git filter-branch --tree-filter CMD).
func subRuns(sub string) []string {
	switch sub {
	case "rebase":
		return []string{"-x", "--exec"}
	case "difftool":
		return []string{"-x", "--extcmd"}
	case "filter-branch":
		return []string{"--tree-filter", "--index-filter", "--msg-filter", "--env-filter", "--commit-filter", "--parent-filter", "--tag-name-filter"}
	case "send-email":
		return []string{"--to-cmd", "--cc-cmd", "--header-cmd"}
	}
	return nil
}

// gitSubRuns follows the commands a git subcommand runs by its words: the options of subRuns,
// bisect run's command and submodule foreach's.
func (w *walker) gitSubRuns(c *cmdCall, rest []guard.Word) {
	sub, ok := argv.FirstText(rest)
	if !ok {
		return
	}
	args := rest[1:]
	switch sub {
	case "bisect":
		if t, _ := argv.FirstText(args); t == "run" && len(args) > 1 {
			w.executed(args[1:], c.sc, c.via, "git bisect run")
		}
		return
	case "submodule":
		for i, a := range args {
			if t, _ := a.Text(); t == "foreach" {
				cmd := args[i+1:]
				for len(cmd) > 0 {
					if t, _ := argv.FirstText(cmd); t != "--recursive" && t != "-q" && t != "--quiet" {
						break
					}
					cmd = cmd[1:]
				}
				if len(cmd) > 0 {
					w.executed(cmd, c.sc, c.via, "git submodule foreach")
				}
				return
			}
		}
		return
	}
	opts := subRuns(sub)
	for i, a := range args {
		t, ok := a.Text()
		if !ok {
			continue
		}
		for _, o := range opts {
			switch {
			case t == o && i+1 < len(args):
				w.executed(args[i+1:i+2], c.sc, c.via, "git "+sub+" "+o)
			case strings.HasPrefix(t, o+"=") && strings.HasPrefix(o, "--"):
				w.executed([]guard.Word{guard.Lit(strings.TrimPrefix(t, o+"="))}, c.sc, c.via, "git "+sub+" "+o)
			case len(o) == 2 && len(t) > 2 && strings.HasPrefix(t, o) && !strings.HasPrefix(t, "--"):
				w.executed([]guard.Word{guard.Lit(t[2:])}, c.sc, c.via, "git "+sub+" "+o)
			}
		}
	}
}
