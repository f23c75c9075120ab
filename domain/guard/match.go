package guard

import (
	"path"
	"slices"
	"strings"
)

// tri is a match that may rest on a value that cannot be known.
type tri int

const (
	no tri = iota
	maybe
	yes
)

// opt is one option as written: -r from -rf, --force from --forc=..., or any option at all when the
// word's text is unknown.
type opt struct {
	name  string
	value *Word
	any   bool
}

// args is a command's words split the way the command reads them.
type args struct {
	sub      []Word
	opts     []opt
	operands []Word
	// unknown are words whose text is unknown from their first character: options or operands.
	unknown []Word
	config  []Word
}

// split reads a command's words the way it does: global options and subs subcommand words for a
// command with subcommands, then options and operands by the longest syntax described for them.
func (r *Registry) split(base string, words []Word, subs int) (args, bool) {
	var a args
	rest := words
	top := r.syntax[base]
	body := Syntax{}
	if top.Style == "subcommand" {
		g := r.getopt(words, top, true)
		a.opts, a.unknown, a.config = g.opts, g.unknown, g.config
		rest = g.operands
	} else {
		body = top
	}
	if len(rest) < subs {
		return a, false
	}
	a.sub, rest = rest[:subs], rest[subs:]
	names := []string{base}
	for _, w := range a.sub {
		t, _ := w.Text()
		names = append(names, t)
	}
	for n := len(names); n > 1; n-- {
		if s, ok := r.syntax[strings.Join(names[:n], " ")]; ok {
			body = s
			break
		}
	}
	var b args
	if body.Style == "find" {
		b = findArgs(rest)
	} else {
		b = r.getopt(rest, body, false)
	}
	a.opts = append(a.opts, b.opts...)
	a.operands = b.operands
	a.unknown = append(a.unknown, b.unknown...)
	return a, true
}

// getopt reads options anywhere until -- (or, for global options, until the first operand, which
// is the subcommand and everything after it).
func (r *Registry) getopt(words []Word, syn Syntax, global bool) args {
	var a args
	for i := 0; i < len(words); i++ {
		w := words[i]
		t, known := w.Text()
		if !known {
			pre := w.prefix()
			switch {
			case strings.HasPrefix(pre, "-") && pre != "-":
				a.opts = append(a.opts, opt{name: pre, any: true})
			case pre == "" && w.AllHole():
				if global {
					a.operands = words[i:]
					return a
				}
				a.unknown = append(a.unknown, w)
			default:
				if global {
					a.operands = words[i:]
					return a
				}
				a.operands = append(a.operands, w)
			}
			continue
		}
		if t == "--" && !global {
			a.operands = append(a.operands, words[i+1:]...)
			return a
		}
		if t == "-" || !strings.HasPrefix(t, "-") {
			if global {
				a.operands = words[i:]
				return a
			}
			a.operands = append(a.operands, w)
			continue
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t, "=")
			name = resolveLong(name, syn)
			o := opt{name: name}
			switch {
			case hasVal:
				v := Lit(val)
				o.value = &v
			case slices.Contains(syn.Values, name) && i+1 < len(words):
				v := words[i+1]
				o.value = &v
				i++
			}
			a.opts = negate(a.opts, o, syn.Negate)
			if global && (name == "--config-env") && o.value != nil {
				a.config = append(a.config, *o.value)
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			o := opt{name: "-" + string(t[j])}
			if slices.Contains(syn.Values, o.name) {
				switch {
				case j+1 < len(t):
					v := Lit(t[j+1:])
					o.value = &v
				case i+1 < len(words):
					v := words[i+1]
					o.value = &v
					i++
				}
				a.opts = append(a.opts, o)
				if global && o.name == "-c" && o.value != nil {
					a.config = append(a.config, *o.value)
				}
				break
			}
			a.opts = append(a.opts, o)
		}
	}
	return a
}

// negate applies git's --no-X: the later of --X and --no-X wins.
func negate(opts []opt, o opt, abbrev bool) []opt {
	if abbrev {
		other := "--no-" + strings.TrimPrefix(o.name, "--")
		if rest, ok := strings.CutPrefix(o.name, "--no-"); ok {
			other = "--" + rest
		}
		opts = slices.DeleteFunc(opts, func(p opt) bool { return p.name == other })
	}
	return append(opts, o)
}

