package runner

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

// An implementer's step on a runner ends with the CLI's terminal event, which proves nothing about the
// work (a CLI can end "success" after its tool calls were denied). abcd commits the work itself, and
// first checks what the step left: what git held before the CLI started against what it holds after,
// and every path the worktree changed. The rules live here; the facts are gathered by the caller.

// Snapshot is what git holds that a step must not change: the worktree's HEAD and every ref, and
// digests of what makes git run code or read differently (its effective configuration with where
// each value comes from, its hooks, its info folder).
type Snapshot struct {
	// HeadRef is the ref the worktree's HEAD names ("" when detached); Head the commit it resolves to.
	HeadRef string
	Head    string
	// Refs are every ref of the repository and the object it names.
	Refs map[string]string
	// Config, Hooks and Info are digests: the effective configuration (every value with its origin,
	// includes followed), every file of the hooks folder git would run (its name, mode and content),
	// and every file of the info folder (exclude, attributes).
	Config, Hooks, Info string
}

// Entry is one path the worktree changed, as git's status names it, with what stands at it.
type Entry struct {
	// Path is relative to the worktree, with forward slashes, as git prints it.
	Path string
	// Kind is what stands at the path now.
	Kind EntryKind
	// Link is a symbolic link's target, as written (Kind EntryLink).
	Link string
}

// EntryKind is what stands at a changed path.
type EntryKind string

const (
	EntryFile    EntryKind = "file"    // a regular file (or a folder git lists whole)
	EntryDeleted EntryKind = "deleted" // nothing: the path was removed
	EntryLink    EntryKind = "link"    // a symbolic link
	EntryRepo    EntryKind = "repo"    // a nested repository or a submodule (a gitlink)
	EntryOther   EntryKind = "other"   // a device, a FIFO, a socket
)

// MaxEntries bounds the paths one step may change.
const MaxEntries = 50000

// AbcdRefs is where abcd keeps its own branches: every run's lanes and integration. Other lanes and
// other runs move them while a step runs (abcd commits, merges and starts lanes beside it), and the
// loop reads a lane's head from its state, never from the branch, so a step is held to every ref but
// these, and to its own lane's branch.
const AbcdRefs = "refs/heads/abcd/"

// GuardedWrite is a changed path the guard's write rules block: the rule that fired, and why.
type GuardedWrite struct {
	Path, Rule, Why string
}

// CheckWork says whether an implementer's step left work abcd may commit: nothing but the worktree's
// files changed (HEAD, the lane's branch and every ref outside AbcdRefs as they were; git's
// configuration, hooks and info as they were), no changed path escapes the worktree, no changed
// path is one the guard's write rules block (guarded, found by the caller: each change read as a
// write of its path), and something changed. The first rule broken is the failure, in that order; nil when the work may be
// committed.
func CheckWork(before, after Snapshot, laneRef string, changes []Entry, guarded []GuardedWrite) *Failure {
	if f := refsMoved(before, after, laneRef); f != nil {
		return f
	}
	var changed []string
	for _, d := range []struct{ what, a, b string }{
		{"git's configuration", before.Config, after.Config},
		{"git's hooks", before.Hooks, after.Hooks},
		{"git's info folder (exclude, attributes)", before.Info, after.Info},
	} {
		if d.a != d.b {
			changed = append(changed, d.what)
		}
	}
	if len(changed) > 0 {
		return Failf(CauseHooksChanged, "%s changed while the step ran; inspect them before running git in this repository", strings.Join(changed, " and "))
	}
	if len(changes) > MaxEntries {
		return Failf(CausePathEscape, "the step changed %d paths, over the %d a step may change", len(changes), MaxEntries)
	}
	for _, e := range changes {
		if why := Escapes(e); why != "" {
			return Failf(CausePathEscape, "%s %s", quotePath(e.Path), why)
		}
	}
	if len(guarded) > 0 {
		g := guarded[0]
		more := ""
		if len(guarded) > 1 {
			more = fmt.Sprintf(" (and %s)", text.Count(len(guarded)-1, "other guarded path", "other guarded paths"))
		}
		return Failf(CauseGuardedPath, "the step changed %s%s, which the guard's rule %s blocks as a write: %s; abcd commits none of it, and the person reviews the attempt",
			quotePath(g.Path), more, text.Clip(g.Rule), text.Clip(g.Why))
	}
	if len(changes) == 0 {
		return Failf(CauseNoChanges, "the CLI ended its step with success, but left no change in the worktree to commit")
	}
	return nil
}

