package guard

import (
	"path"
	"slices"
	"strings"
)

// Context is where a line runs.
type Context struct {
	// Cwd is the absolute folder the line starts in.
	Cwd string
	// Repo is the repository root; empty outside a repository.
	Repo string
	// Machine is abcd's machine folder ($ABCD_HOME), which a {abcd} place glob names.
	Machine string
	// Unallowed is set while the repository's guard file weakens the built-in rules and the person has
	// not allowed it on this machine (the guard-unallowed class holds).
	Unallowed bool
}

// Finding is one rule that matched one command of the line.
type Finding struct {
	Rule    string
	Tier    Tier
	Certain bool
	Command string
	Via     []string
	Why     string
	Safer   string
}

// Verdict is the guard's answer for one line: the strongest finding decides.
type Verdict struct {
	Decision Tier
	// Rule, Why, Safer, Command and Via repeat the deciding finding; empty when the line is allowed.
	Rule     string
	Why      string
	Safer    string
	Command  string
	Via      []string
	Certain  bool
	Findings []Finding
}

// UnreadableRule is the id a verdict names when the line could not be read within the bounds.
const UnreadableRule = "unreadable"

// maxFindings bounds what one verdict lists.
const maxFindings = 32

// Evaluate checks every command of the line against every rule.
func (r *Registry) Evaluate(line Line, ctx Context) Verdict {
	if line.Refused != "" {
		f := Finding{Rule: UnreadableRule, Tier: Block, Certain: true, Why: line.Refused,
			Safer: "run a shorter or simpler command line: one command at a time, without deep nesting"}
		return decide([]Finding{f})
	}
	if r.Off {
		return Verdict{Decision: Allow, Findings: []Finding{}}
	}
	var found []Finding
	work := &budget{left: maxWork}
	for _, cmd := range line.Commands {
		if work.left < 0 {
			return decide([]Finding{{Rule: UnreadableRule, Tier: Block, Certain: true,
				Why: "the command line is too complex to check within the guard's bounds", Safer: "run a shorter or simpler command line: one command at a time"}})
		}
		w := newWhere(ctx, line.Home, cmd.Cd, work)
		w.cache = &cmdCache{}
		w.holds = line.Holds
		for _, rule := range r.Rules {
			if work.left < 0 {
				break
			}
			m := r.match(rule, cmd, w)
			if m == no {
				continue
			}
			tier := rule.Tier
			if m == maybe {
				tier = rule.unknownTier()
			}
			if tier == Allow {
				continue
			}
			f := Finding{Rule: rule.ID, Tier: tier, Certain: m == yes, Command: cmd.Text, Via: slices.Clone(cmd.Via), Why: rule.Why, Safer: rule.Safer}
			if f.Command == "" {
				f.Command = render(cmd)
			}
			if !f.Certain {
				f.Why += " (this rests on a value that is not known until the command runs)"
			}
			found = append(found, f)
			if len(found) >= maxFindings {
				return decide(found)
			}
		}
	}
	if work.left < 0 {
		return decide([]Finding{{Rule: UnreadableRule, Tier: Block, Certain: true,
			Why: "the command line is too complex to check within the guard's bounds", Safer: "run a shorter or simpler command line: one command at a time"}})
	}
	return decide(found)
}

func decide(found []Finding) Verdict {
	v := Verdict{Decision: Allow, Findings: found}
	if v.Findings == nil {
		v.Findings = []Finding{}
	}
	// The deciding finding is the highest tier, certain before uncertain, first in the line first.
	best := -1
	for i, f := range found {
		if best < 0 || f.Tier.rank() > found[best].Tier.rank() ||
			(f.Tier.rank() == found[best].Tier.rank() && f.Certain && !found[best].Certain) {
			best = i
		}
	}
	if best >= 0 {
		f := found[best]
		v.Decision, v.Rule, v.Why, v.Safer, v.Command, v.Via, v.Certain = f.Tier, f.Rule, f.Why, f.Safer, f.Command, f.Via, f.Certain
	}
	return v
}

