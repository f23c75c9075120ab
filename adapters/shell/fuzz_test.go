package shell

import (
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// FuzzGuard reads and evaluates any line: it never panics, and always gives one of the three
// verdicts, a block for a line it could not read.
func FuzzGuard(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if len(c.Line) < 200 {
			f.Add(c.Line)
		}
	}
	for _, s := range []string{"", "$(", "`", "'", "\"", "((((", "${", "<<EOF", "bash -c", "eval", "git -c alias.x='!x' x",
		strings.Repeat("(", 100), strings.Repeat("$(", 60) + strings.Repeat(")", 60), "cd \x00 && rm", "rm -rf $'\\x2f'"} {
		f.Add(s)
	}
	reg := registry(f)
	f.Fuzz(func(t *testing.T, line string) {
		l, err := Reader{Home: "/home/dev"}.ReadLine(line)
		if err != nil {
			t.Fatalf("ReadLine(%q): %v", line, err)
		}
		v := reg.Evaluate(l, fixtureCtx)
		switch v.Decision {
		case guard.Allow, guard.Warn, guard.Block:
		default:
			t.Fatalf("%q: verdict %q", line, v.Decision)
		}
		if l.Refused != "" && v.Decision != guard.Block {
			t.Fatalf("%q was not read (%s) but not blocked", line, l.Refused)
		}
		if v.Decision != guard.Allow && (v.Rule == "" || v.Why == "" || v.Safer == "") {
			t.Fatalf("%q: %s without rule, why or safer: %+v", line, v.Decision, v)
		}
	})
}

// TestPathologicalLinesAreBounded: lines built to make a reader work hard are read or refused, and
// every refusal is a block with its reason. (Their time is measured in make bench, not asserted.)
func TestPathologicalLinesAreBounded(t *testing.T) {
	reg := registry(t)
	lines := map[string]string{
		"deep substitutions":  strings.Repeat("$(", 500) + "rm -rf /" + strings.Repeat(")", 500),
		"deep subshells":      strings.Repeat("(", 5000) + "ls" + strings.Repeat(")", 5000),
		"deep bash -c":        nestBashC("rm -rf ~", 8),
		"huge":                strings.Repeat("a", MaxLineBytes+1),
		"many commands":       strings.Repeat("ls;", MaxCommands+10),
		"long heredoc":        "cat <<'EOF' > f\n" + strings.Repeat("rm -rf /\n", 20000) + "EOF",
		"recursive git alias": "git -c alias.x=x x",
		"nested eval":         "eval \"eval \\\"eval \\\\\\\"eval rm -rf ~\\\\\\\"\\\"\"",
		"brace storm":         strings.Repeat("{a,b}", 2000),
		"unterminated":        "echo 'rm -rf /",
		"many heredocs to sh": strings.Repeat("sh <<< 'ls'; ", 2000),
		"arith":               "echo $((" + strings.Repeat("1+", 20000) + "1))",
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			l, err := Reader{Home: "/home/dev"}.ReadLine(line)
			if err != nil {
				t.Fatal(err)
			}
			v := reg.Evaluate(l, fixtureCtx)
			if l.Refused != "" && (v.Decision != guard.Block || v.Why != l.Refused) {
				t.Fatalf("refused (%s) but %s", l.Refused, v.Decision)
			}
		})
	}
	// Reading past the depth bound is a block, never an allow.
	l, _ := Reader{}.ReadLine(nestBashC("ls", MaxDepth+2))
	if l.Refused == "" {
		t.Fatal("executed strings nested past the bound were read")
	}
	l, _ = Reader{}.ReadLine(strings.Repeat("$(", 500) + "rm -rf /" + strings.Repeat(")", 500))
	if v := reg.Evaluate(l, fixtureCtx); v.Decision != guard.Block {
		t.Fatalf("deep substitutions around rm -rf /: %s", v.Decision)
	}
}

func nestBashC(inner string, depth int) string {
	for range depth {
		inner = "bash -c " + text.ShellQuote(inner)
	}
	return inner
}
