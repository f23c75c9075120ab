package runner

import (
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/text"
)

// Before abcd commits a runner's work, or keeps what a step left on a branch, it reads the change
// (Change) and scans it with the one scrubber for every credential abcd holds (ScanChange): a change
// that carries one is never committed, so no branch, no reviewer's prompt and no commit abcd sends
// anywhere carries it.

// MaxChangeBytes bounds the change abcd reads to scan: a larger change cannot be shown to hold no
// credential, so it is neither committed nor kept.
const MaxChangeBytes = 32 << 20

// Change is what a worktree holds beyond the commit a step started from, as git gives it for a scan:
// the messages of the commits made on the lane since, then git's diff from that commit to the working
// tree as it stands (files git does not track, and does not ignore, as added; every file as text).
// Truncated is true when the two together ran past the bound they were read with.
type Change struct {
	Messages  string
	Diff      string
	Truncated bool
}

// ChangeScan is what a scan of a change found: the files whose change carries a credential abcd
// holds (in their added lines or in their names; "a commit's message" for a message), and whether
// the change was too large to scan whole.
type ChangeScan struct {
	Files    []string
	TooLarge bool
}

// Clean reports a change scanned whole that carries no credential abcd holds.
func (s ChangeScan) Clean() bool { return len(s.Files) == 0 && !s.TooLarge }

// messagesFile names the commits' messages among the files a scan lists.
const messagesFile = "a commit's message"

// ScanChange looks through a change for the credentials sc holds, in every spelling the scrubber
// knows, whole, cut short or cut into pieces. A file is read by what it adds and by its names: the
// lines a diff removes or shows for context are what the lane held already. Each added line is read
// without the + git puts before it, so a key cut over added lines is read as one.
func ScanChange(c Change, sc *secret.Scrubber) ChangeScan {
	if c.Truncated {
		return ChangeScan{TooLarge: true} // what was not read cannot be shown to carry nothing
	}
	var scan ChangeScan
	if sc.Empty() {
		return scan
	}
	if sc.Carries(c.Messages) {
		scan.Files = append(scan.Files, messagesFile)
	}
	for _, f := range diffFiles(c.Diff) {
		if sc.Carries(f.added) {
			scan.Files = append(scan.Files, f.name)
		}
	}
	return scan
}

// diffFile is one file's part of a diff: its name as the diff gives it, and what it adds (its header
// lines, which carry its names, and its added lines without their +).
type diffFile struct {
	name, added string
}

// diffFiles splits a diff as git writes it (with its a/ and b/ prefixes) into its files.
func diffFiles(diff string) []diffFile {
	var out []diffFile
	var cur *diffFile
	var added strings.Builder
	flush := func() {
		if cur != nil {
			cur.added = added.String()
			out = append(out, *cur)
		}
		added.Reset()
	}
	for _, line := range strings.SplitAfter(diff, "\n") {
		body := strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			cur = &diffFile{name: headerName(body)}
			added.WriteString(body + "\n")
		case cur == nil:
			continue
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
			added.WriteString(body + "\n")
			if name, ok := strings.CutPrefix(body[4:], "b/"); ok && strings.HasPrefix(line, "+++ ") {
				cur.name = name
			}
		case strings.HasPrefix(line, "+"):
			added.WriteString(body[1:] + "\n")
		case strings.HasPrefix(line, "rename "), strings.HasPrefix(line, "copy "):
			added.WriteString(body + "\n")
		}
	}
	flush()
	return out
}

// headerName is the path a diff's header line names (diff --git a/x b/x): the part after " b/".
func headerName(header string) string {
	rest := strings.TrimPrefix(header, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// Failure is the step's failure for a scan that is not clean, in words that name the files (their
// names scrubbed too) and never the credential.
func (s ChangeScan) Failure(sc *secret.Scrubber) *Failure {
	if len(s.Files) == 0 {
		return Failf(CauseCredentialInChange, "the step's change is larger than the %d MiB abcd scans for the credentials it holds, so it cannot be shown to carry none: abcd commits none of it, and keeps none of it",
			MaxChangeBytes>>20)
	}
	names := make([]string, 0, 3)
	for _, f := range s.Files[:min(3, len(s.Files))] {
		if f == messagesFile {
			names = append(names, f)
			continue
		}
		names = append(names, quotePath(sc.Scrub(f)))
	}
	where := strings.Join(names, ", ")
	if more := len(s.Files) - len(names); more > 0 {
		where += fmt.Sprintf(" and %s", text.Count(more, "other file", "other files"))
	}
	return Failf(CauseCredentialInChange, "the step's change carries a credential abcd holds (in %s): abcd commits none of it, and nothing of it reaches a reviewer", where)
}

// ScrubbedPatch is a change as a patch abcd keeps of an attempt that carried a credential: its
// commits' messages and its diff, each credential abcd holds (whole, cut short or in pieces) and
// each URL's password written as secret.Mark. Where one stood, the patch no longer applies as it
// was.
func ScrubbedPatch(c Change, sc *secret.Scrubber) string {
	var b strings.Builder
	b.WriteString("# What a runner's step left, kept by abcd as a patch: it carried a credential abcd holds, which\n")
	b.WriteString("# is written " + secret.Mark + " here, and abcd committed none of it.\n")
	if c.Messages != "" {
		b.WriteString("#\n# The messages of the commits the step made:\n")
		for _, line := range strings.Split(strings.TrimRight(sc.ScrubPieces(c.Messages), "\n"), "\n") {
			b.WriteString("#   " + line + "\n")
		}
	}
	b.WriteString("\n")
	b.WriteString(sc.ScrubPieces(c.Diff))
	return b.String()
}
