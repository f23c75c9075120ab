package shell

import (
	"slices"
	"strings"

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

// linkedNames are the files a link to a folder reaches that the guard's write rules name (the guard
// file, the harnesses' settings and hooks, abcd's machine configuration): a link to a folder is
// checked as writes to each of these in it.
var linkedNames = []string{"guard.json", "settings.json", "settings.local.json", "config.toml", "hooks.json", "config.json"}

// links reads ln, and cp -s: a write through a link is a write to what it names, so every path the
// command names (each target, and the link it makes) is checked as a write to it and, for a folder,
// to the guarded files in it, however it is spelled (absolute, through ~ or $HOME, a glob).
func (w *walker) links(c *cmdCall, base string) {
	if base == "cp" && !symbolic(c.words[1:]) {
		return
	}
	via := append(slices.Clone(c.via), base)
	options := true
	for i := 1; i < len(c.words); i++ {
		wd := c.words[i]
		if t, ok := wd.Text(); ok && options && strings.HasPrefix(t, "-") && t != "-" {
			if t == "--" {
				options = false
			} else if t == "-S" || t == "--suffix" {
				i++ // a backup suffix, no path (-t's folder is read as a path like the others)
			}
			continue
		}
		// through a link to a folder, L/../x is x beside that folder (the kernel follows the link
		// before ..), so each folder above the target is reached too
		ups := 0
		for _, p := range wd.Parts {
			ups += strings.Count(p.Text, "/")
		}
		if ups > maxLinkDepth {
			w.refuse(base + " names a path more than 12 folders deep, whose folders the guard does not check one by one")
			return
		}
		for up := 0; up <= ups; up++ {
			for _, name := range append([]string{""}, linkedNames...) {
				if up > 0 && name == "" {
					continue
				}
				target := wd
				if suffix := strings.Repeat("/..", up) + "/" + name; name != "" {
					target = guard.Word{Parts: append(slices.Clone(wd.Parts), guard.Part{Text: suffix, Quoted: true})}
				}
				w.emit(guard.Command{Name: guard.Lit(":"), Redirects: []guard.Redirect{{Op: ">", Target: target}}, Cd: slices.Clone(c.sc.cd),
					Depth: c.sc.depth, Via: via, Text: c.text})
			}
		}
	}
}

// maxLinkDepth bounds the folders above a link's target the guard checks.
const maxLinkDepth = 12

// symbolic is cp told to make symbolic links in place of copies.
func symbolic(words []guard.Word) bool {
	for _, wd := range words {
		t, _ := wd.Text()
		if t == "--" {
			return false
		}
		if t == "--symbolic-link" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "s") {
			return true
		}
	}
	return false
}
