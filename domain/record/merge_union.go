package record

import (
	"cmp"
	"slices"
	"strings"
)

// ClosedTwiceMarker starts the line a merge writes above two different reasons for closing one
// issue, one from each side; lint names it (closed_twice) until a person keeps what stands.
const ClosedTwiceMarker = "<!-- abcd: closed on two branches"

// closedTwiceLine is short: a record that grows much on one side of a merge looks to git's rename
// detection less like itself than like another, new record.
const closedTwiceLine = ClosedTwiceMarker + ": keep what stands -->"

// entry is one entry of an append-only section: a list item with its continuation lines, a
// paragraph, or a ### block (an audit) with everything up to the next one.
type entry struct {
	lines []string
	gap   bool   // a blank line stood before it
	id    string // its text without line endings: equal ids are one entry
	at    string // when it was written, as yyyymmddhhmmss (from a run id or a date), or ""
}

func (e *entry) add(l string) { e.lines = append(e.lines, l) }

func (e *entry) seal() {
	var b strings.Builder
	for _, l := range e.lines {
		b.WriteString(lineText(l))
		b.WriteByte('\n')
	}
	e.id = b.String()
	e.at = timeOf(e.id)
}

func isItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(t[i:], ". ")
}

// entries cuts a section's lines into its leading blank lines, its entries and its trailing blank
// lines. A fenced block never splits.
func entries(lines []string) (lead []string, es []entry, trail []string) {
	i, j := 0, len(lines)
	for i < j && blank(lines[i]) {
		i++
	}
	for j > i && blank(lines[j-1]) {
		j--
	}
	lead, trail = lines[:i], lines[j:]
	var fs fenceState
	var cur *entry
	var gap []string // blank lines not yet known to be inside an entry
	start := func(l string) {
		es = append(es, entry{gap: len(gap) > 0})
		cur, gap = &es[len(es)-1], nil
		cur.add(l)
	}
	block := false // the current entry is a ### block
	for _, l := range lines[i:j] {
		t := lineText(l)
		switch {
		case fs.step(t) && cur != nil:
			cur.lines, gap = append(append(cur.lines, gap...), l), nil
		case blank(l):
			gap = append(gap, l)
		case strings.HasPrefix(t, "### "):
			start(l)
			block = true
		case cur == nil || !block && (isItem(t) || len(gap) > 0 && t[0] != ' ' && t[0] != '\t'):
			start(l)
			block = false
		default:
			cur.lines, gap = append(append(cur.lines, gap...), l), nil
		}
	}
	for k := range es {
		es[k].seal()
	}
	return lead, es, trail
}

// timeOf reads when an entry was written: the time in the first run id it names (run-yymmddhhmmss…),
// else the first date (yyyy-mm-dd).
func timeOf(s string) string {
	digits := func(s string, n int) bool {
		if len(s) < n {
			return false
		}
		for k := 0; k < n; k++ {
			if s[k] < '0' || s[k] > '9' {
				return false
			}
		}
		return true
	}
	for i := strings.Index(s, "run-"); i >= 0; {
		if rest := s[i+4:]; digits(rest, idDigits) {
			return "20" + rest[:12]
		}
		next := strings.Index(s[i+4:], "run-")
		if next < 0 {
			break
		}
		i += 4 + next
	}
	for i := 0; i+10 <= len(s); i++ {
		d := s[i : i+10]
		if digits(d, 4) && d[4] == '-' && digits(d[5:], 2) && d[7] == '-' && digits(d[8:], 2) {
			return d[:4] + d[5:7] + d[8:10] + "000000"
		}
	}
	return ""
}

// before orders entries by time where both have one, else by their text: a total order, so the
// union reads the same whichever side is ours.
func before(a, b entry) int {
	if a.at != "" && b.at != "" && a.at != b.at {
		return cmp.Compare(a.at, b.at)
	}
	return cmp.Compare(a.id, b.id)
}

// union merges an append-only section entry by entry, three ways, as git merges lines: the entries
// all three sides hold anchor it; between anchors, what one side alone changed is taken, two equal
// changes are one, and where both sides added (a Progress line, an audit, a note), the entries of both
// stand, in time order, each once. An entry of the base both sides changed (edited or removed) is no
// append: where the two changes differ, that stretch merges line by line, as git would, and a
// conflict is written between markers and named (an entry edited two ways never stands twice). The
// one exception is one edit made alike on both sides with one side's appends after it.
func (m *merger) union(name string, b, o, t []string) []string {
	_, eb, _ := entries(b)
	lo, eo, to := entries(o)
	lt, et, tt := entries(t)
	inB, inO, inT := idSet(eb), idSet(eo), idSet(et)
	byID := map[string]entry{}
	for _, es := range [][]entry{eb, et, eo} { // ours' spelling of an entry wins
		for _, e := range es {
			byID[e.id] = e
		}
	}
	u := &unionOut{seen: map[string]bool{}}
	if m.closedBoth && m.family == Issues && strings.EqualFold(name, SectionResolution) && ownAdds(eo, inB, inT) && ownAdds(et, inB, inO) {
		m.closedTwice = true
		u.marker = &entry{lines: []string{closedTwiceLine + m.mk.eol}, gap: true}
		u.marker.seal()
	}
	of := func(ids []string) []entry {
		out := make([]entry, len(ids))
		for i, id := range ids {
			out[i] = byID[id]
		}
		return out
	}
	conflicted := false
	for _, r := range diff3(ids(eb), ids(eo), ids(et)) {
		switch {
		case !r.conflict:
			for _, id := range r.lines {
				u.emit(byID[id])
			}
		case appendsOnly(r.base, r.ours, r.theirs):
			u.both(r.base, of(r.ours), of(r.theirs))
		default:
			// Both sides changed an entry of the base, differently: git's line merge of the stretch.
			lines, conflict := m.mk.mergeLines(m.layout(nil, of(r.base), nil), m.layout(nil, of(r.ours), nil), m.layout(nil, of(r.theirs), nil))
			if len(lines) > 0 {
				e := entry{lines: lines, gap: true}
				e.seal()
				u.emit(e)
			}
			conflicted = conflicted || conflict
		}
	}
	if conflicted {
		m.conflicts = append(m.conflicts, "## "+name)
	}
	return m.layout(longer(lo, lt), u.out, longer(to, tt))
}