// render shows a command from its words when the reader kept no text.
func render(c Command) string {
	parts := []string{c.Name.String()}
	for _, a := range c.Args {
		parts = append(parts, a.String())
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// match says whether rule matches cmd, and whether the match rests on an unknown value.
func (r *Registry) match(rule Rule, cmd Command, w where) tri {
	base := cmd.Base()
	res := yes
	guessed := false
	if len(rule.Command) > 0 {
		switch {
		case cmd.Opaque:
			return no
		case base == "":
			// A command whose name is unknown could be this one, when what the rule asks of its
			// words holds.
			name, ok := w.nameFits(cmd.Name, rule.Command)
			if !ok || (len(rule.Subcommand) == 0 && len(rule.All) == 0) {
				return no
			}
			base, res, guessed = name, maybe, true
		case strings.ContainsAny(base, "*?["):
			// /bin/r? runs whatever the glob finds: any of the rule's commands it can match
			name := ""
			for _, c := range rule.Command {
				if ok, _ := path.Match(goGlob(base), c); ok {
					name = c
					break
				}
			}
			if name == "" {
				return no
			}
			base, res = name, maybe
		case !slices.Contains(rule.Command, base):
			return no
		}
	}
	a, ok := r.split(base, cmd.Args, len(rule.Subcommand))
	if !ok {
		return no
	}
	for i, want := range rule.Subcommand {
		t, known := a.sub[i].Text()
		switch {
		case !known:
			res = min(res, maybe)
		case !slices.Contains(strings.Split(want, "|"), t):
			return no
		}
	}
	certain := len(rule.Subcommand) > 0
	for _, c := range rule.All {
		t := r.cond(c, a, cmd, w)
		certain = certain || t == yes
		res = min(res, t)
		if res == no {
			return no
		}
	}
	if guessed && !certain {
		return no
	}
	for _, c := range rule.None {
		if r.cond(c, a, cmd, w) == yes {
			return no
		}
	}
	return res
}

// cond evaluates one condition over a command's split words.
func (r *Registry) cond(c Cond, a args, cmd Command, w where) tri {
	best := no
	words := append(slices.Clone(a.operands), a.unknown...)
	switch {
	case len(c.Flag) > 0:
		for _, o := range a.opts {
			switch {
			case o.any:
				if !c.Exact {
					best = max(best, maybe)
				}
			case !slices.Contains(c.Flag, o.name):
			case len(c.Value) == 0:
				return yes
			case o.value != nil:
				best = max(best, operandTri(*o.value, c.Value, c.NoCase, c.Exact))
			}
		}
		if len(a.unknown) > 0 && !c.Exact && mayHoldMore(a) {
			best = max(best, maybe)
		}
	case len(c.Class) > 0:
		for _, k := range c.Class {
			best = max(best, r.classCond(k, words, cmd, w))
			if best == yes || w.work.left < 0 {
				return best
			}
		}
	case len(c.Operand) > 0:
		for _, op := range words {
			best = max(best, operandTri(op, c.Operand, c.NoCase, c.Exact))
		}
	case len(c.Word) > 0:
		for _, op := range cmd.Args[len(cmd.Args)-wordsAfterSub(a, cmd):] {
			best = max(best, globTri(op, c.Word, c.NoCase, c.Exact))
		}
	case len(c.From) > 0:
		for _, op := range words {
			for _, p := range op.Parts {
				if p.Hole && p.From != "" && slices.ContainsFunc(strings.Fields(p.From), func(s string) bool { return slices.Contains(c.From, s) }) {
					return yes
				}
			}
		}
	case len(c.Config) > 0:
		for _, kv := range a.config {
			best = max(best, configTri(kv, c))
		}
	case len(c.Env) > 0:
		for _, e := range cmd.Env {
			kv := Word{Parts: append([]Part{{Text: e.Name + "="}}, e.Value.Parts...)}
			best = max(best, globTri(kv, c.Env, c.NoCase, c.Exact))
		}
	case len(c.Redirect) > 0:
		for _, t := range w.writes(r, cmd) {
			best = max(best, w.written(t, c.Redirect, c.NoCase, c.Exact))
			if best == yes {
				return yes
			}
		}
	case c.Opaque:
		return boolTri(cmd.Opaque)
	}
	return best
}

// wordsAfterSub counts the words after the command's subcommand words.
func wordsAfterSub(a args, cmd Command) int {
	n := len(cmd.Args)
	for i, w := range cmd.Args {
		if len(a.sub) > 0 && sameWord(w, a.sub[len(a.sub)-1]) {
			return n - i - 1
		}
	}
	return n
}

func sameWord(a, b Word) bool {
	return slices.EqualFunc(a.Parts, b.Parts, func(x, y Part) bool {
		return x.Text == y.Text && x.Quoted == y.Quoted && x.Hole == y.Hole && x.Var == y.Var && x.From == y.From && x.Output == y.Output
	})
}

// mayHoldMore reports whether a command's unknown words could stand for an option and something
// more: two or more words, or one an unquoted value that the shell may split into several. A lone
// "$f" is one word, so it cannot be both rm's -r and the folder it removes.
func mayHoldMore(a args) bool {
	if len(a.unknown)+len(a.operands) >= 2 {
		return true
	}
	for _, w := range a.unknown {
		for _, p := range w.Parts {
			if p.Hole && !p.Quoted {
				return true
			}
		}
	}
	return false
}

// classCond evaluates one class: a place class over the operands (src: and dest: narrow it to what a
// copy, move or sync takes from and puts to), or a class of the command itself.
func (r *Registry) classCond(k string, words []Word, cmd Command, w where) tri {
	switch k {
	case "fork-bomb":
		return boolTri(cmd.Spawns)
	case "guard-unallowed":
		return boolTri(w.unallowed)
	case "remote":
		return boolTri(cmd.Remote)
	case "installs-abcd":
		return w.installsAbcd(r, cmd)
	case "installs-service":
		return installsService(cmd)
	}
	if scope, place, scoped := strings.Cut(k, ":"); scoped {
		k = place
		switch scope {
		case "send":
			globs := credentialPlaces
			if place == "secret-vars" {
				globs = secretVars
			}
			best := no
			for _, s := range w.sends(r, cmd) {
				if best = max(best, w.sentFrom(s, globs)); best == yes {
					return yes
				}
			}
			return best
		case "mount":
			words = Mounts(cmd)
		default:
			dest, srcs, ok := r.Destination(cmd)
			if !ok {
				return no
			}
			words = srcs
			if scope == "dest" {
				words = []Word{dest}
			}
		}
	}
	best := no
	for _, op := range words {
		best = max(best, w.classOf(k, op))
		if best == yes || w.work.left < 0 {
			return best
		}
	}
	return best
}

// nameFits is the first of names a command name with unknown parts could spell.
func (w where) nameFits(name Word, names []string) (string, bool) {
	if name.AllHole() {
		return names[0], true
	}
	if name.Known() {
		return "", false
	}
	pat := w.pattern(name)
	for _, n := range names {
		if fits(pat, n) || fits(pat, "/bin/"+n) {
			return n, true
		}
	}
	return "", false
}

// sends are what cmd sends off the machine, read once per command however many rules ask.
func (w where) sends(r *Registry, cmd Command) []Sent {
	if w.cache == nil {
		return r.Sends(cmd)
	}
	if !w.cache.sentRead {
		w.cache.sent, w.cache.sentRead = r.Sends(cmd), true
	}
	return w.cache.sent
}

// sentFrom says whether what s sends comes from a place or a variable one of globs names: the file
// itself, the files read into its data and the variables in it.
func (w where) sentFrom(s Sent, globs []string) tri {
	var places, vars []string
	for _, g := range globs {
		if v, ok := strings.CutPrefix(g, "$"); ok {
			vars = append(vars, v)
		} else {
			places = append(places, g)
		}
	}
	best := no
	sources := s.Word.Sources()
	if s.File && len(places) > 0 {
		file := s.Word
		if len(file.Parts) > 0 && file.Parts[0].Quoted && strings.HasPrefix(file.Parts[0].Text, "~") {
			// a sender told of "~/.netrc" may well read it as home (httpie, scripts): take it so
			file.Parts = slices.Clone(file.Parts)
			file.Parts[0].Quoted = false
		}
		best = w.written(Target{Word: file, Tree: s.Tree}, places, true, true)
	}
	if s.File {
		sources = append(sources, w.held(s.Word)...)
	}
	for i := 0; i < len(sources) && i < maxHeld; i++ {
		if f := sources[i].File; len(f.Parts) > 0 {
			// a file the line wrote from a secret holds the secret (cp, tar, cmd > file)
			sources = append(sources, w.held(f)...)
		}
	}
	for _, src := range sources {
		switch {
		case src.Var != "":
			if !s.Auth && matchAny(vars, src.Var, true) {
				return yes
			}
		case len(places) > 0 && best != yes:
			best = max(best, w.written(Target{Word: src.File, Tree: true}, places, true, true))
		}
	}
	return best
}

// maxHeld bounds the sources followed through the files a line writes from other files.
const maxHeld = 64

// held is what the line wrote into the file f names, as far as it knows: what it copied, archived
// or redirected there.
func (w where) held(f Word) []Source {
	t, ok := f.Text()
	if !ok || len(w.holds) == 0 {
		return nil
	}
	return w.holds[path.Clean(t)]
}

// writes are what cmd writes, read once per command however many rules ask.
func (w where) writes(r *Registry, cmd Command) []Target {
	if w.cache == nil {
		return r.Writes(cmd)
	}
	if !w.cache.read {
		w.cache.targets, w.cache.read = r.Writes(cmd), true
	}
	return w.cache.targets
}

// configTri matches one KEY=VALUE git is given: a glob with = against all of it, one without
// against the key.
func configTri(kv Word, c Cond) tri {
	var keyGlobs, kvGlobs []string
	for _, g := range c.Config {
		if strings.Contains(g, "=") {
			kvGlobs = append(kvGlobs, g)
		} else {
			keyGlobs = append(keyGlobs, g)
		}
	}
	key := Word{}
	for _, p := range kv.Parts {
		if !p.Hole {
			if k, _, found := strings.Cut(p.Text, "="); found {
				key.Parts = append(key.Parts, Part{Text: k})
				break
			}
		}
		key.Parts = append(key.Parts, p)
	}
	best := no
	if len(keyGlobs) > 0 {
		best = max(best, globTri(key, keyGlobs, true, c.Exact))
	}
	if len(kvGlobs) > 0 {
		best = max(best, globTri(kv, kvGlobs, true, c.Exact))
	}
	return best
}
