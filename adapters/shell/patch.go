package shell

import (
	"slices"

	"github.com/abcd-dev/abcd/domain/guard"
)

// applyPatch reads apply_patch (or applypatch) run as a command. Codex takes such a command over and
// applies the patch itself, from its heredoc or its first argument, in the folder a cd before it
// left; a program of that name does the same. So each file the patch writes is checked as a write
// there, each it deletes as a removal, as the apply_patch tool's own payload is; a patch the guard
// cannot read (unknown text, no file, a header it cannot parse) is refused, so the line is blocked.
func (w *walker) applyPatch(c *cmdCall, base string) {
	c.emit(w)
	patch := c.sc.stdin
	if args := c.words[1:]; len(args) > 0 {
		patch = known(args[0])
	}
	if !patch.hasWord() {
		w.refuse(base + " is given no patch the guard can read (only a heredoc or its first argument is read)")
		return
	}
	text, ok := patch.word.Text()
	if !ok {
		w.refuse(base + "'s patch holds text not known until it runs")
		return
	}
	files, err := guard.PatchFiles(text)
	if err != nil {
		w.refuse(base + ": " + err.Error())
		return
	}
	via := append(slices.Clone(c.via), base)
	for _, f := range files {
		cmd := guard.Command{Name: guard.Lit(":"), Redirects: []guard.Redirect{{Op: ">", Target: guard.Lit(f.Path)}}}
		if f.Remove {
			cmd = guard.Command{Name: guard.Lit("rm"), Args: []guard.Word{guard.Lit("--"), guard.Lit(f.Path)}}
		}
		cmd.Cd, cmd.Depth, cmd.Via, cmd.Text = slices.Clone(c.sc.cd), c.sc.depth, via, c.text
		w.emit(cmd)
	}
}
