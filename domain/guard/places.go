package guard

import (
	"path"
	"strings"
)

// A place glob names files by where they are, not by how a command spells them: it starts with /, ~
// (the home folder), {repo} (the repository root), {abcd} (abcd's machine folder) or **/ (any
// folder); a trailing /** takes the place and everything under it. A written target is resolved the
// way the shell resolves it (~, $HOME, $PWD, .., the folder after the line's cds) before it is
// compared, and a target that is itself a pattern (a glob, or a value not known until it runs) is
// taken to name every protected place it can match.

// isPlaceGlob reports a glob written as a place rather than as text.
func isPlaceGlob(g string) bool {
	return strings.HasPrefix(g, "/") || strings.HasPrefix(g, "~") || strings.HasPrefix(g, "{") || strings.HasPrefix(g, "**/")
}

// placeGlob is one place glob with its placeholders resolved, in the normalised form where (~/...
// for what is under home).
type placeGlob struct {
	glob    string // the exact path or pattern; for a suffix glob, the part after **/
	subtree bool   // glob/** : the place and everything under it
	suffix  bool   // **/glob : the glob in any folder
}

// resolveGlob turns a place glob into its normalised form; ok is false when its placeholder is not
// known here (no repository, no machine folder).
func (w where) resolveGlob(g string) (placeGlob, bool) {
	var pg placeGlob
	if rest, ok := strings.CutPrefix(g, "**/"); ok {
		pg.suffix, g = true, rest
	}
	if rest, ok := strings.CutSuffix(g, "/**"); ok {
		pg.subtree, g = true, rest
	}
	switch {
	case pg.suffix:
	case strings.HasPrefix(g, "{repo}"):
		if w.repo == "" {
			return pg, false
		}
		g = w.repo + strings.TrimPrefix(g, "{repo}")
	case strings.HasPrefix(g, "{abcd}"):
		if w.machine == "" {
			return pg, false
		}
		g = w.machine + strings.TrimPrefix(g, "{abcd}")
	case strings.HasPrefix(g, "~"):
		g = w.norm(g)
	default:
		g = w.norm(g)
	}
	pg.glob = g
	return pg, g != ""
}

