package guard

import (
	"path"
	"strings"
)

type seg struct {
	text string
	hole bool
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
		s = foldName(s)
	}
	for _, g := range globs {
		if nocase {
			g = foldName(g)
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
