// Package argv reads a program's words the way programs read their options: the values of named
// options (NAME VALUE, NAME=VALUE, -XVALUE), the leading options before its operands, a flag in a
// cluster, the words after an option that ends them. The words are the guard's, as
// adapters/shell/wordexp reads them.
package argv

import (
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
)

// Values are the values of the named options, as NAME VALUE, NAME=VALUE or -XVALUE.
func Values(words []guard.Word, names ...string) []guard.Word {
	var out []guard.Word
	for i, wd := range words {
		t, ok := wd.Text()
		if !ok {
			continue
		}
		for _, n := range names {
			switch {
			case t == n && i+1 < len(words):
				out = append(out, words[i+1])
			case strings.HasPrefix(t, n+"=") && strings.HasPrefix(n, "--"):
				out = append(out, guard.Lit(strings.TrimPrefix(t, n+"=")))
			case len(n) == 2 && strings.HasPrefix(t, n) && len(t) > 2 && !strings.HasPrefix(t, "--"):
				out = append(out, guard.Lit(t[2:]))
			}
		}
	}
	return out
}

// Skip drops a program's leading options and returns the words from its operands on, and
// the options seen (name to value).
func Skip(words []guard.Word, values []string) ([]guard.Word, map[string]guard.Word) {
	seen := map[string]guard.Word{}
	for len(words) > 0 {
		t, ok := words[0].Text()
		if first := words[0].Parts[0]; !ok && !first.Hole && strings.HasPrefix(first.Text, "--") && strings.Contains(first.Text, "=") {
			// --name=$(...) or --name=<(...): the option is known, its value is not
			name, val, _ := strings.Cut(first.Text, "=")
			rest := append([]guard.Part{{Text: val, Quoted: first.Quoted}}, words[0].Parts[1:]...)
			if val == "" {
				rest = rest[1:]
			}
			seen[name] = guard.Word{Parts: rest}
			words = words[1:]
			continue
		}
		if !ok || len(t) < 2 || (t[0] != '-' && t[0] != '+') {
			return words, seen
		}
		words = words[1:]
		if t == "--" {
			return words, seen
		}
		if strings.HasPrefix(t, "--") {
			name, val, has := strings.Cut(t, "=")
			switch {
			case has:
				seen[name] = guard.Lit(val)
			case slices.Contains(values, name) && len(words) > 0:
				seen[name] = words[0]
				words = words[1:]
			default:
				seen[name] = guard.Word{}
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			o := t[:1] + string(t[j])
			if slices.Contains(values, o) {
				switch {
				case j+1 < len(t):
					seen[o] = guard.Lit(t[j+1:])
				case len(words) > 0:
					seen[o] = words[0]
					words = words[1:]
				}
				break
			}
			seen[o] = guard.Word{}
		}
	}
	return words, seen
}

// FirstOf is the value of the first of names among options Skip saw.
func FirstOf(opts map[string]guard.Word, names ...string) (guard.Word, bool) {
	for _, n := range names {
		if v, ok := opts[n]; ok {
			return v, true
		}
	}
	return guard.Word{}, false
}

// FirstText is the first word's text, when there is one and it is known.
func FirstText(ws []guard.Word) (string, bool) {
	if len(ws) == 0 {
		return "", false
	}
	return ws[0].Text()
}

// HasFlag reports a short flag among a program's leading options, alone or in a cluster.
func HasFlag(words []guard.Word, flag string) bool {
	for _, wd := range words {
		t, ok := wd.Text()
		if !ok || !strings.HasPrefix(t, "-") || t == "--" {
			return false
		}
		if !strings.HasPrefix(t, "--") && strings.Contains(t[1:], flag[1:]) {
			return true
		}
	}
	return false
}

// After is the words after the first of opts (gdb --args rm -rf ~ runs rm -rf ~).
func After(words []guard.Word, opts []string) ([]guard.Word, bool) {
	for i, wd := range words {
		if t, ok := wd.Text(); ok && slices.Contains(opts, t) {
			return words[i+1:], true
		}
	}
	return nil, false
}
