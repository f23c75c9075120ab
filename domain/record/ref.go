package record

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Candidate is what ResolveRef matches against: a record's id, its file's slug, and its file.
type Candidate struct {
	ID, Slug, File string
}

// RefError refuses a ref that matched no record (Candidates empty) or several (Candidates sorted by
// id, then file). Reason is set instead when the ref itself is not a ref (a path, control characters,
// too long). Family, when set, names the family searched, for the list command in the message.
type RefError struct {
	Ref        string
	Candidates []Candidate
	Reason     string
	Family     Family
}

// MaxRefBytes bounds a ref.
const MaxRefBytes = 200

// maxCandidates bounds the candidates an ambiguous ref's message lists.
const maxCandidates = 10

func (e *RefError) Error() string {
	shown := e.Ref
	if len(shown) > 60 {
		shown = shown[:60] + "…"
	}
	shown = fmt.Sprintf("%q", shown)
	switch {
	case e.Reason != "":
		return fmt.Sprintf("%s is not a record ref (%s): give a full id, the start of one (at least 5 characters, such as itd-26), or part of a slug", shown, e.Reason)
	case len(e.Candidates) == 0 && len(strings.TrimSpace(e.Ref)) < 5:
		return fmt.Sprintf("no record matches %s: an id prefix needs at least 5 characters (such as itd-26), and shorter text is matched only against slugs", shown)
	case len(e.Candidates) == 0:
		return fmt.Sprintf("no record matches %s", shown)
	}
	parts := make([]string, 0, maxCandidates+1)
	for k, c := range e.Candidates {
		if k == maxCandidates {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Candidates)-maxCandidates))
			break
		}
		parts = append(parts, c.ID+" ("+c.Slug+")")
	}
	return fmt.Sprintf("%s matches %d records: %s; give more of the id or slug", shown, len(e.Candidates), strings.Join(parts, ", "))
}

// ResolveRef finds the one record a ref names, in this order: an exact id (a ref that is a full id
// followed by "-<slug>" or ".md", such as a file name, counts as that id); else, for a ref of at least
// 5 characters, the ids it starts; else an exact slug; else the slugs it is part of. The first rule
// that matches anything decides: one match is the answer, several are a *RefError listing them. Refs
// are matched case-insensitively, after trimming white space. A ref holding "/", "\", "..", a control
// character or invalid UTF-8, empty, or over MaxRefBytes is refused as not a ref.
func ResolveRef(ref string, in []Candidate) (Candidate, error) {
	fam := commonFamily(in)
	if reason := badRef(ref); reason != "" {
		return Candidate{}, &RefError{Ref: ref, Reason: reason, Family: fam}
	}
	r := strings.ToLower(strings.TrimSpace(ref))
	id := strings.TrimSuffix(r, ".md")
	if len(id) > idLen && id[idLen] == '-' {
		if _, ok := FamilyOfID(id[:idLen]); ok {
			id = id[:idLen]
		}
	}
	rules := []func(Candidate) bool{
		func(c Candidate) bool { return c.ID == id },
		func(c Candidate) bool { return len(r) >= 5 && strings.HasPrefix(c.ID, r) },
		func(c Candidate) bool { return c.Slug == r },
		func(c Candidate) bool { return c.Slug != "" && strings.Contains(c.Slug, r) },
	}
	for _, match := range rules {
		var found []Candidate
		for _, c := range in {
			if match(c) {
				found = append(found, c)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		slices.SortFunc(found, func(a, b Candidate) int {
			return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Slug, b.Slug), cmp.Compare(a.File, b.File))
		})
		return Candidate{}, &RefError{Ref: ref, Candidates: found, Family: fam}
	}
	return Candidate{}, &RefError{Ref: ref, Family: fam}
}

func badRef(ref string) string {
	switch {
	case len(ref) > MaxRefBytes:
		return fmt.Sprintf("over %d bytes", MaxRefBytes)
	case !utf8.ValidString(ref):
		return "invalid UTF-8"
	case strings.TrimSpace(ref) == "":
		return "empty"
	case strings.ContainsAny(ref, `/\`) || strings.Contains(ref, ".."):
		return "it looks like a path"
	}
	for _, c := range ref {
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			return "it holds a control character"
		}
	}
	return ""
}

// commonFamily is the family every ref's id belongs to, or "".
func commonFamily(in []Candidate) Family {
	var fam Family
	for k, c := range in {
		f, ok := FamilyOfID(c.ID)
		if !ok || (k > 0 && f != fam) {
			return ""
		}
		fam = f
	}
	return fam
}
