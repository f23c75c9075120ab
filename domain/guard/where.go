package guard

import (
	"path"
	"slices"
	"strings"
)

// where is what a command knows about places: its cwd possibilities, home and the repository root.
type where struct {
	work    *budget
	cwds    []string // absolute or home-rooted (~/...); "" is a folder that cannot be known
	unsure  bool     // a cd earlier in the line may not have gone where it says
	changed bool
	home    string
	repo    string
	machine string // abcd's machine folder, normalised
	// unallowed: the repository's guard file weakens the built-in rules and is not allowed here.
	unallowed bool
	cache     *cmdCache
	// holds are what the files the line writes were made from (Line.Holds).
	holds map[string][]Source
}

// cmdCache holds what is read once per command.
type cmdCache struct {
	read    bool
	targets []Target
	// sent is what the command sends off the machine, once sentRead.
	sentRead bool
	sent     []Sent
}

// budget bounds the matching work one line may cause; past it the line is blocked as too complex.
type budget struct {
	left int
}

// maxWork is the matching work one line may cause (one unit a place compared).
const maxWork = 50_000

func (b *budget) spend(n int) bool {
	b.left -= n
	return b.left >= 0
}

// maxCwds bounds the folders a line's cd steps can leave a command in.
const maxCwds = 8

func newWhere(ctx Context, home string, cd []CdStep, work *budget) where {
	w := where{home: home, repo: "", work: work, unallowed: ctx.Unallowed}
	w.cwds = []string{w.norm(ctx.Cwd)}
	if ctx.Repo != "" {
		w.repo = w.norm(ctx.Repo)
	}
	if ctx.Machine != "" {
		w.machine = w.norm(ctx.Machine)
	}
	for _, step := range cd {
		w.changed = true
		next := ""
		switch t, ok := step.Target.Text(); {
		case step.Home:
			next = "~"
		case !ok:
			// cd "$HOME/.." and cd "$PWD/x" resolve as rm's operands do
			if pat := w.pattern(step.Target); len(pat) == 1 && !pat[0].hole {
				next = w.resolve(pat[0].text, Lit(pat[0].text), w.cwds)
			}
		case t == "-":
			next = ""
		default:
			next = w.resolve(t, step.Target, w.cwds)
		}
		if !step.Sure && !cannotFail(step) {
			w.unsure = true
			w.cwds = append(w.cwds, next)
		} else {
			w.cwds = []string{next}
		}
		if next == "" {
			w.unsure = true
		}
		slices.Sort(w.cwds)
		w.cwds = slices.Compact(w.cwds)
		if len(w.cwds) > maxCwds {
			w.cwds = append(w.cwds[:maxCwds-1], "")
		}
	}
	return w
}

// cannotFail reports a cd that always succeeds, so what follows it runs there even after a ;: a
// bare cd, cd /, cd ~, and cd .., ../.. (every folder has a parent).
func cannotFail(step CdStep) bool {
	if step.Home {
		return true
	}
	t, ok := step.Target.Text()
	if !ok || step.Target.Parts[0].Quoted && strings.HasPrefix(t, "~") {
		return false
	}
	return t == "/" || t == "~" || strings.Trim(strings.ReplaceAll(t, "..", ""), "/") == "" && strings.Contains(t, "..")
}

// norm cleans an absolute path and writes a path under home as ~/...
func (w where) norm(p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "~") {
		head, rest, _ := strings.Cut(p, "/")
		if head == "~" && w.home != "" {
			// ~/.. is the folder above home: resolve it before cleaning
			return w.norm(path.Join(w.home, rest))
		}
		if user := head[1:]; validUser(user) {
			// ~name is that account's home: /root for root, /home/name for the rest
			dir := "/home/" + user
			if user == "root" {
				dir = "/root"
			}
			if w.home != "" && path.Base(w.home) == user {
				dir = w.home
			}
			return w.norm(path.Join(dir, rest))
		}
		c := path.Clean(head + "/" + rest)
		if c == "." || c == ".." || strings.HasPrefix(c, "../") {
			return ""
		}
		return c
	}
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	p = path.Clean(p)
	if w.home != "" && w.home != "/" {
		if p == w.home {
			return "~"
		}
		if rest, ok := strings.CutPrefix(p, w.home+"/"); ok {
			return "~/" + rest
		}
	}
	return p
}

// resolve turns a cd target against the only cwd (or an unknown one when there are several).
func (w where) resolve(t string, word Word, cwds []string) string {
	if strings.HasPrefix(t, "/") || (strings.HasPrefix(t, "~") && !word.Parts[0].Quoted) {
		return w.norm(t)
	}
	if len(cwds) != 1 || cwds[0] == "" {
		return ""
	}
	return w.norm(w.join(cwds[0], t))
}

func joinPath(dir, rel string) string {
	if strings.HasPrefix(dir, "~") {
		return path.Clean(dir + "/" + rel)
	}
	return path.Join(dir, rel)
}

