package guard

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// PatchFile is one file a patch in Codex's apply_patch format touches: written (added, updated or
// moved to) or removed.
type PatchFile struct {
	Path   string
	Remove bool
}

// patchHeaders are the headers of Codex's patch format that name a file, without the space Codex
// expects after the colon (a header without it is read below as one the guard could not parse).
var patchHeaders = []struct {
	marker string
	remove bool
}{{"*** Add File:", false}, {"*** Update File:", false}, {"*** Move to:", false}, {"*** Delete File:", true}}

// ErrPatchUnreadable is a patch the guard cannot read the files of: it names none, or a line
// looks like a file header the guard could not parse. Such a patch is blocked, never allowed.
var ErrPatchUnreadable = errors.New("the patch cannot be read")

// PatchFiles reads the files a Codex patch touches as leniently as Codex does: Codex trims each line
// before it matches a header (Unicode white space, so a tab, a carriage return or a no-break space
// too), so a header is matched on the trimmed line, and each path is given as written and trimmed
// (both are checked). A patch that names no file, a header with no path, or a line that looks like
// a file header once trimmed but is not one of these is refused with ErrPatchUnreadable.
func PatchFiles(patch string) ([]PatchFile, error) {
	var files []PatchFile
	seen := map[PatchFile]bool{}
	add := func(f PatchFile) {
		if f.Path != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for n, line := range strings.Split(patch, "\n") {
		trimmed := strings.TrimFunc(line, unicode.IsSpace)
		if !strings.HasPrefix(trimmed, "***") {
			continue
		}
		parsed := false
		for _, h := range patchHeaders {
			rest, ok := strings.CutPrefix(trimmed, h.marker)
			if !ok {
				continue
			}
			parsed = true
			path := strings.TrimFunc(rest, unicode.IsSpace)
			if path == "" {
				return nil, fmt.Errorf("%w: line %d is a %q header with no path", ErrPatchUnreadable, n+1, h.marker)
			}
			add(PatchFile{Path: path, Remove: h.remove})
			// as Codex reads it (the trimmed line past the header's space), and as written (the line's
			// own trailing characters kept)
			add(PatchFile{Path: strings.TrimPrefix(rest, " "), Remove: h.remove})
			raw := strings.TrimPrefix(strings.TrimLeftFunc(line, unicode.IsSpace)[len(h.marker):], " ")
			add(PatchFile{Path: raw, Remove: h.remove})
		}
		if !parsed && looksLikeFileHeader(trimmed) {
			return nil, fmt.Errorf("%w: line %d looks like a file header the guard cannot parse", ErrPatchUnreadable, n+1)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: it names no file", ErrPatchUnreadable)
	}
	return files, nil
}

// looksLikeFileHeader is a line starting *** that, with its case and white space set aside, speaks
// of a file or a move: "***  add file:x", "*** Update\tFile: y", "***Move To: z".
func looksLikeFileHeader(trimmed string) bool {
	squashed := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, trimmed)
	return strings.Contains(squashed, "file:") || strings.Contains(squashed, "moveto") ||
		strings.Contains(squashed, "addfile") || strings.Contains(squashed, "deletefile") || strings.Contains(squashed, "updatefile")
}
