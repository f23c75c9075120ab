package record

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// What a team's merges can leave in the record and the fixes for them: a record standing in two
// lifecycle folders (a move to finish: MergeCopies) and two records with one id (one renumbered:
// RenumberedID, ReplaceID).

// MaxFilePathBytes bounds a record file's path a person names.
const MaxFilePathBytes = 200

// filePathPattern is a record file's path as abcd names it: a lifecycle folder, the family's prefix
// and sixteen digits, and a slug of lower-case letters, digits and dashes.
var filePathPattern = pattern.New(`^\.abcd/(development/(intents/(drafts|planned|shipped)|specs/(open|closed)|decisions)|work/issues/(open|closed))/(itd|spc|iss|dcn)-[0-9]{16}(-[a-z0-9][a-z0-9-]*)?\.md$`)

// FilePath names one record file by its path from the repository root, as lint prints it: the way to
// point at one of two files that carry the same id.
type FilePath string

// UnmarshalText refuses anything but a record file's path in its family's folder (file_invalid).
func (p *FilePath) UnmarshalText(b []byte) error {
	s := string(b)
	if len(s) > MaxFilePathBytes || !filePathPattern.MatchString(s) {
		return refusal.New(refusal.CodeFileInvalid, "", fmt.Sprintf("%q is not a record file's path", text.Clip(s)),
			"give the path lint names, such as .abcd/work/issues/open/iss-2611300000000001-slow.md")
	}
	id, _ := IDOfFileName(s)
	fam, _ := FamilyOfID(id)
	if folder, ok := folderOfPath(s); !ok || folder.Family != fam {
		return refusal.New(refusal.CodeFileInvalid, "", fmt.Sprintf("%q is not in a folder of its family", text.Clip(s)),
			"give the path lint names, such as .abcd/work/issues/open/iss-2611300000000001-slow.md")
	}
	*p = FilePath(s)
	return nil
}

func (FilePath) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a record file's path from the repository root, as lint names it",
		MinLength: 1, MaxLength: MaxFilePathBytes, Pattern: filePathPattern.String()}
}

// folderOfPath is the record folder a file stands in.
func folderOfPath(p string) (Folder, bool) {
	dir := p[:max(0, strings.LastIndexByte(p, '/'))]
	for _, f := range Folders() {
		if f.Dir == dir {
			return f, true
		}
	}
	return Folder{}, false
}

// RenumberedID is a new id for a record whose id another record carries: the same time digits, so
// ids still sort by when their records were made, and random digits no id in taken has. False
// when none of the tries is free (a new time is then needed).
func RenumberedID(id string, random func() uint32, taken func(string) bool) (string, bool) {
	if _, ok := FamilyOfID(id); !ok {
		return "", false
	}
	for range 64 {
		r := random() % 10000
		next := id[:idLen-4] + string([]byte{byte('0' + r/1000), byte('0' + r/100%10), byte('0' + r/10%10), byte('0' + r%10)})
		if next != id && !taken(next) {
			return next, true
		}
	}
	return "", false
}

// ReplaceID rewrites every whole occurrence of the id old in a record's text (front matter and body)
// to new, and says how many it rewrote. An id inside a longer token (more digits) is not it.
func ReplaceID(data []byte, old, new string) ([]byte, int) {
	s := string(data)
	var b strings.Builder
	n := 0
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			break
		}
		end := i + len(old)
		whole := (i == 0 || !idChar(s[i-1])) && (end == len(s) || !idChar(s[end]))
		b.WriteString(s[:i])
		if whole {
			b.WriteString(new)
			n++
		} else {
			b.WriteString(old)
		}
		s = s[end:]
	}
	return []byte(b.String()), n
}

func idChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_'
}

// MergeCopies merges the copies of one record a move left in two lifecycle folders into the copy in
// the later folder, with no ancestor to ask (see twoWay). Anything the copies hold differently that
// no rule settles is named in differ (a front matter key, a section), and nothing is to be written.
func MergeCopies(later, earlier []byte) (merged []byte, differ []string) {
	dl, okl := splitDoc(splitLines(later))
	de, oke := splitDoc(splitLines(earlier))
	if !okl || !oke {
		if string(later) == string(earlier) {
			return later, nil
		}
		return nil, []string{"the file (one copy is not a record abcd can read)"}
	}
	m := &merger{mk: markers{size: 7, eol: eolOf(later)}}
	out := m.twoWay(dl, de)
	if len(m.conflicts) > 0 {
		return nil, m.conflicts
	}
	return []byte(strings.Join(out, "")), nil
}