// resolveLong reads an abbreviated long option as the one option it can only mean, the way
// getopt_long and git's parser do; an ambiguous prefix stays as written (the command refuses it, so
// nothing runs).
func resolveLong(name string, syn Syntax) string {
	if !syn.Abbrev || len(syn.Long) == 0 || slices.Contains(syn.Long, name) {
		return name
	}
	cands := map[string]bool{}
	for _, l := range syn.Long {
		cands[l] = true
		if syn.Negate && !strings.HasPrefix(l, "--no-") {
			cands["--no-"+strings.TrimPrefix(l, "--")] = true
		}
	}
	if cands[name] {
		return name
	}
	var found string
	count := 0
	for c := range cands {
		if strings.HasPrefix(c, name) {
			found = c
			count++
		}
	}
	if count == 1 {
		return found
	}
	return name
}

// findArgs reads find: options -H -L -P -D x -Ox, start points, then an expression whose words are
// options matched whole (-delete, -exec).
func findArgs(words []Word) args {
	var a args
	i := 0
	for ; i < len(words); i++ {
		t, known := words[i].Text()
		if !known {
			break
		}
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") {
			continue
		}
		if t == "-D" {
			i++
			continue
		}
		break
	}
	for ; i < len(words); i++ {
		w := words[i]
		t, known := w.Text()
		if known && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == ",") {
			break
		}
		if !known && strings.HasPrefix(w.prefix(), "-") {
			break
		}
		a.operands = append(a.operands, w)
	}
	for ; i < len(words); i++ {
		w := words[i]
		t, known := w.Text()
		switch {
		case known && strings.HasPrefix(t, "-"):
			a.opts = append(a.opts, opt{name: t})
			if (t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir") && i+1 < len(words) && deletes(words[i+1:]) {
				// -exec rm {} deletes what find walks, as -delete does
				a.opts = append(a.opts, opt{name: "-delete"})
			}
		case !known && w.prefix() == "":
			a.unknown = append(a.unknown, w)
		}
	}
	return a
}

// removers are the programs that delete the files find hands them.
var removers = []string{"rm", "rmdir", "unlink", "shred", "srm", "rimraf", "trash", "trash-put", "gio"}

// deletes reports an -exec whose command removes what it is given: rm {}, or a shell whose string
// runs rm.
func deletes(words []Word) bool {
	for i, w := range words {
		t, ok := w.Text()
		if !ok || t == ";" || t == "+" {
			return false
		}
		if t == "sudo" || t == "command" || t == "env" || t == "nice" || strings.HasPrefix(t, "-") && i > 0 {
			continue
		}
		base := t[strings.LastIndexByte(t, '/')+1:]
		if slices.Contains(removers, base) {
			return true
		}
		if base == "mv" {
			// mv {} /dev/null throws each file away
			return slices.ContainsFunc(words[i+1:], func(x Word) bool { s, _ := x.Text(); return s == "/dev/null" })
		}
		if base == "sh" || base == "bash" || base == "zsh" || base == "dash" {
			for _, x := range words[i+1:] {
				if s, ok := x.Text(); ok && (strings.Contains(s, "rm ") || strings.Contains(s, "unlink ") || strings.Contains(s, "shred ")) {
					return true
				}
			}
		}
		return false
	}
	return false
}

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
}