// systemDirs are top-level folders whose removal breaks the machine.
var systemDirs = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/opt", "/proc", "/root",
	"/sbin", "/srv", "/sys", "/usr", "/var", "/home", "/Users", "/System", "/Library", "/Applications", "/private",
	"/usr/bin", "/usr/lib", "/usr/local", "/usr/sbin", "/usr/share", "/etc/ssh", "/var/lib", "/var/log"}

// probes are names a glob in a folder is tried against: a glob matching any of them reaches the
// folder's ordinary contents.
var probes = []string{"a", ".a", "usr", "src", ".git", ".ssh", "Documents"}

// classOf says whether one operand names a place of class k.
func (w where) classOf(k string, word Word) tri {
	if !w.work.spend(1) {
		return maybe
	}
	// $HOME at the start is home and $PWD the folder it runs in: a word with no other unknown part
	// is known.
	if pat := w.pattern(word); len(pat) == 1 && !pat[0].hole && !word.Known() {
		word = Word{Parts: []Part{{Text: pat[0].text}}}
	}
	if word.AllHole() {
		if k == "after-cd" && !(w.changed && w.unsure) {
			return no
		}
		return maybe
	}
	raw, known := word.Text()
	if !known {
		if k == "git-tree" {
			if last := word.Parts[len(word.Parts)-1]; !last.Hole && inGitDir(last.Text) && strings.Contains(last.Text, ".git/") {
				return yes
			}
		}
		if k == "git-dir" {
			// find -name .git -exec rm -rf {}: whatever folder it is in, it is a .git folder
			if last := word.Parts[len(word.Parts)-1]; !last.Hole && foldName(path.Base(path.Clean("/"+last.Text))) == ".git" && strings.Contains(last.Text, "/") {
				return yes
			}
		}
		return w.holeClass(k, word)
	}
	quotedTilde := word.Parts[0].Quoted && strings.HasPrefix(raw, "~")
	switch k {
	case "cwd":
		return boolTri(isCwdAll(raw))
	case "after-cd":
		return boolTri(w.changed && w.unsure && isCwdAll(raw))
	case "git-dir":
		c := path.Clean(raw)
		return boolTri(foldName(path.Base(c)) == ".git")
	case "git-tree":
		return boolTri(inGitDir(raw))
	}
	if strings.HasPrefix(raw, "~") && !quotedTilde {
		head, _, _ := strings.Cut(raw, "/")
		if head != "~" && k == "home" {
			// ~name is another account's home
			return boolTri(path.Clean(raw) == head || isGlobAll(path.Clean(raw), head))
		}
	}
	best := no
	glob := unquotedGlob(word) && k != "git-dir" && k != "git-tree"
	for _, p := range w.places(raw, quotedTilde) {
		if p.place == "" {
			continue
		}
		if glob && w.globPlace(k, p.place) || !glob && w.inClass(k, p.place) {
			if p.sure {
				return yes
			}
			best = maybe
		}
	}
	return best
}

type resolved struct {
	place string
	sure  bool
}

// places are the paths an operand can name, one per possible cwd.
func (w where) places(raw string, quotedTilde bool) []resolved {
	if strings.HasPrefix(raw, "/") || (strings.HasPrefix(raw, "~") && !quotedTilde) {
		return []resolved{{w.norm(raw), true}}
	}
	out := make([]resolved, 0, len(w.cwds))
	for _, c := range w.cwds {
		if c == "" {
			continue
		}
		out = append(out, resolved{w.norm(w.join(c, raw)), len(w.cwds) == 1})
	}
	return out
}

// join is rel in dir, a dir under home read in full so that .. can climb above home.
func (w where) join(dir, rel string) string {
	if strings.HasPrefix(dir, "~") && w.home != "" && (dir == "~" || strings.HasPrefix(dir, "~/")) {
		return path.Join(w.home+strings.TrimPrefix(dir, "~"), rel)
	}
	return joinPath(dir, rel)
}

// inClass is whether a normalised path is one of the class's places, everything in one, or (for home
// and repo) a folder above one.
func (w where) inClass(k, p string) bool {
	dir := p
	glob := hasGlob(path.Base(p))
	if glob {
		if !globReaches(path.Base(p)) {
			return false
		}
		dir = path.Dir(p)
	}
	switch k {
	case "root":
		return dir == "/"
	case "system":
		return slices.Contains(systemDirs, dir) || (glob && dir == "/")
	case "home":
		if dir == "~" || strings.HasPrefix(dir, "~") && !strings.Contains(dir, "/") {
			return true
		}
		return w.home != "" && dir != "/" && isAbove(dir, w.home)
	case "repo":
		if w.repo == "" {
			return false
		}
		return dir == w.repo || (dir != "/" && dir != "~" && isAbove(dir, w.repo)) || (dir == "~" && strings.HasPrefix(w.repo, "~/"))
	}
	return false
}

