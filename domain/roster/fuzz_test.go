package roster

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add("agents/x.md", []byte(doc(validFM)))
	f.Add("x.md", []byte(strings.ReplaceAll(doc(validFM), "\n", "\r\n")))
	f.Fuzz(func(t *testing.T, file string, data []byte) {
		a, err := Parse(file, data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if pe.Line < 0 || pe.File != file || pe.Msg == "" {
				t.Fatalf("bad ParseError %+v", pe)
			}
			return
		}
		if !ValidName(a.Name) {
			t.Fatalf("accepted name %q", a.Name)
		}
		if a.PromptVersion < 1 {
			t.Fatalf("accepted prompt_version %d", a.PromptVersion)
		}
		if len(a.Tools) == 0 {
			t.Fatal("accepted empty tools")
		}
		for i, tool := range a.Tools {
			if !ValidTool(tool) || slices.Contains(a.Tools[:i], tool) {
				t.Fatalf("accepted tools %q", a.Tools)
			}
		}
		if !slices.Contains(scopes, string(a.CapabilityScope)) || !slices.Contains(models, a.Model) {
			t.Fatalf("accepted scope %q model %q", a.CapabilityScope, a.Model)
		}
		if strings.TrimSpace(a.Description) == "" || strings.TrimSpace(a.Body) == "" {
			t.Fatalf("accepted empty description or body: %+v", a)
		}
		if a.File != file || len(data) > MaxFileBytes {
			t.Fatalf("accepted %d bytes as %q", len(data), a.File)
		}
	})
}

// TestFuzzSeedsValid keeps the corpus honest: seeds named valid* must parse,
// so the fuzzer starts from inputs that reach every check.
func TestFuzzSeedsValid(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "valid*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no valid seeds: %v", err)
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 3 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s: not a two-argument corpus file", p)
		}
		file, err1 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")"))
		data, err2 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")"))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", p, err1, err2)
		}
		if _, err := Parse(file, []byte(data)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
