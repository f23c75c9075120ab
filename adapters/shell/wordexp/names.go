package wordexp

import (
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
)

// ValidName is a shell variable name.
func ValidName(s string) bool {
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

// ExpandTilde is a word with its leading unquoted ~ read as home, as the shell expands it when it
// assigns a value: later "$X" is the home folder, not a ~.
func ExpandTilde(v guard.Word) guard.Word {
	if len(v.Parts) > 0 && !v.Parts[0].Hole && !v.Parts[0].Quoted && (v.Parts[0].Text == "~" || strings.HasPrefix(v.Parts[0].Text, "~/")) {
		rest := strings.TrimPrefix(v.Parts[0].Text, "~")
		parts := []guard.Part{{Hole: true, Var: "HOME", Quoted: true}}
		if rest != "" {
			parts = append(parts, guard.Part{Text: rest, Quoted: true})
		}
		v = guard.Word{Parts: append(parts, v.Parts[1:]...)}
	}
	return v
}

// Join is words as the one word "${a[*]}" makes of them.
func Join(ws []guard.Word) guard.Word {
	var out guard.Word
	for i, x := range ws {
		if i > 0 {
			out.Parts = append(out.Parts, guard.Part{Text: " ", Quoted: true})
		}
		out.Parts = append(out.Parts, x.Parts...)
	}
	if len(out.Parts) == 0 {
		out = guard.Lit("")
	}
	return out
}

// unknownVar stands for an unknown value when text with holes is parsed again as shell (a heredoc
// holding $VAR fed to bash): the second parse reads it as a variable, so as unknown.
const unknownVar = "${__abcd_unknown}"

// Source is a word as shell text to parse again: unknown parts become a variable, so still unknown.
func Source(wd guard.Word) string {
	var b strings.Builder
	for _, p := range wd.Parts {
		if p.Hole && p.Var == "HOME" {
			// the home folder stays the home folder when read again
			b.WriteString("${HOME}")
			continue
		}
		if p.Hole {
			b.WriteString(unknownVar)
			continue
		}
		b.WriteString(p.Text)
	}
	return b.String()
}
