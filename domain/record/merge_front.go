package record

import (
	"slices"
	"strings"
)

// fmLine is one front matter line and its key.
type fmLine struct{ key, line string }

// frontLines reads front matter lines as key: value, leaving out blank ones; false when a line is
// not key: value or a key comes twice (the front matter then merges line by line).
func frontLines(lines []string) ([]fmLine, bool) {
	var out []fmLine
	for _, l := range lines {
		if blank(l) {
			continue
		}
		k, _, ok := strings.Cut(lineText(l), ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") || slices.ContainsFunc(out, func(f fmLine) bool { return f.key == k }) {
			return nil, false
		}
		out = append(out, fmLine{k, l})
	}
	return out, true
}

func valueOf(fs []fmLine, key string) string {
	for _, f := range fs {
		if f.key == key {
			return f.line
		}
	}
	return ""
}

// rawValue is a front matter line's value, trimmed, without surrounding double quotes.
func rawValue(line string) string {
	_, v, _ := strings.Cut(lineText(line), ":")
	return strings.Trim(strings.TrimSpace(v), `"`)
}

// front merges the front matter key by key (see Merge), or line by line when a side's is not
// key: value lines.
func (m *merger) front(b, o, t []string) []string {
	fb, okb := frontLines(b)
	fo, oko := frontLines(o)
	ft, okt := frontLines(t)
	for _, fs := range [][]fmLine{fo, ft, fb} {
		if f, ok := FamilyOfType(rawValue(valueOf(fs, "type"))); ok {
			m.family = f
			break
		}
	}
	if !okb || !oko || !okt {
		out, conflict := m.mk.mergeLines(b, o, t)
		if conflict {
			m.conflicts = append(m.conflicts, "the front matter")
		}
		return out
	}
	var keys []string
	for _, fs := range [][]fmLine{fb, fo, ft} {
		for _, f := range fs {
			if !slices.Contains(keys, f.key) {
				keys = append(keys, f.key)
			}
		}
	}
	var out []string
	for _, k := range keys {
		out = append(out, m.key(k, valueOf(fb, k), valueOf(fo, k), valueOf(ft, k))...)
	}
	return out
}

// key merges one front matter key's line ("" where a side has none).
func (m *merger) key(k, b, o, t string) []string {
	if k == "lifecycle" {
		if line, ok := m.lifecycle(b, o, t); ok {
			return lineOrNone(line)
		}
	}
	switch {
	case o == t, t == b:
		return lineOrNone(o)
	case o == b:
		return lineOrNone(t)
	}
	if k == "related" || k == "supersedes" {
		if line, ok := mergeList(k, b, o, t); ok {
			return []string{line}
		}
	}
	m.conflicts = append(m.conflicts, "front matter "+k)
	return m.mk.write(nil, lineOrNone(o), lineOrNone(t))
}

func lineOrNone(l string) []string {
	if l == "" {
		return nil
	}
	return []string{l}
}

// lifecycle is the lifecycle line by rule: the later of the two sides' lifecycles wins, so a move
// on either side (a close, a ship) wins over a side that kept the record where it was. False when a
// side's value is not a lifecycle of the family.
func (m *merger) lifecycle(b, o, t string) (string, bool) {
	order := Lifecycles(m.family)
	rb, ro, rt := slices.Index(order, rawValue(b)), slices.Index(order, rawValue(o)), slices.Index(order, rawValue(t))
	if ro < 0 || rt < 0 {
		return "", false
	}
	m.closedBoth = rb >= 0 && ro > rb && rt > rb
	switch {
	case ro > rt:
		return o, true
	case rt > ro:
		return t, true
	case o == b:
		return t, true
	}
	return o, true
}

// mergeList merges a list key as a set: the base's items both sides kept, in the base's order, then
// what either side added, sorted (record ids sort by the time they were made).
func mergeList(k, b, o, t string) (string, bool) {
	lb, okb := listItems(b)
	lo, oko := listItems(o)
	lt, okt := listItems(t)
	if !okb || !oko || !okt {
		return "", false
	}
	var kept, added []string
	for _, v := range lb {
		if slices.Contains(lo, v) && slices.Contains(lt, v) && !slices.Contains(kept, v) {
			kept = append(kept, v)
		}
	}
	for _, v := range append(slices.Clone(lo), lt...) {
		if !slices.Contains(lb, v) && !slices.Contains(added, v) {
			added = append(added, v)
		}
	}
	slices.Sort(added)
	eol := "\n"
	if l := max(o, t); l != "" {
		eol = l[len(lineText(l)):]
	}
	return k + ": [" + strings.Join(append(kept, added...), ", ") + "]" + eol, true
}

// listItems reads a [a, b] value; an absent line is an empty list.
func listItems(line string) ([]string, bool) {
	if line == "" {
		return nil, true
	}
	_, v, _ := strings.Cut(lineText(line), ":")
	v = strings.TrimSpace(v)
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, false
	}
	inner := strings.TrimSpace(v[1 : len(v)-1])
	if inner == "" {
		return []string{}, true
	}
	var out []string
	for _, item := range strings.Split(inner, ",") {
		if item = strings.TrimSpace(item); item == "" {
			return nil, false
		}
		out = append(out, item)
	}
	return out, true
}