// isAbove reports whether dir is a folder holding target (both normalised the same way).
func isAbove(dir, target string) bool {
	if strings.HasPrefix(target, "~") != strings.HasPrefix(dir, "~") {
		return false
	}
	return strings.HasPrefix(target, strings.TrimSuffix(dir, "/")+"/")
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

func globReaches(base string) bool {
	for _, p := range probes {
		if ok, _ := path.Match(base, p); ok {
			return true
		}
	}
	return false
}

func isGlobAll(p, dir string) bool {
	return path.Dir(p) == dir && hasGlob(path.Base(p)) && globReaches(path.Base(p))
}

// isCwdAll is ., .., or a glob over everything in either.
func isCwdAll(raw string) bool {
	c := path.Clean(raw)
	if c == "." || c == ".." {
		return true
	}
	d, b := path.Dir(c), path.Base(c)
	return (d == "." || d == "..") && hasGlob(b) && globReaches(b)
}

// holeClass asks whether a word with unknown parts could name a place of the class: each class's
// places are tried as targets the word's known text must fit around its holes.
func (w where) holeClass(k string, word Word) tri {
	if len(word.Parts) > 12 {
		return maybe
	}
	pat := w.pattern(word)
	var targets []string
	switch k {
	case "root":
		targets = []string{"/", "/*", "/."}
	case "system":
		for _, d := range systemDirs {
			targets = append(targets, d, d+"/", d+"/*")
		}
	case "home":
		targets = []string{"~", "~/", "~/*", "~/.*"}
		for d := w.home; d != "/" && d != "." && d != ""; d = path.Dir(d) {
			targets = append(targets, d, d+"/", d+"/*")
		}
	case "repo":
		if w.repo == "" {
			return no
		}
		for d := w.repo; d != "/" && d != "." && d != "~" && d != ""; d = path.Dir(d) {
			targets = append(targets, d, d+"/", d+"/*")
		}
	case "cwd":
		targets = []string{".", "./", "*", "./*", "..", "../", "../*", ".*"}
	case "after-cd":
		if !(w.changed && w.unsure) {
			return no
		}
		targets = []string{".", "./", "*", "./*", "..", "../", "../*", ".*"}
	case "git-dir":
		targets = []string{".git", "./.git", "*/.git"}
	case "git-tree":
		targets = []string{".git", "./.git", "*/.git", ".git/a", "*/.git/a"}
	}
	if !w.work.spend(len(targets) * (len(w.cwds) + 1) * len(pat)) {
		return maybe
	}
	for _, t := range targets {
		if fits(pat, t) {
			return maybe
		}
		if k != "cwd" && k != "after-cd" && k != "git-dir" && k != "git-tree" && len(pat) > 0 && !pat[0].hole && !strings.HasPrefix(pat[0].text, "/") && !strings.HasPrefix(pat[0].text, "~") {
			for _, c := range w.cwds {
				prefixed := append([]seg{{text: c + "/"}}, pat...)
				if c == "" {
					prefixed = append([]seg{{hole: true}, {text: "/"}}, pat...)
				}
				if fits(prefixed, t) {
					return maybe
				}
			}
		}
	}
	return no
}

// pattern is a word as literal runs and holes; $HOME at its start is home, $PWD is the cwd when only
// one is possible.
func (w where) pattern(word Word) []seg {
	var out []seg
	for i, p := range word.Parts {
		switch {
		case p.Hole && p.Var == "HOME" && i == 0:
			out = append(out, seg{text: "~"})
		case p.Hole && p.Var == "PWD" && i == 0 && len(w.cwds) == 1 && w.cwds[0] != "":
			out = append(out, seg{text: w.cwds[0]})
		case p.Hole && p.Var == "ABCD_HOME" && i == 0 && w.machine != "":
			out = append(out, seg{text: w.machine})
		case p.Hole:
			if len(out) == 0 || !out[len(out)-1].hole {
				out = append(out, seg{hole: true})
			}
		default:
			if len(out) > 0 && !out[len(out)-1].hole {
				out[len(out)-1].text += p.Text
			} else {
				out = append(out, seg{text: p.Text})
			}
		}
	}
	if len(out) > 1 && !out[0].hole && strings.Contains(out[0].text, "..") {
		// "$HOME/../$USER": the known folders before the unknown part resolve first
		t := out[0].text
		if i := strings.LastIndexByte(t, '/'); i > 0 && (strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~")) {
			if dir := w.norm(t[:i]); dir != "" {
				out[0].text = strings.TrimSuffix(dir, "/") + "/" + t[i+1:]
			}
		}
	}
	if len(out) > 0 && !out[0].hole && w.home != "" {
		t := out[0].text
		if t == w.home || strings.HasPrefix(t, w.home+"/") {
			out[0].text = "~" + strings.TrimPrefix(t, w.home)
		}
	}
	return out
}

// inGitDir reports a path that is a .git folder or in one (folded as the file systems fold names).
func inGitDir(p string) bool {
	return slices.Contains(strings.Split(foldName(path.Clean(p)), "/"), ".git")
}
