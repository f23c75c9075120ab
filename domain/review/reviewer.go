package review

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/text"
)

// ParseReviewerReturn reads a ruthless or security reviewer's return: markdown of at most
// MaxReturnBytes, valid UTF-8, with exactly one Verdict heading (an ATX heading of any level whose
// text is "Verdict", any case; a heading inside a fenced code block does not count), whose first
// non-blank line after it is exactly one of the role's words, optionally wrapped in ** or `. Every
// problem is named at once in a *ReturnError.
func ParseReviewerReturn(role Role, data []byte) (Verdict, error) {
	var p problems
	if role != Ruthless && role != Security {
		p.add("the role %q writes no review verdict: parse the return as %s's or %s's", text.Clip(string(role)), Ruthless, Security)
		return Verdict{}, p.err()
	}
	if len(data) > MaxReturnBytes {
		p.add("the return is %d bytes, more than the %d (256 KiB) a return may be: shorten the findings", len(data), MaxReturnBytes)
	}
	if !utf8.Valid(data) {
		p.add("the return is not valid UTF-8: write it as UTF-8 text")
	}
	lines := splitLines(string(data))
	headings, fenced := verdictHeadings(lines)
	var v Verdict
	switch {
	case len(headings) == 0 && len(fenced) > 0:
		p.add("the return's Verdict heading is inside a fenced code block (line %d): do not wrap the return in a code fence", fenced[0]+1)
	case len(headings) == 0:
		p.add("the return has no Verdict heading: write a line \"## Verdict\" and, on the line after it, one of %s", wordList(role))
	case len(headings) == 1:
		v = verdictAfter(role, lines, headings[0], &p)
	default:
		nums := make([]string, len(headings))
		for i, h := range headings {
			nums[i] = fmt.Sprint(h + 1)
		}
		p.add("the return has %d Verdict headings (lines %s): keep exactly one, and quote no line that starts with \"## Verdict\"", len(headings), strings.Join(nums, ", "))
	}
	if err := p.err(); err != nil {
		return Verdict{}, err
	}
	return v, nil
}

// verdictAfter reads the verdict line under the heading at index h and the findings after it.
func verdictAfter(role Role, lines []string, h int, p *problems) Verdict {
	i := h + 1
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) {
		p.add("the Verdict heading on line %d has no verdict under it: write one of %s on the line after it", h+1, wordList(role))
		return Verdict{}
	}
	line := lines[i]
	word := unwrap(strings.TrimSpace(line))
	if word == "" {
		p.add("the verdict line (line %d) is empty: write one of %s on it", i+1, wordList(role))
		return Verdict{}
	}
	pass, fail := Words(role)
	all := slices.Concat(pass, fail)
	if slices.Contains(all, word) {
		// Findings written above the Verdict heading count as much as those under it: a fix brief
		// carries both.
		return Verdict{Role: role, Word: word, Pass: slices.Contains(pass, word), Findings: findings(lines[:h], lines[i+1:])}
	}
	other := Security
	if role == Security {
		other = Ruthless
	}
	otherPass, otherFail := Words(other)
	switch {
	case slices.Contains(otherPass, word) || slices.Contains(otherFail, word):
		p.add("the verdict line (line %d) reads %q, a %s's word: a %s writes %s", i+1, word, other, role, wordList(role))
	case foldsTo(all, word) != "":
		p.add("the verdict line (line %d) reads %q: write it in capitals, %s", i+1, text.Clip(word), foldsTo(all, word))
	default:
		p.add("the verdict line (line %d) reads %q, which is not a verdict: write exactly one of %s on it, in capitals, with nothing else on the line", i+1, text.Clip(strings.TrimSpace(line)), wordList(role))
	}
	return Verdict{}
}

// findings is the return's text but for the Verdict heading and the verdict line: what stands above
// the heading, then what follows the verdict, each trimmed, bounded together.
func findings(before, after []string) string {
	var parts []string
	for _, ls := range [][]string{before, after} {
		if t := strings.TrimSpace(strings.Join(ls, "\n")); t != "" {
			parts = append(parts, t)
		}
	}
	return text.Prefix(strings.Join(parts, "\n\n"), MaxFindingsBytes)
}

// unwrap removes ** and ` wrapped around a verdict word, in any nesting, and the spaces inside them.
func unwrap(s string) string {
	for range 4 {
		switch {
		case len(s) >= 4 && strings.HasPrefix(s, "**") && strings.HasSuffix(s, "**"):
			s = strings.TrimSpace(s[2 : len(s)-2])
		case len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`':
			s = strings.TrimSpace(s[1 : len(s)-1])
		default:
			return s
		}
	}
	return s
}

// foldsTo returns the word w matches but for case, or "".
func foldsTo(words []string, w string) string {
	for _, x := range words {
		if strings.EqualFold(x, w) {
			return x
		}
	}
	return ""
}

// splitLines splits markdown into lines, taking \r\n and \n as line endings.
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// verdictHeadings returns the indices of the lines that are Verdict headings outside fenced code,
// and of those that would be but stand inside a fenced code block.
func verdictHeadings(lines []string) (out, fenced []int) {
	var open fence
	for i, line := range lines {
		if open.char != 0 {
			if open.closedBy(line) {
				open = fence{}
			} else if isVerdictHeading(line) {
				fenced = append(fenced, i)
			}
			continue
		}
		if f, ok := openFence(line); ok {
			open = f
			continue
		}
		if isVerdictHeading(line) {
			out = append(out, i)
		}
	}
	return out, fenced
}

func isVerdictHeading(line string) bool {
	text, ok := atxHeading(line)
	return ok && strings.EqualFold(text, "Verdict")
}

// fence is an open fenced code block: its character and how many of them opened it.
type fence struct {
	char byte
	n    int
}

// indent skips at most three leading spaces, as CommonMark allows before a block's marker; ok is
// false when a fourth space or a tab makes the line indented code.
func indent(line string) (rest string, ok bool) {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	rest = line[i:]
	return rest, !strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, "\t")
}

// openFence reports whether line opens a fenced code block (``` or ~~~, three or more).
func openFence(line string) (fence, bool) {
	rest, ok := indent(line)
	if !ok || rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return fence{}, false
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.Contains(rest[n:], "`")) {
		return fence{}, false
	}
	return fence{char: c, n: n}, true
}

// closedBy reports whether line closes the fence: the same character at least as many times, and
// nothing after but spaces.
func (f fence) closedBy(line string) bool {
	rest, ok := indent(line)
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.n && strings.Trim(rest[n:], " \t") == ""
}

// atxHeading returns an ATX heading's text, without its opening and closing # sequences.
func atxHeading(line string) (string, bool) {
	rest, ok := indent(line)
	if !ok {
		return "", false
	}
	n := 0
	for n < len(rest) && rest[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return "", false
	}
	rest = rest[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	rest = strings.Trim(rest, " \t")
	j := len(rest)
	for j > 0 && rest[j-1] == '#' {
		j--
	}
	switch {
	case j == 0:
		rest = ""
	case j < len(rest) && (rest[j-1] == ' ' || rest[j-1] == '\t'):
		rest = strings.TrimRight(rest[:j], " \t")
	}
	return rest, true
}
