package gitcmd

import (
	"slices"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/domain/guard"
)

// splitGlobal splits git's words into its global options and the subcommand with its words.
func splitGlobal(args []guard.Word) (global, rest []guard.Word) {
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

// remoteSet reads git remote add NAME URL and git remote set-url [--push] NAME URL as the
// remote.NAME.url=URL (pushurl with --push) they leave.
func remoteSet(args []guard.Word) (guard.Word, bool) {
	verb, _ := argv.FirstText(args)
	if verb != "add" && verb != "set-url" {
		return guard.Word{}, false
	}
	key := "url"
	var ops []guard.Word
	for i := 1; i < len(args); i++ {
		t, ok := args[i].Text()
		switch {
		case ok && (t == "-t" || t == "--track" || t == "-m" || t == "--master"):
			i++
		case ok && t == "--push":
			key = "pushurl"
		case ok && strings.HasPrefix(t, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) < 2 {
		return guard.Word{}, false
	}
	parts := append(append([]guard.Part{{Text: "remote."}}, ops[0].Parts...), guard.Part{Text: "." + key + "="})
	return guard.Word{Parts: append(parts, ops[1].Parts...)}, true
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
