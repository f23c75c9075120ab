package record

import "bytes"

// A record holding an unresolved merge conflict is refused whole, never read as if the markers were
// its text: its parse error says so (IsConflict), and lint names it conflict_markers.
const (
	conflictProblem = "an unresolved merge conflict: git left its <<<<<<<, ======= and >>>>>>> lines here"
	conflictRemedy  = "resolve it: keep what stands from each side, remove the marker lines, then git add the file"
)

// IsConflict reports whether a parse error is an unresolved merge conflict.
func IsConflict(pe *ParseError) bool { return pe != nil && pe.Problem == conflictProblem }

// ConflictMarkers reports the first line (1-based) that is a marker of an unresolved merge conflict,
// as git writes them at the start of a line: <<<<<<< or >>>>>>> (seven or more, then a space or the
// line's end), and ======= or ||||||| between them. A run of = alone is a Markdown underline, so
// it counts only in a file that holds a <<<<<<< or >>>>>>> marker too. A marker meant as text is
// written indented (in a code block), where git never puts one.
func ConflictMarkers(data []byte) (line int, ok bool) {
	if !bytes.Contains(data, []byte("<<<<<<<")) && !bytes.Contains(data, []byte(">>>>>>>")) {
		return 0, false
	}
	first, sided := 0, false
	n := 0
	for rest := data; len(rest) > 0; {
		n++
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		kind := markerKind(l)
		if kind == 0 {
			continue
		}
		if first == 0 {
			first = n
		}
		if kind == '<' || kind == '>' {
			sided = true
		}
	}
	return first, sided
}

// markerKind is the marker character a line starts a conflict marker with, or 0.
func markerKind(l []byte) byte {
	if len(l) < 7 {
		return 0
	}
	c := l[0]
	if c != '<' && c != '>' && c != '=' && c != '|' {
		return 0
	}
	i := 0
	for i < len(l) && l[i] == c {
		i++
	}
	switch {
	case i < 7:
		return 0
	case c == '=':
		if len(bytes.TrimSpace(l[i:])) == 0 {
			return c
		}
		return 0
	case i == len(l) || l[i] == ' ':
		return c
	}
	return 0
}
