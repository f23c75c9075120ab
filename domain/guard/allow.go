package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// AllowEntry is one guard file the person allowed to weaken the guard on this machine: that file, at that
// path, with exactly those bytes. Any other bytes at the path, or the same bytes elsewhere, are not
// allowed (direnv's allow works the same way).
type AllowEntry struct {
	// File is the guard file's absolute path.
	File string `json:"file" jsonschema:"minLength=1,maxLength=4096,pattern=^/"`
	// SHA256 is the hex digest of the file's bytes the person allowed.
	SHA256 string `json:"sha256" jsonschema:"pattern=^[0-9a-f]{64}$"`
}

// AllowFile is $ABCD_HOME/guard-allowed.json: the repository guard files the person allowed to
// weaken the guard on this machine, written by abcd guard allow.
type AllowFile struct {
	// SchemaVersion is 1.
	SchemaVersion int `json:"schema_version"`
	// Allow lists each allowed file once, by path, with the digest of the bytes allowed.
	Allow []AllowEntry `json:"allow" jsonschema:"maxItems=256"`
}

// AllowFileName is the allow file's name in the machine folder.
const AllowFileName = "guard-allowed.json"

// MaxAllows bounds the allow list.
const MaxAllows = 256

// Digest is the allow digest of a guard file's bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// DecodeAllowFile reads the allow file strictly: one object, no unknown or repeated key, nothing
// after it, schema_version 1, at most MaxAllows entries, each an absolute clean path with a 64-hex
// digest, no file twice. file names it in errors.
func DecodeAllowFile(file string, data []byte) (AllowFile, error) {
	f, err := strictjson.DecodeFile(file, data, strictjson.Limits{MaxBytes: MaxFileBytes, MaxDepth: 8}, 1, func(f *AllowFile) int { return f.SchemaVersion })
	if err != nil {
		return AllowFile{}, err
	}
	if len(f.Allow) > MaxAllows {
		return AllowFile{}, fmt.Errorf("%s: allows %d guard files, more than %d", file, len(f.Allow), MaxAllows)
	}
	seen := map[string]bool{}
	for i, a := range f.Allow {
		if err := a.check(); err != nil {
			return AllowFile{}, fmt.Errorf("%s: allow[%d]: %w", file, i, err)
		}
		if seen[a.File] {
			return AllowFile{}, fmt.Errorf("%s: allow[%d]: %s is allowed twice; a file has one allowed digest", file, i, text.Clip(a.File))
		}
		seen[a.File] = true
	}
	if f.Allow == nil {
		f.Allow = []AllowEntry{}
	}
	return f, nil
}

// Encode is the allow file's bytes, indented, with a final newline.
func (f AllowFile) Encode() ([]byte, error) {
	f.SchemaVersion = 1
	if f.Allow == nil {
		f.Allow = []AllowEntry{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	return append(data, '\n'), err
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
