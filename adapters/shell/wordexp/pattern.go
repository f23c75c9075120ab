package wordexp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// removeAffix removes the shortest or longest prefix or suffix matching a shell pattern.
func removeAffix(t, pat string, op syntax.ParExpOperator) string {
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix:
		idx := []int{}
		for i := 0; i <= len(t); i++ {
			idx = append(idx, i)
		}
		if op == syntax.RemLargePrefix {
			for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
		for _, i := range idx {
			if wildMatch(pat, t[:i]) {
				return t[i:]
			}
		}
	default:
		idx := []int{}
		for i := len(t); i >= 0; i-- {
			idx = append(idx, i)
		}
		if op == syntax.RemLargeSuffix {
			for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
		for _, i := range idx {
			if wildMatch(pat, t[i:]) {
				return t[:i]
			}
		}
	}
	return t
}

// replacePattern is ${t/pat/with} (every match with all).
func replacePattern(t, pat, with string, all bool) string {
	if pat == "" {
		return t
	}
	var b strings.Builder
	for i := 0; i < len(t); {
		n := -1
		for j := len(t); j > i; j-- {
			if wildMatch(pat, t[i:j]) {
				n = j - i
				break
			}
		}
		if n < 0 {
			b.WriteByte(t[i])
			i++
			continue
		}
		b.WriteString(with)
		i += n
		if !all {
			b.WriteString(t[i:])
			return b.String()
		}
	}
	return b.String()
}

// wildMatch matches a shell pattern (* ? [...] and literal text) against all of s; * crosses /.
func wildMatch(pat, s string) bool {
	if len(pat) > 256 || len(s) > 4096 {
		return false
	}
	px, sx := 0, 0
	nextPx, nextSx := -1, -1
	for px < len(pat) || sx < len(s) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			case '[':
				if end := strings.IndexByte(pat[px+1:], ']'); end >= 0 && sx < len(s) {
					class := pat[px+1 : px+1+end]
					neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
					if neg {
						class = class[1:]
					}
					if inClass(class, s[sx]) != neg {
						px += end + 2
						sx++
						continue
					}
				}
			default:
				if c == '\\' && px+1 < len(pat) {
					c = pat[px+1]
					if sx < len(s) && s[sx] == c {
						px += 2
						sx++
						continue
					}
				} else if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

func inClass(class string, c byte) bool {
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= c && c <= class[i+2] {
				return true
			}
			i += 2
			continue
		}
		if class[i] == c {
			return true
		}
	}
	return false
}
