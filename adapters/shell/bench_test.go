package shell

import (
	"strings"
	"testing"
)

// BenchmarkGuardCorpus is one read and evaluation per corpus line.
func BenchmarkGuardCorpus(b *testing.B) {
	reg := registry(b)
	cases := loadCorpus(b)
	b.ResetTimer()
	for i := range b.N {
		l, _ := Reader{Home: "/home/dev"}.ReadLine(cases[i%len(cases)].Line)
		reg.Evaluate(l, fixtureCtx)
	}
}

// BenchmarkGuardPathological is the worst lines the bounds allow: each must stay well under 50 ms.
func BenchmarkGuardPathological(b *testing.B) {
	reg := registry(b)
	for name, line := range map[string]string{
		"deep-substitutions": strings.Repeat("$(", 500) + "rm -rf /" + strings.Repeat(")", 500),
		"max-line-heredoc":   "cat <<'EOF' > f\n" + strings.Repeat("rm -rf /\n", (MaxLineBytes-40)/9) + "EOF",
		"max-line-commands":  strings.Repeat("rm -rf /tmp/x;", (MaxLineBytes-1)/14),
		"max-bash-c":         nestBashC(strings.Repeat("git push -f;", 500), MaxDepth),
		"arith":              "echo $((" + strings.Repeat("1+", (MaxLineBytes-20)/2) + "1))",
		"many-words":         "rm -rf" + strings.Repeat(" $X/a", (MaxLineBytes-10)/5),
	} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				l, _ := Reader{Home: "/home/dev"}.ReadLine(line)
				reg.Evaluate(l, fixtureCtx)
			}
		})
	}
}