// refsMoved names the first of HEAD, the lane's branch and the other refs that moved.
func refsMoved(before, after Snapshot, laneRef string) *Failure {
	if before.HeadRef != after.HeadRef {
		return Failf(CauseRefsMoved, "the worktree's HEAD was %s and is now %s", refWords(before.HeadRef), refWords(after.HeadRef))
	}
	if before.Head != after.Head {
		return Failf(CauseRefsMoved, "the worktree's HEAD moved from %s to %s: the CLI committed itself, and abcd commits a step's work", short(before.Head), short(after.Head))
	}
	var moved []string
	names := map[string]bool{}
	for name := range before.Refs {
		names[name] = true
	}
	for name := range after.Refs {
		names[name] = true
	}
	for name := range names {
		if name != laneRef && strings.HasPrefix(name, AbcdRefs) {
			continue
		}
		was, had := before.Refs[name]
		now, has := after.Refs[name]
		switch {
		case had && !has:
			moved = append(moved, text.Clip(name)+" was deleted")
		case !had && has:
			moved = append(moved, text.Clip(name)+" was created at "+short(now))
		case was != now:
			moved = append(moved, fmt.Sprintf("%s moved from %s to %s", text.Clip(name), short(was), short(now)))
		}
	}
	if len(moved) == 0 {
		return nil
	}
	sort.Strings(moved)
	more := ""
	if len(moved) > 3 {
		more = fmt.Sprintf(", and %d more", len(moved)-3)
		moved = moved[:3]
	}
	return Failf(CauseRefsMoved, "%s%s while the step ran (a commit of yours meanwhile is told from the CLI's by nothing: run again)", strings.Join(moved, "; "), more)
}

func refWords(ref string) string {
	if ref == "" {
		return "detached"
	}
	return text.Clip(ref)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "nothing"
	}
	return sha
}

func quotePath(p string) string { return fmt.Sprintf("%q", text.Clip(p)) }

// Escapes says how a changed path reaches outside the worktree ("" when it does not): a symbolic link
// whose target is absolute, climbs out of the worktree or into a .git folder; a nested repository or
// a submodule; anything but a file, a link or a removal; a path that is not a plain relative one.
func Escapes(e Entry) string {
	p := e.Path
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") || slices.Contains(strings.Split(p, "/"), "..") {
		return "is not a path inside the worktree"
	}
	if slices.Contains(strings.Split(strings.TrimSuffix(p, "/"), "/"), ".git") {
		return "is inside a .git folder"
	}
	switch e.Kind {
	case EntryFile, EntryDeleted:
		return ""
	case EntryRepo:
		return "is a nested repository or a submodule, which a step's commit may not carry"
	case EntryLink:
		t := e.Link
		switch {
		case t == "":
			return "is a symbolic link with no target"
		case strings.HasPrefix(t, "/"):
			return "is a symbolic link to an absolute path, outside the worktree"
		}
		to := path.Join(path.Dir(strings.TrimSuffix(p, "/")), t)
		if to == ".." || strings.HasPrefix(to, "../") {
			return "is a symbolic link that points outside the worktree"
		}
		if slices.Contains(strings.Split(to, "/"), ".git") {
			return "is a symbolic link into a .git folder"
		}
		return ""
	}
	return "is not a regular file or a symbolic link (a device, a pipe or a socket)"
}

// Bounds of the commit message abcd writes from the agent's summary.
const (
	maxSubjectRunes = 72
	maxBodyBytes    = 16 << 10
)

// CommitMessage is the message of the commit abcd makes from a step's work: the agent's summary (its
// final message; its first line the subject, cut to 72 characters; the rest the body, bounded), then
// a trailer naming the run, the lane and the runner. Control characters and hidden ones are taken
// out; a summary that says nothing leaves a subject that names the step.
func CommitMessage(summary, fallbackSubject, trailer string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || text.Hidden(r) != "":
			return -1
		}
		return r
	}, strings.ToValidUTF8(strings.ReplaceAll(summary, "\r\n", "\n"), ""))
	lines := strings.Split(strings.TrimSpace(clean), "\n")
	subject := strings.TrimSpace(strings.TrimLeft(lines[0], "#*- "))
	if subject == "" {
		subject = fallbackSubject
	}
	if r := []rune(subject); len(r) > maxSubjectRunes {
		subject = strings.TrimSpace(string(r[:maxSubjectRunes-1])) + "…"
	}
	body := strings.TrimSpace(strings.Join(lines[1:], "\n"))
	if len(body) > maxBodyBytes {
		body = text.Prefix(body, maxBodyBytes) + "\n[cut]"
	}
	var b strings.Builder
	b.WriteString(subject)
	if body != "" {
		b.WriteString("\n\n" + body)
	}
	b.WriteString("\n\n" + trailer + "\n")
	return b.String()
}