// example is a concrete path the glob names: its wildcards filled in.
func (pg placeGlob) example() string {
	var b strings.Builder
	for i := 0; i < len(pg.glob); i++ {
		switch c := pg.glob[i]; c {
		case '*', '?':
			b.WriteByte('a')
		case '[':
			j := strings.IndexByte(pg.glob[i+1:], ']')
			if j < 0 {
				b.WriteByte(c)
				continue
			}
			inner := pg.glob[i+1 : i+1+j]
			class := strings.TrimLeft(inner, "!^")
			switch {
			case class != inner:
				// a negated class: a character it leaves out
				c := byte('a')
				for _, x := range []byte("axz0_") {
					if !strings.ContainsRune(class, rune(x)) {
						c = x
						break
					}
				}
				b.WriteByte(c)
			case class == "":
				b.WriteByte('a')
			default:
				b.WriteByte(class[0])
			}
			i += j + 1
		case '\\':
			if i+1 < len(pg.glob) {
				i++
				b.WriteByte(pg.glob[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// names reports whether the glob names place p: p itself, or (for a subtree glob) under it. Both
// are folded (fold.go): a protected place is named in any case and any spelling a folding file
// system reads as the same name.
func (pg placeGlob) names(p string) bool {
	g, p := goGlob(foldName(pg.glob)), foldName(p)
	if pg.suffix {
		// the glob's segments match p's last segments (or, for a subtree, some run of them)
		ps := strings.Split(strings.TrimPrefix(p, "/"), "/")
		gs := strings.Count(g, "/") + 1
		for end := len(ps); end >= gs; end-- {
			if ok, _ := path.Match(g, strings.Join(ps[end-gs:end], "/")); ok {
				return true
			}
			if !pg.subtree {
				break
			}
		}
		return false
	}
	if ok, _ := path.Match(g, p); ok {
		return true
	}
	if pg.subtree {
		for d := p; d != "/" && d != "." && d != "~" && d != ""; d = path.Dir(d) {
			if ok, _ := path.Match(g, d); ok {
				return true
			}
		}
	}
	return false
}

// written says whether target t reaches a place one of globs names.
func (w where) written(t Target, globs []string, nocase, exact bool) tri {
	best := no
	for _, g := range globs {
		if !isPlaceGlob(g) {
			best = max(best, globTri(t.Word, []string{g}, nocase, exact))
			continue
		}
		pg, ok := w.resolveGlob(g)
		if !ok {
			continue
		}
		best = max(best, w.reaches(t, pg, exact))
		if best == yes || !w.work.spend(1) {
			return best
		}
	}
	return best
}

func (w where) reaches(t Target, pg placeGlob, exact bool) tri {
	word := t.Word
	if pat := w.pattern(word); len(pat) == 1 && !pat[0].hole && !word.Known() {
		word = Lit(pat[0].text)
	}
	raw, known := word.Text()
	if !known {
		if exact && word.AllHole() {
			return no
		}
		return w.holeReaches(word, pg)
	}
	quotedTilde := len(word.Parts) > 0 && word.Parts[0].Quoted && strings.HasPrefix(raw, "~")
	ex := foldName(pg.example())
	best := no
	places := w.places(raw, quotedTilde)
	if len(places) == 0 || (pg.suffix && !strings.HasPrefix(raw, "/")) {
		// a folder that cannot be known: the path as written still ends where it ends
		places = append(places, resolved{path.Clean(raw), false})
	}
	for _, p := range places {
		if p.place == "" {
			continue
		}
		hit := false
		place, glob := foldName(p.place), foldName(pg.glob)
		switch {
		case unquotedGlob(word) && !pg.suffix:
			// a pattern is every place it can match
			ok, _ := path.Match(goGlob(place), ex)
			hit = ok || (t.Tree && isAbove(place, ex))
		case unquotedGlob(word) && globEndsIn(place, ex):
			// .abcd/gua*.json can be .abcd/guard.json in whatever folder it is
			hit = true
		case pg.names(p.place):
			hit = true
		case t.Tree && !pg.suffix && isAbove(place, ex):
			hit = true
		case t.Tree && pg.suffix:
			hit = overlaps(place, glob)
		case t.Into && pg.suffix && overlaps(place, glob):
			// names not known written into .abcd/ could be guard.json
			best = maybe
		}
		if hit {
			if p.sure {
				return yes
			}
			best = maybe
		}
	}
	return best
}

// holeReaches asks whether a target with unknown parts could be one of the glob's places.
func (w where) holeReaches(word Word, pg placeGlob) tri {
	pat := w.pattern(word)
	for i := range pat {
		pat[i].text = foldCase(pat[i].text)
	}
	ex := foldName(pg.example())
	if pg.suffix {
		ex = "/x/" + ex
	}
	cands := []string{ex}
	if pg.subtree {
		cands = append(cands, ex+"/a")
	}
	for _, c := range cands {
		if fits(pat, c) {
			return maybe
		}
		if len(pat) > 0 && !pat[0].hole && !strings.HasPrefix(pat[0].text, "/") && !strings.HasPrefix(pat[0].text, "~") {
			for _, cwd := range w.cwds {
				if cwd != "" && fits(append([]seg{{text: foldCase(cwd) + "/"}}, pat...), c) {
					return maybe
				}
			}
		}
	}
	return no
}

// unquotedGlob reports a word with a glob character outside quotes.
func unquotedGlob(w Word) bool {
	for _, p := range w.Parts {
		if !p.Hole && !p.Quoted && strings.ContainsAny(p.Text, "*?[") {
			return true
		}
	}
	return false
}

// globPlace says whether a glob operand can match a place of class k: every place of the class is
// tried against it, so /u?r is /usr and /h*/* is the home folder.
func (w where) globPlace(k, glob string) bool {
	glob = goGlob(glob)
	for _, c := range w.candidates(k) {
		if ok, _ := path.Match(glob, c); ok {
			return true
		}
	}
	return false
}

// candidates are the places of class k, and a name inside each (everything in it), normalised.
func (w where) candidates(k string) []string {
	var places []string
	switch k {
	case "root":
		places = []string{"/"}
	case "system":
		places = systemDirs
	case "home":
		places = []string{"~"}
		for d := w.home; d != "/" && d != "." && d != ""; d = path.Dir(d) {
			places = append(places, d)
		}
	case "repo":
		if w.repo == "" {
			return nil
		}
		for d := w.repo; d != "/" && d != "." && d != "~" && d != ""; d = path.Dir(d) {
			places = append(places, d)
		}
	}
	out := make([]string, 0, len(places)*(len(probes)+1))
	for _, p := range places {
		out = append(out, p)
		for _, pr := range probes {
			out = append(out, path.Join(p, pr))
		}
	}
	return out
}

// overlaps reports whether a removal of everything under dir reaches a place ending in glob: the
// glob's first segments are dir's last ones (rm -rf .abcd reaches .abcd/guard.json).
func overlaps(dir, glob string) bool {
	ds := strings.Split(strings.Trim(dir, "/"), "/")
	gs := strings.Split(glob, "/")
	for k := 1; k < len(gs) && k <= len(ds); k++ {
		ok := true
		for i := 0; i < k; i++ {
			if !segMatch(gs[i], ds[len(ds)-k+i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// segMatch reports whether two path segments can name the same file: either may be a pattern (a
// rule's glob, or a command's own glob such as .ab*).
func segMatch(a, b string) bool {
	if m, _ := path.Match(a, b); m {
		return true
	}
	return shellMatch(b, a)
}

// shellMatch matches a name against a command's glob the way the shell does: a leading dot is
// matched only by a pattern that starts with one (rm -rf * leaves .abcd alone).
func shellMatch(pattern, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pattern, ".") {
		return false
	}
	m, _ := path.Match(goGlob(pattern), name)
	return m
}

// globEndsIn reports whether a command's pattern can name a file whose path ends in the segments of
// ex (the example of a rule's **/ glob): each of its last segments, as a pattern, matches ex's.
func globEndsIn(pattern, ex string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	es := strings.Split(strings.Trim(ex, "/"), "/")
	if len(ps) < len(es) {
		return false
	}
	for i, e := range es {
		if !shellMatch(ps[len(ps)-len(es)+i], e) {
			return false
		}
	}
	return true
}

// goGlob writes a shell glob as path.Match reads it: a negated class [!...] as [^...], and the POSIX
// classes ([[:alpha:]]) as the ranges they stand for.
func goGlob(g string) string {
	g = strings.ReplaceAll(g, "[!", "[^")
	if strings.Contains(g, "[:") {
		g = posixClasses.Replace(g)
	}
	return g
}

var posixClasses = strings.NewReplacer("[:alpha:]", "a-zA-Z", "[:lower:]", "a-z", "[:upper:]", "A-Z", "[:digit:]", "0-9",
	"[:alnum:]", "a-zA-Z0-9", "[:xdigit:]", "0-9a-fA-F", "[:space:]", " \t\n", "[:blank:]", " \t", "[:word:]", "a-zA-Z0-9_",
	"[:punct:]", "!-/:-@\\[-`{-~", "[:print:]", " -~", "[:graph:]", "!-~", "[:cntrl:]", "\x00-\x1f")
