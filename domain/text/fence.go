package text

import "strings"

// FenceFor is the markdown code fence for quoting s: backticks, one more than the longest run of
// them in s and at least three, so no line of s can close the fence and read as the quoting text.
func FenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Fenced is s quoted in its fence (FenceFor), its trailing newlines dropped.
func Fenced(s string) string {
	f := FenceFor(s)
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}
