package cli

import (
	"slices"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// clipEchoes bounds every echo of a long argument in a refusal to text.Clip, or to text.ClipPath
// for a path (a line holding a slash), which is echoed whole so the refusal's line can be copied
// and run. cobra and pflag quote what was typed whole in their errors ("unknown flag: --<name>",
// "invalid argument "<value>" for ...", twice for a boolean), so the one place a refusal is printed
// clips each argument, and each part of one (a flag's name and value), in every form an error writes
// it: as typed and as Go quotes it.
func clipEchoes(doc refusal.Document, args []string) refusal.Document {
	forms := echoForms(args)
	if len(forms) == 0 {
		return doc
	}
	for _, f := range forms {
		short := text.ClipAt(f, echoBound(f))
		doc.What = strings.ReplaceAll(doc.What, f, short)
		doc.Why = strings.ReplaceAll(doc.Why, f, short)
		doc.Remedy = strings.ReplaceAll(doc.Remedy, f, short)
	}
	return doc
}

// echoForms are the texts longer than the clip that an error may quote from args, longest first so
// a whole argument is clipped before its parts.
func echoForms(args []string) []string {
	var parts []string
	for _, a := range args {
		if len(a) <= echoBound(a) {
			continue
		}
		name := strings.TrimLeft(a, "-")
		parts = append(parts, a, name)
		if n, v, ok := strings.Cut(name, "="); ok {
			parts = append(parts, n, v)
		}
	}
	var forms []string
	for _, p := range parts {
		if len(p) <= echoBound(p) {
			continue
		}
		forms = append(forms, p)
		if q := strconv.Quote(p); q[1:len(q)-1] != p {
			forms = append(forms, q[1:len(q)-1])
		}
	}
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(forms)
}

// echoBound is how much of an argument a refusal echoes: a path whole (up to text.PathBytes), any
// other value text.ClipBytes.
func echoBound(s string) int {
	if strings.ContainsRune(s, '/') && text.LineProblem(s) == "" {
		return text.PathBytes
	}
	return text.ClipBytes
}
