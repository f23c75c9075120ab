package record

import (
	"fmt"
	"slices"
	"strings"
)

// Merge is the record's merge driver: a three-way merge of one record file as git hands it over
// (the common ancestor, ours and theirs), aware of what a record is.
//
//   - Front matter merges key by key. The lifecycle goes by rule: the later lifecycle of the two sides
//     wins (a close on either side wins over an edit on the other). A list (related, supersedes) is a
//     set: what either side added is added, what either side removed is removed. Any other key both
//     sides changed differently is a conflict.
//   - Sections merge by heading. The append-only ones (a spec's Progress, an intent's Audit Notes, an
//     issue's Notes and Resolution) are a union of entries: what the base held and both sides kept,
//     then what either side added, in time order, each once. An issue closed on both sides with
//     different reasons keeps both, under a marker lint names (closed_twice).
//   - Every other section, and anything that is not a record, merges line by line as git does; what
//     both sides changed differently is a conflict between markers.
//
// Nothing is lost: a conflict holds both sides, and Conflicts says where. Inputs are bytes of any
// kind; a file with no front matter is merged as plain text.
//
// When the sides are not one record (git took a new record for an old one renamed, as a small record
// that changed much can look more like a new one than itself), nothing is merged: the side git took
// for the rename is kept whole where git writes it, the merge is a conflict, and the other record's
// change stays in git's index for `abcd record finish-merge` to carry into its own file. path is
// git's %P, the path being merged: without a base, its name says whose record belongs there.
func Merge(base, ours, theirs []byte, markerSize int, path string) Merged {
	if markerSize < 7 {
		markerSize = 7
	}
	switch {
	case string(ours) == string(theirs), string(base) == string(theirs):
		return Merged{Data: ours}
	case string(base) == string(ours):
		return Merged{Data: theirs}
	}
	m := &merger{mk: markers{size: markerSize, eol: eolOf(ours)}}
	b, o, t := splitLines(base), splitLines(ours), splitLines(theirs)
	db, okb := splitDoc(b)
	do, oko := splitDoc(o)
	dt, okt := splitDoc(t)
	var out []string
	switch ido, idt := idOf(do, oko), idOf(dt, okt); {
	case ido != "" && idt != "" && ido != idt, okb && ido != "" && idOf(db, true) != "" && idOf(db, true) != ido:
		// Git paired two different records as one renamed (a small record much changed on one side
		// can look more like another, new one): nothing of one belongs in the other. Ours stays as
		// it is, and git is told of a conflict to settle by hand.
		// The side git took for the base record renamed is a record of its own, and git writes the
		// merge where that side put it: that side's record is what belongs there. Without a base to
		// tell by, the path's name says whose it is.
		base := idOf(db, okb)
		kept := ours
		switch owner, _ := IDOfFileName(path); {
		case base != "" && ido == base && idt != base:
			kept = theirs
		case base == "" && idt == owner && ido != owner:
			kept = theirs
		}
		return Merged{Data: kept, Mispaired: true,
			Conflicts: []string{fmt.Sprintf("the file: git paired different records as one (ids %s)", strings.Join(distinct(base, ido, idt), ", "))}}
	case okb && oko && okt:
		out = m.doc(db, do, dt)
	case oko && okt && ido != "" && ido == idt:
		// One record both sides added (git saw no common version): merged two ways.
		out = m.twoWay(do, dt)
	default:
		var conflict bool
		out, conflict = m.mk.mergeLines(b, o, t)
		if conflict {
			m.conflicts = append(m.conflicts, "the file (it is not a record all three sides can read)")
		}
	}
	return Merged{Data: []byte(strings.Join(out, "")), Conflicts: m.conflicts, ClosedTwice: m.closedTwice}
}

// IDIn is the id a record's front matter says, read leniently ("" when there is none to read).
func IDIn(data []byte) string {
	d, ok := splitDoc(splitLines(data))
	return idOf(d, ok)
}

// idOf is a split record's id ("" when it has none to read).
func idOf(d recDoc, ok bool) string {
	if !ok {
		return ""
	}
	fs, ok := frontLines(d.front)
	if !ok {
		return ""
	}
	return rawValue(valueOf(fs, "id"))
}