// twoWay merges two versions of one record that share no ancestor (two copies a move left, or one
// record git saw added on both sides): the later lifecycle stands; a list (related, supersedes) is
// the union; an append-only section (Progress, Audit Notes, Notes, Resolution) is the union of both
// versions' entries in time order; a section one version lacks or left unwritten takes the other's.
// Anything else they hold differently is a conflict, between markers, ours (a) first.
func (m *merger) twoWay(a, b recDoc) []string {
	out := append([]string{a.open}, m.twoWayFront(a.front, b.front)...)
	out = append(out, a.close)
	switch {
	case equalLines(a.pre, b.pre), !slices.ContainsFunc(b.pre, func(l string) bool { return !blank(l) }):
		out = append(out, a.pre...)
	case !slices.ContainsFunc(a.pre, func(l string) bool { return !blank(l) }):
		out = append(out, b.pre...)
	default:
		m.conflicts = append(m.conflicts, "the text before the first section")
		out = m.mk.write(out, a.pre, b.pre)
	}
	keys := make([]string, 0, len(a.secs)+len(b.secs))
	for _, s := range append(slices.Clone(a.secs), b.secs...) {
		if !slices.Contains(keys, s.key) {
			keys = append(keys, s.key)
		}
	}
	for _, key := range keys {
		if n := len(out); n > 0 && !blank(out[n-1]) && lineText(out[n-1]) != fence {
			out = append(out, m.mk.eol)
		}
		out = append(out, m.twoWaySection(key, a, b)...)
	}
	return out
}

// twoWayFront merges two versions' front matter key by key.
func (m *merger) twoWayFront(a, b []string) []string {
	fa, oka := frontLines(a)
	fb, okb := frontLines(b)
	if !oka || !okb {
		if equalLines(a, b) {
			return a
		}
		m.conflicts = append(m.conflicts, "the front matter")
		return m.mk.write(nil, a, b)
	}
	for _, fs := range [][]fmLine{fa, fb} {
		if f, ok := FamilyOfType(rawValue(valueOf(fs, "type"))); ok {
			m.family = f
			break
		}
	}
	var out []string
	for _, f := range fa {
		other := valueOf(fb, f.key)
		if line, ok := m.lifecycle("", f.line, other); f.key == "lifecycle" && ok {
			out = append(out, line)
			continue
		}
		switch {
		case f.line == other, other == "":
			out = append(out, f.line)
		case f.key == "related" || f.key == "supersedes":
			if line, ok := mergeList(f.key, "", f.line, other); ok {
				out = append(out, line)
				continue
			}
			fallthrough
		default:
			m.conflicts = append(m.conflicts, "front matter "+f.key)
			out = m.mk.write(out, []string{f.line}, []string{other})
		}
	}
	for _, f := range fb {
		if valueOf(fa, f.key) == "" {
			out = append(out, f.line)
		}
	}
	return out
}

// twoWaySection merges one section of two versions.
func (m *merger) twoWaySection(key string, a, b recDoc) []string {
	sa, inA := a.find(key)
	sb, inB := b.find(key)
	switch {
	case !inB:
		return append([]string{sa.head}, sa.lines...)
	case !inA:
		return append([]string{sb.head}, sb.lines...)
	}
	name, _ := headingOf(lineText(sa.head))
	head := []string{sa.head}
	switch {
	case equalLines(sa.lines, sb.lines):
		return append(head, sa.lines...)
	case appendOnly(m.family, name):
		return append(head, m.union(name, nil, sa.lines, sb.lines)...)
	case !Written(Section{Body: strings.Join(sb.lines, "")}):
		return append(head, sa.lines...)
	case !Written(Section{Body: strings.Join(sa.lines, "")}):
		return append(head, sb.lines...)
	}
	m.conflicts = append(m.conflicts, "## "+name)
	lines, _ := m.mk.mergeLines(nil, sa.lines, sb.lines)
	return append(head, lines...)
}
