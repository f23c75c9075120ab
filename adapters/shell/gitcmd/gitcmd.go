// Package gitcmd reads one git command for what git runs besides itself. Git runs with the
// configuration of -c on its line, of GIT_CONFIG_* in its environment, of what git config set
// earlier in the line and of clone's -c; that configuration and its environment can make it run
// shell commands (an alias, an ssh command, a credential helper, an editor, a filter or diff
// driver), and so can its subcommands' words (rebase --exec, bisect run, submodule foreach, an
// ext:: remote). adapters/shell walks what it finds as the commands git runs.
package gitcmd

import (
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// Command is what one git command runs with and runs.
type Command struct {
	// Config are the KEY=VALUE words it runs under from outside its own -c (what git config set
	// earlier, its environment, clone's -c): the guard reads them as a -c before its words.
	Config []guard.Word
	// Sets is the KEY=VALUE git config leaves for the later git commands of the line.
	Sets *guard.Word
	// Runs are the shell commands it runs, in order.
	Runs []Run
	// Alias is the alias its subcommand names, when its configuration defines one.
	Alias *Alias
	// Global are git's own options, Rest the subcommand and its words.
	Global, Rest []guard.Word
}

// Run is one shell command git runs: words the shell joins into a command line, and how git came
// to run it (git core.sshcommand, git rebase -x, ...).
type Run struct {
	Words []guard.Word
	How   string
}

// Alias is an alias that runs in the subcommand's place: git's own words, or with Shell (an alias
// starting with !) a shell command given the remaining words.
type Alias struct {
	Name  string
	Body  string
	Shell bool
}

// Read reads git's words (after the program's name) with its environment and the configuration
// earlier git commands of the line set.
func Read(words []guard.Word, env []guard.Assign, earlier []guard.Word) Command {
	extra := slices.Clone(earlier)
	extra = append(extra, envConfig(env)...)
	global, rest := splitGlobal(words)
	sub, _ := argv.FirstText(rest)
	if sub == "clone" {
		// clone -c KEY=VALUE sets it in the new repository and uses it for the clone itself
		extra = append(extra, argv.Values(rest[1:], "-c", "--config")...)
	}
	g := Command{Config: extra, Global: global, Rest: rest}
	config := append(slices.Clone(extra), configOf(global)...)
	if sub == "remote" {
		if kv, ok := remoteSet(rest[1:]); ok {
			// git remote add NAME URL is git config remote.NAME.url URL: later pushes go there
			g.Sets = &kv
		}
	}
	if sub == "config" {
		if kv, ok := configSet(rest[1:]); ok {
			g.Sets = &kv
			config = append(config, kv)
			// a ! alias is shell code a later git command runs: read it once, where it is set
			if key, value, ok := splitKV(kv); ok && strings.HasPrefix(strings.ToLower(key), "alias.") && value.Known() {
				if body, bang := strings.CutPrefix(strings.TrimSpace(wordexp.Source(value)), "!"); bang {
					g.Runs = append(g.Runs, Run{Words: []guard.Word{guard.Lit(body)}, How: "git " + key})
				}
			}
		}
	}
	g.Runs = append(g.Runs, runs(config, env, rest)...)
	if sub != "" && sub != "config" {
		g.Alias = alias(config, rest)
	}
	return g
}

// alias is the alias the line defines for the subcommand (git -c alias.NAME=VALUE NAME, or git
// config alias.NAME earlier), if any.
func alias(config, rest []guard.Word) *Alias {
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
		return nil
	}
	body := wordexp.Source(value)
	if shellBody, bang := strings.CutPrefix(strings.TrimSpace(body), "!"); bang {
		return &Alias{Name: sub, Body: shellBody, Shell: true}
	}
	return &Alias{Name: sub, Body: body}
}