// distinct lists the non-empty ids once each, in order.
func distinct(ids ...string) []string {
	var out []string
	for _, id := range ids {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Merged is a merge's outcome: the file, and where it conflicts (none: a clean merge).
type Merged struct {
	Data []byte
	// Conflicts names each place both sides changed differently: a front matter key, a section, or
	// the whole file.
	Conflicts []string
	// ClosedTwice is set when an issue closed on both sides with different reasons keeps both.
	ClosedTwice bool
	// Mispaired is set when the three sides are not one record (git took a new record for another
	// one renamed): Data is the path's own record as that side has it, with no markers, and the merge
	// is a conflict.
	Mispaired bool
}

type merger struct {
	mk          markers
	family      Family
	conflicts   []string
	closedTwice bool
	closedBoth  bool // both sides moved the record to a later lifecycle than the base's
}

// splitLines cuts data into lines that keep their endings; a last line without one gets \n, so
// lines can be moved without running into each other.
func splitLines(data []byte) []string {
	var out []string
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s+"\n")
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// eolOf is the line ending of data's first line.
func eolOf(data []byte) string {
	s := string(data)
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func lineText(line string) string { return strings.TrimRight(line, "\r\n") }

func blank(line string) bool { return strings.TrimSpace(line) == "" }

// recDoc is a record cut into the parts that merge separately.
type recDoc struct {
	open, close string   // the front matter's --- lines
	front       []string // the lines between them
	pre         []string // body lines before the first heading
	secs        []sec
}

type sec struct {
	key   string // the heading, folded, that matches it across the sides
	head  string // its "## " line
	lines []string
}

func (d recDoc) find(key string) (sec, bool) {
	for _, s := range d.secs {
		if s.key == key {
			return s, true
		}
	}
	return sec{}, false
}

// splitDoc cuts a record into front matter and sections; false when the lines are not a record's
// shape (no front matter, or one heading twice).
func splitDoc(lines []string) (recDoc, bool) {
	var d recDoc
	if len(lines) == 0 || lineText(lines[0]) != fence {
		return d, false
	}
	d.open = lines[0]
	i := 1
	for i < len(lines) && lineText(lines[i]) != fence {
		i++
	}
	if i == len(lines) {
		return d, false
	}
	d.front, d.close = lines[1:i], lines[i]
	var fs fenceState
	for _, l := range lines[i+1:] {
		if !fs.step(lineText(l)) {
			if h, ok := headingOf(lineText(l)); ok {
				key := strings.ToLower(h)
				if _, dup := d.find(key); dup {
					return d, false
				}
				d.secs = append(d.secs, sec{key: key, head: l})
				continue
			}
		}
		if len(d.secs) == 0 {
			d.pre = append(d.pre, l)
		} else {
			d.secs[len(d.secs)-1].lines = append(d.secs[len(d.secs)-1].lines, l)
		}
	}
	return d, true
}

// doc merges three records part by part.
func (m *merger) doc(b, o, t recDoc) []string {
	front := m.front(b.front, o.front, t.front)
	out := append([]string{o.open}, front...)
	out = append(out, o.close)
	pre, conflict := m.mk.mergeLines(b.pre, o.pre, t.pre)
	if conflict {
		m.conflicts = append(m.conflicts, "the text before the first section")
	}
	out = append(out, pre...)
	for _, s := range m.sections(b, o, t) {
		if n := len(out); n > 0 && !blank(out[n-1]) && lineText(out[n-1]) != fence {
			out = append(out, m.mk.eol)
		}
		out = append(out, s...)
	}
	return out
}

// sections merges the sections: the base's order for those it had, each section one side added
// after the base section it follows there (sorted by heading where both sides add at one place).
func (m *merger) sections(b, o, t recDoc) [][]string {
	anchored := map[string][]string{} // base key ("" for the start) → keys added after it
	for _, side := range []recDoc{o, t} {
		anchor := ""
		for _, s := range side.secs {
			if _, ok := b.find(s.key); ok {
				anchor = s.key
				continue
			}
			if !slices.Contains(anchored[anchor], s.key) {
				anchored[anchor] = append(anchored[anchor], s.key)
			}
		}
	}
	var out [][]string
	emit := func(key string) {
		if lines, ok := m.section(key, b, o, t); ok {
			out = append(out, lines)
		}
	}
	emitAdded := func(anchor string) {
		added := anchored[anchor]
		slices.Sort(added)
		for _, key := range added {
			emit(key)
		}
	}
	emitAdded("")
	for _, s := range b.secs {
		emit(s.key)
		emitAdded(s.key)
	}
	return out
}

// section merges one section by its presence on each side; false when the merge removes it.
func (m *merger) section(key string, b, o, t recDoc) ([]string, bool) {
	sb, inB := b.find(key)
	so, inO := o.find(key)
	st, inT := t.find(key)
	switch {
	case inO && inT:
		head := so.head
		switch {
		case so.head == st.head, st.head == sb.head:
		case so.head == sb.head:
			head = st.head
		default:
			head = min(so.head, st.head)
		}
		return append([]string{head}, m.body(head, sb.lines, so.lines, st.lines)...), true
	case !inB:
		if inO {
			return append([]string{so.head}, so.lines...), true
		}
		return append([]string{st.head}, st.lines...), true
	case !inO && !inT:
		return nil, false
	}
	// One side removed a section the base had.
	kept := so
	if inT {
		kept = st
	}
	if equalLines(kept.lines, sb.lines) && kept.head == sb.head {
		return nil, false
	}
	name, _ := headingOf(lineText(sb.head))
	m.conflicts = append(m.conflicts, "## "+name+" (removed on one side, changed on the other)")
	whole := append([]string{kept.head}, kept.lines...)
	if inO {
		return m.mk.write(nil, whole, nil), true
	}
	return m.mk.write(nil, nil, whole), true
}

// body merges the lines of the section under head: a union for an append-only section, else line
// by line.
func (m *merger) body(head string, b, o, t []string) []string {
	name, _ := headingOf(lineText(head))
	if appendOnly(m.family, name) {
		return m.union(name, b, o, t)
	}
	out, conflict := m.mk.mergeLines(b, o, t)
	if conflict {
		m.conflicts = append(m.conflicts, "## "+name)
	}
	return out
}

// appendOnly reports whether a family's section only ever grows: each write adds an entry after
// the others (the build loop's Progress lines and Audit Notes, an issue's notes and its reason for
// closing).
func appendOnly(f Family, key string) bool {
	var heads []string
	switch f {
	case Intents:
		heads = []string{SectionAuditNotes}
	case Specs:
		heads = []string{SectionProgress}
	case Issues:
		heads = []string{SectionNotes, SectionResolution}
	}
	for _, h := range heads {
		if strings.EqualFold(h, key) {
			return true
		}
	}
	return false
}
