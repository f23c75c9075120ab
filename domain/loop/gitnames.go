package loop

// What the loop reads of git's own words: a diff's headers and a commit's id.

import "strings"

// DiffFiles are the files a git diff changes, as its headers name them.
func DiffFiles(diff string) []string {
	var out []string
	for _, line := range strings.Split(diff, "\n") {
		if rest, ok := strings.CutPrefix(line, "diff --git a/"); ok {
			if i := strings.Index(rest, " b/"); i > 0 {
				out = append(out, rest[:i])
			}
		}
	}
	return out
}

// CommitID is a full commit id (SHA-1 or SHA-256), lower-case hex.
func CommitID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
