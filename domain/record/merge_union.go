package record

import (
	"cmp"
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

// union merges an append-only section: the base's entries both sides kept, in the base's order,
// then every entry either side added, in time order, each once.
func (m *merger) union(name string, b, o, t []string) []string {
	_, eb, _ := entries(b)
	lo, eo, to := entries(o)
	lt, et, tt := entries(t)
	ids := func(es []entry) map[string]bool {
		s := make(map[string]bool, len(es))
		for _, e := range es {
			s[e.id] = true
		}
		return s
	}
	inB, inO, inT := ids(eb), ids(eo), ids(et)
	seen := map[string]bool{}
	var out []entry
	emit := func(e entry) {
		if !seen[e.id] {
			seen[e.id] = true
			out = append(out, e)
		}
	}
	for _, e := range eb {
		if inO[e.id] && inT[e.id] {
			emit(e)
		}
	}
	added := func(es []entry, other map[string]bool) (news []entry, own bool) {
		for _, e := range es {
			if !inB[e.id] {
				news = append(news, e)
				own = own || !other[e.id]
			}
		}
		return news, own
	}
	newO, ownO := added(eo, inT)
	newT, ownT := added(et, inO)
	if ownO && ownT && m.closedBoth && m.family == Issues && strings.EqualFold(name, SectionResolution) {
		m.closedTwice = true
		marker := entry{lines: []string{closedTwiceLine + m.mk.eol}, gap: true}
		marker.seal()
		emit(marker)
	}
	for i, j := 0, 0; ; {
		for i < len(newO) && seen[newO[i].id] {
			i++
		}
		for j < len(newT) && seen[newT[j].id] {
			j++
		}
		switch {
		case i == len(newO) && j == len(newT):
			return m.layout(longer(lo, lt), out, longer(to, tt))
		case j == len(newT) || i < len(newO) && before(newO[i], newT[j]) <= 0:
			emit(newO[i])
		default:
			emit(newT[j])
		}
	}
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
