package gitcmd

import (
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// codeKeys are configuration keys whose value git runs with the shell.
var codeKeys = []string{"core.sshcommand", "core.fsmonitor", "core.pager", "core.editor", "sequence.editor", "core.askpass", "diff.external",
	"uploadpack.packobjectshook", "core.gitproxy", "gpg.program", "interactive.difffilter", "web.browser"}

// codeEnv are environment variables whose value git (or what it runs) runs with the shell.
var codeEnv = []string{"GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER"}

// runs are the commands git's configuration and environment make it run, then those its
// subcommand's words name, then an ext:: remote's and --upload-pack's.
func runs(config []guard.Word, env []guard.Assign, rest []guard.Word) []Run {
	var out []Run
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
		case strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".url") || strings.HasSuffix(key, ".pushurl")):
			// a remote added with an ext:: address runs its command on the next fetch or push
			if cmd, found := strings.CutPrefix(val, "ext::"); found {
				out = append(out, Run{Words: []guard.Word{guard.Lit(extCommand(cmd))}, How: "git ext::"})
			}
		case strings.HasSuffix(key, ".helper") && strings.HasPrefix(key, "credential"):
			if strings.HasPrefix(strings.TrimSpace(value.String()), "!") {
				body := strings.TrimPrefix(strings.TrimSpace(wordexp.Source(value)), "!")
				out = append(out, Run{Words: []guard.Word{guard.Lit(body)}, How: "git " + key})
			}
		case slices.Contains(codeKeys, key) || strings.HasPrefix(key, "filter.") || strings.HasPrefix(key, "diff.") && strings.HasSuffix(key, ".command") ||
			(strings.HasPrefix(key, "mergetool.") || strings.HasPrefix(key, "difftool.")) && strings.HasSuffix(key, ".cmd") ||
			strings.HasSuffix(key, ".textconv") || strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver") || strings.HasPrefix(key, "pager."):
			if val != "" || !value.Known() {
				out = append(out, Run{Words: []guard.Word{value}, How: "git " + key})
			}
		}
	}
	for _, e := range env {
		if slices.Contains(codeEnv, e.Name) {
			out = append(out, Run{Words: []guard.Word{e.Value}, How: "git " + e.Name})
		}
	}
	out = append(out, subcommandRuns(rest)...)
	for i, wd := range rest {
		t, ok := wd.Text()
		if !ok {
			continue
		}
		if cmd, found := strings.CutPrefix(t, "ext::"); found {
			out = append(out, Run{Words: []guard.Word{guard.Lit(extCommand(cmd))}, How: "git ext::"})
		}
		for _, o := range []string{"--upload-pack", "--receive-pack", "--exec", "-u"} {
			if v, found := strings.CutPrefix(t, o+"="); found {
				out = append(out, Run{Words: []guard.Word{guard.Lit(v)}, How: "git " + o})
			} else if t == o && o != "-u" && i+1 < len(rest) {
				out = append(out, Run{Words: rest[i+1 : i+2], How: "git " + o})
			}
		}
	}
	return out
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

// subcommandRuns are the commands a git subcommand runs by its words: the options of subRuns,
// bisect run's command and submodule foreach's.
func subcommandRuns(rest []guard.Word) []Run {
	var out []Run
	sub, ok := argv.FirstText(rest)
	if !ok {
		return nil
	}
	args := rest[1:]
	switch sub {
	case "bisect":
		if t, _ := argv.FirstText(args); t == "run" && len(args) > 1 {
			out = append(out, Run{Words: args[1:], How: "git bisect run"})
		}
		return out
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
					out = append(out, Run{Words: cmd, How: "git submodule foreach"})
				}
				return out
			}
		}
		return out
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
				out = append(out, Run{Words: args[i+1 : i+2], How: "git " + sub + " " + o})
			case strings.HasPrefix(t, o+"=") && strings.HasPrefix(o, "--"):
				out = append(out, Run{Words: []guard.Word{guard.Lit(strings.TrimPrefix(t, o+"="))}, How: "git " + sub + " " + o})
			case len(o) == 2 && len(t) > 2 && strings.HasPrefix(t, o) && !strings.HasPrefix(t, "--"):
				out = append(out, Run{Words: []guard.Word{guard.Lit(t[2:])}, How: "git " + sub + " " + o})
			}
		}
	}
	return out
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
