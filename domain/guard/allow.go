package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

// AllowEntry is one guard file the person allowed to weaken the guard on this machine: that file, at that
// path, with exactly those bytes. Any other bytes at the path, or the same bytes elsewhere, are not
// allowed (direnv's allow works the same way).
type AllowEntry struct {
	// File is the guard file's absolute path.
	File string `json:"file"`
	// SHA256 is the hex digest of the file's bytes the person allowed.
	SHA256 string `json:"sha256"`
}

// MaxAllows bounds the allow list.
const MaxAllows = 256

// Digest is the allow digest of a guard file's bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ParseAllowList reads the machine configuration's guard.allow value strictly: an array of at most
// MaxAllows objects, each with exactly an absolute file and a 64-hex-digit sha256, no file twice.
func ParseAllowList(raw []byte) ([]AllowEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var list []AllowEntry
	if err := dec.Decode(&list); err != nil || list == nil {
		return nil, fmt.Errorf(`takes an array of {"file": absolute path, "sha256": hex digest} objects`)
	}
	if len(list) > MaxAllows {
		return nil, fmt.Errorf("allows %d guard files, more than %d", len(list), MaxAllows)
	}
	seen := map[string]bool{}
	for i, a := range list {
		if err := a.check(); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if seen[a.File] {
			return nil, fmt.Errorf("entry %d: %s is allowed twice; a file has one allowed digest", i, text.Clip(a.File))
		}
		seen[a.File] = true
	}
	return list, nil
}

func (a AllowEntry) check() error {
	if a.File == "" || !path.IsAbs(a.File) || path.Clean(a.File) != a.File || strings.ContainsFunc(a.File, isControl) {
		return fmt.Errorf("file %q is not a clean absolute path", text.Clip(a.File))
	}
	if len(a.SHA256) != 64 || strings.Trim(a.SHA256, "0123456789abcdef") != "" {
		return fmt.Errorf("sha256 %q is not 64 lower-case hex digits", text.Clip(a.SHA256))
	}
	return nil
}

// Allowed reports whether the list allows data at file.
func Allowed(list []AllowEntry, file string, data []byte) bool {
	d := Digest(data)
	return slices.ContainsFunc(list, func(a AllowEntry) bool { return a.File == file && a.SHA256 == d })
}

// WithAllow is list with file's entry set to digest (replacing an earlier one for the same file), or
// removed when digest is empty; changed is false when the list already says so.
func WithAllow(list []AllowEntry, file, digest string) (out []AllowEntry, changed bool) {
	out = slices.DeleteFunc(slices.Clone(list), func(a AllowEntry) bool { return a.File == file })
	changed = len(out) != len(list)
	if digest != "" {
		if slices.Contains(list, AllowEntry{File: file, SHA256: digest}) {
			return list, false
		}
		out = append(out, AllowEntry{File: file, SHA256: digest})
		changed = true
	}
	return out, changed
}
