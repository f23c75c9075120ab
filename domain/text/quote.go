package text

import "strings"

// ShellQuote is s as one word of a POSIX shell: single-quoted, each quote within it closing the quoting,
// escaped, and opening it again.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