// cmdCache holds what is read once per command.
type cmdCache struct {
	read    bool
	targets []Target
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
		if k == "git-dir" {
			// find -name .git -exec rm -rf {}: whatever folder it is in, it is a .git folder
			if last := word.Parts[len(word.Parts)-1]; !last.Hole && path.Base(path.Clean("/"+last.Text)) == ".git" && strings.Contains(last.Text, "/") {
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
		return boolTri(path.Base(c) == ".git")
	}
	if strings.HasPrefix(raw, "~") && !quotedTilde {
		head, _, _ := strings.Cut(raw, "/")
		if head != "~" && k == "home" {
			// ~name is another account's home
			return boolTri(path.Clean(raw) == head || isGlobAll(path.Clean(raw), head))
		}
	}
	best := no
	glob := unquotedGlob(word) && k != "git-dir"
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
	}
	if !w.work.spend(len(targets) * (len(w.cwds) + 1) * len(pat)) {
		return maybe
	}
	for _, t := range targets {
		if fits(pat, t) {
			return maybe
		}
		if k != "cwd" && k != "after-cd" && k != "git-dir" && len(pat) > 0 && !pat[0].hole && !strings.HasPrefix(pat[0].text, "/") && !strings.HasPrefix(pat[0].text, "~") {
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

type seg struct {
	text string
	hole bool
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

// fits reports whether the segments can spell target, each hole standing for any text.
func fits(pat []seg, target string) bool {
	if len(pat) == 0 {
		return target == ""
	}
	if !pat[0].hole {
		rest, ok := strings.CutPrefix(target, pat[0].text)
		if !ok {
			// a doubled slash reads the same as one
			if strings.HasSuffix(pat[0].text, "/") {
				if rest2, ok2 := strings.CutPrefix(target, strings.TrimSuffix(pat[0].text, "/")); ok2 && rest2 == "" && len(pat) > 1 {
					return fits(pat[1:], rest2)
				}
			}
			return false
		}
		return fits(pat[1:], rest)
	}
	if len(pat) == 1 {
		return true
	}
	for i := 0; i <= len(target); i++ {
		if fits(pat[1:], target[i:]) {
			return true
		}
	}
	return false
}

// globTri matches a word against globs: yes when it matches whatever its holes hold, maybe when it
// matches for some values.
func globTri(word Word, globs []string, nocase, exact bool) tri {
	if t, ok := word.Text(); ok {
		return boolTri(matchAny(globs, t, nocase))
	}
	if exact && word.AllHole() {
		return no
	}
	hits := 0
	probesFor := []string{"", "a", "/", "-"}
	for _, v := range probesFor {
		var b strings.Builder
		for _, p := range word.Parts {
			if p.Hole {
				b.WriteString(v)
			} else {
				b.WriteString(p.Text)
			}
		}
		if matchAny(globs, b.String(), nocase) {
			hits++
		}
	}
	switch {
	case hits == len(probesFor):
		return yes
	case hits > 0 || word.AllHole():
		return maybe
	}
	// of=$(lsblk ...) could be of=/dev/sda: the known text fits around the unknown parts
	segs := segments(word, nocase)
	for _, g := range globs {
		ex := placeGlob{glob: g}.example()
		if nocase {
			ex = strings.ToLower(ex)
		}
		if fits(segs, ex) {
			return maybe
		}
	}
	return no
}

// segments is a word as known runs and holes, for fits.
func segments(word Word, lower bool) []seg {
	var out []seg
	for _, p := range word.Parts {
		switch {
		case p.Hole:
			if len(out) == 0 || !out[len(out)-1].hole {
				out = append(out, seg{hole: true})
			}
		case len(out) > 0 && !out[len(out)-1].hole:
			out[len(out)-1].text += p.Text
		default:
			out = append(out, seg{text: p.Text})
		}
	}
	if lower {
		for i := range out {
			out[i].text = strings.ToLower(out[i].text)
		}
	}
	return out
}

func matchAny(globs []string, s string, nocase bool) bool {
	if nocase {
		s = strings.ToLower(s)
	}
	for _, g := range globs {
		if nocase {
			g = strings.ToLower(g)
		}
		if ok, _ := path.Match(g, s); ok {
			return true
		}
		// a glob without a slash matches a value with slashes whole, as * does in a shell case
		if !strings.Contains(g, "/") && strings.Contains(s, "/") {
			if ok, _ := path.Match(g, strings.ReplaceAll(s, "/", "\x00")); ok {
				return true
			}
		}
	}
	return false
}

func boolTri(b bool) tri {
	if b {
		return yes
	}
	return no
}

// validUser is a name ~name can expand (letters, digits, ., _ and -).
func validUser(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
