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
		return refusal.New("file_invalid", "", fmt.Sprintf("%q is not a record file's path", text.Clip(s)),
			"give the path lint names, such as .abcd/work/issues/open/iss-2611300000000001-slow.md")
	}
	id, _ := IDOfFileName(s)
	fam, _ := FamilyOfID(id)
	if folder, ok := folderOfPath(s); !ok || folder.Family != fam {
		return refusal.New("file_invalid", "", fmt.Sprintf("%q is not in a folder of its family", text.Clip(s)),
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
// the later folder, with no ancestor to ask: the later lifecycle stands; a list (related,
// supersedes) is the union; an append-only section (Progress, Audit Notes, Notes, Resolution) is the
// union of both copies' entries in time order; a section one copy lacks or left unwritten takes the
// other's. Anything else the copies hold differently cannot be settled here: differ names each
// place (a front matter key, a section), and later is not to be written then.
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
	front := m.copiesFront(dl.front, de.front, &differ)
	out := append([]string{dl.open}, front...)
	out = append(out, dl.close)
	out = append(out, dl.pre...)
	keys := make([]string, 0, len(dl.secs)+len(de.secs))
	for _, s := range append(slices.Clone(dl.secs), de.secs...) {
		if !slices.Contains(keys, s.key) {
			keys = append(keys, s.key)
		}
	}
	for _, key := range keys {
		lines, ok := m.copiesSection(key, dl, de)
		if !ok {
			name, _ := headingOf(lineText(lines[0]))
			differ = append(differ, "## "+name)
		}
		if n := len(out); n > 0 && !blank(out[n-1]) && lineText(out[n-1]) != fence {
			out = append(out, m.mk.eol)
		}
		out = append(out, lines...)
	}
	return []byte(strings.Join(out, "")), differ
}

// copiesFront merges two copies' front matter: the later's lifecycle, lists as unions, every other
// key equal on both.
func (m *merger) copiesFront(later, earlier []string, differ *[]string) []string {
	fl, okl := frontLines(later)
	fe, oke := frontLines(earlier)
	if !okl || !oke {
		if !equalLines(later, earlier) {
			*differ = append(*differ, "the front matter")
		}
		return later
	}
	if f, ok := FamilyOfType(rawValue(valueOf(fl, "type"))); ok {
		m.family = f
	}
	out := make([]string, 0, len(fl))
	for _, f := range fl {
		e := valueOf(fe, f.key)
		switch {
		case f.line == e, f.key == "lifecycle":
			out = append(out, f.line)
		case f.key == "related" || f.key == "supersedes":
			line, ok := mergeList(f.key, "", f.line, e)
			if !ok {
				*differ = append(*differ, "front matter "+f.key)
				line = f.line
			}
			out = append(out, line)
		default:
			*differ = append(*differ, "front matter "+f.key)
			out = append(out, f.line)
		}
	}
	return out
}

// copiesSection merges one section of two copies; false when they hold it differently and neither
// rule settles it (the later copy's is returned then, to name it).
func (m *merger) copiesSection(key string, dl, de recDoc) ([]string, bool) {
	sl, inL := dl.find(key)
	se, inE := de.find(key)
	switch {
	case !inE:
		return append([]string{sl.head}, sl.lines...), true
	case !inL:
		return append([]string{se.head}, se.lines...), true
	}
	name, _ := headingOf(lineText(sl.head))
	head := []string{sl.head}
	switch {
	case equalLines(sl.lines, se.lines):
		return append(head, sl.lines...), true
	case appendOnly(m.family, name):
		return append(head, m.union(name, nil, sl.lines, se.lines)...), true
	case !Written(Section{Body: strings.Join(se.lines, "")}):
		return append(head, sl.lines...), true
	case !Written(Section{Body: strings.Join(sl.lines, "")}):
		return append(head, se.lines...), true
	}
	return append(head, sl.lines...), false
}