// unionOut gathers a union's entries, each once.
type unionOut struct {
	out    []entry
	seen   map[string]bool
	marker *entry // the closed-twice marker, written before the first entries both sides added
}

func (u *unionOut) emit(e entry) {
	if !u.seen[e.id] {
		u.seen[e.id] = true
		u.out = append(u.out, e)
	}
}

// both merges a stretch where both sides added entries: the base's entries both sides kept, then every
// entry either side added, in time order, each once.
func (u *unionOut) both(base []string, ours, theirs []entry) {
	inO, inT, inB := idSet(ours), idSet(theirs), map[string]bool{}
	for _, id := range base {
		inB[id] = true
	}
	for _, e := range ours {
		if inB[e.id] && inT[e.id] {
			u.emit(e)
		}
	}
	newO := slices.DeleteFunc(slices.Clone(ours), func(e entry) bool { return inB[e.id] })
	newT := slices.DeleteFunc(slices.Clone(theirs), func(e entry) bool { return inB[e.id] })
	if u.marker != nil && ownAdds(ours, inB, inT) && ownAdds(theirs, inB, inO) {
		u.emit(*u.marker)
		u.marker = nil
	}
	for i, j := 0, 0; ; {
		for i < len(newO) && u.seen[newO[i].id] {
			i++
		}
		for j < len(newT) && u.seen[newT[j].id] {
			j++
		}
		switch {
		case i == len(newO) && j == len(newT):
			return
		case j == len(newT) || i < len(newO) && before(newO[i], newT[j]) <= 0:
			u.emit(newO[i])
		default:
			u.emit(newT[j])
		}
	}
}

// appendsOnly reports whether a stretch both sides changed holds no entry of the base both changed:
// each side kept every entry of it the other kept, so what differs is what each added. One base
// entry both changed alike (the same edit on both sides, one side's appends after it) is taken as
// that: each entry both removed has its equal among the entries both added, and at most one side
// added more.
func appendsOnly(base, ours, theirs []string) bool {
	inO, inT := map[string]bool{}, map[string]bool{}
	for _, id := range ours {
		inO[id] = true
	}
	for _, id := range theirs {
		inT[id] = true
	}
	inB := map[string]bool{}
	removedByBoth := 0
	for _, id := range base {
		inB[id] = true
		if !inO[id] && !inT[id] {
			removedByBoth++
		}
	}
	if removedByBoth == 0 {
		return true
	}
	common, onlyO, onlyT := 0, 0, 0
	for id := range inO {
		switch {
		case inB[id]:
		case inT[id]:
			common++
		default:
			onlyO++
		}
	}
	for id := range inT {
		if !inB[id] && !inO[id] {
			onlyT++
		}
	}
	return common >= removedByBoth && (onlyO == 0 || onlyT == 0)
}

func ids(es []entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.id
	}
	return out
}

func idSet(es []entry) map[string]bool {
	s := make(map[string]bool, len(es))
	for _, e := range es {
		s[e.id] = true
	}
	return s
}

// ownAdds reports whether es holds an entry the base lacks and the other side lacks too.
func ownAdds(es []entry, inB, other map[string]bool) bool {
	for _, e := range es {
		if !inB[e.id] && !other[e.id] {
			return true
		}
	}
	return false
}

func longer(a, b []string) []string {
	if len(b) > len(a) {
		return b
	}
	return a
}

// layout writes a union's entries between the section's leading and trailing blank lines, each
// after a blank line where one stood before it on its side, or where two entries would otherwise
// run together (anything but two list items).
func (m *merger) layout(lead []string, es []entry, trail []string) []string {
	out := append([]string(nil), lead...)
	for k, e := range es {
		if k > 0 && (e.gap || !isItem(lineText(e.lines[0])) || !isItem(lineText(es[k-1].lines[0]))) {
			out = append(out, m.mk.eol)
		}
		out = append(out, e.lines...)
	}
	return append(out, trail...)
}
