package guard

import "github.com/abcd-dev/abcd/domain/text"

// A Write is a change of one path made without a shell line the guard could read: a file tool's
// write, what a patch adds, updates or deletes, or a path a runner's step left changed in its
// worktree. The guard reads it as the shell line that makes the same change, so one set of write
// rules decides it, whatever made it.
type Write struct {
	// Path is the path as the agent named it: absolute, or relative to the folder it ran in.
	Path string
	// Remove is a removal of the path rather than a write to it.
	Remove bool
	// Link is, for a symbolic link made at Path, what it points at, as written.
	Link string
}

// Lines are the shell lines that stand for the write: a write of the path (": > p") or its removal
// ("rm -- p"); for a link, its making too (a link to a guarded file is a write to it). resolved is
// the path the links on the way make of Path ("" when that is Path itself): the same change of it
// follows, so a write through a link to a guarded file is a write to that file.
func (w Write) Lines(resolved string) []string {
	lines := w.linesOf(w.Path)
	if resolved != "" {
		lines = append(lines, w.linesOf(resolved)...)
	}
	return lines
}

func (w Write) linesOf(path string) []string {
	p := text.ShellQuote(path)
	switch {
	case w.Remove:
		return []string{"rm -- " + p}
	case w.Link != "":
		return []string{": > " + p, "ln -s -- " + text.ShellQuote(w.Link) + " " + p}
	}
	return []string{": > " + p}
}
