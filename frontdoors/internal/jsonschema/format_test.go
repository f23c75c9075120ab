package jsonschema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

func TestFormats(t *testing.T) {
	cases := []struct {
		format, value string
		ok            bool
	}{
		{"date", "2026-01-02", true},
		{"date", "2024-02-29", true},
		{"date", "2000-02-29", true},
		{"date", "1900-02-29", false},
		{"date", "2026-02-29", false},
		{"date", "2026-04-31", false},
		{"date", "2026-13-01", false},
		{"date", "2026-1-02", false},
		{"date", "2026-01-02T00:00:00Z", false},
		{"date", "２０２６-01-02", false},
		{"date-time", "2026-01-02T15:04:05Z", true},
		{"date-time", "2026-01-02T15:04:05.5+01:00", true},
		{"date-time", "2026-01-02t15:04:05z", true},
		{"date-time", "2026-01-02 15:04:05Z", true},
		{"date-time", "2026-01-02T15:04:05+0100", true},
		{"date-time", "2026-01-02T23:59:60Z", true},
		{"date-time", "2026-01-03T00:59:60+01:00", true},
		{"date-time", "2026-01-02T22:59:60Z", false},
		{"date-time", "2026-01-02T15:04:05", false},
		{"date-time", "2026-01-02T24:00:00Z", false},
		{"date-time", "2026-01-02T15:04:05+24:00", false},
		{"date-time", "2026-01-02TT15:04:05Z", false},
		{"date-time", "2026-01-02T15:04:05.Z", false},
		{"uri", "https://schemas.abcd.dev/v1/x.schema.json", true},
		{"uri", "urn:isbn:0451450523", true},
		{"uri", "http://[::1]:8080/p?q=1#f", true},
		{"uri", "http://[v1.fe]/", true},
		{"uri", "http://user:pw@host:80/%7Ea", true},
		{"uri", "http:", false},
		{"uri", "relative/path", false},
		{"uri", "//host/path", false},
		{"uri", "1http://x", false},
		{"uri", "https://exa mple.com/", false},
		{"uri", "https://example.com/ü", false},
		{"uri", "https://example.com/%zz", false},
		{"uri", "http://[::1/", false},
		{"uri", "http://[fe80::1%25eth0]/", false},
		{"uri", "http://h/a#b#c", false},
	}
	for _, c := range cases {
		if got := checkFormat(c.format, c.value) == ""; got != c.ok {
			t.Errorf("%s %q: got %v, want %v", c.format, c.value, got, c.ok)
		}
	}
}

// FuzzValidate runs every published schema over arbitrary JSON: the validator never panics, reads
// only what strictjson accepts, and gives one verdict however often it is asked.
func FuzzValidate(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "schemas", "v1", "*.schema.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no schemas: %v", err)
	}
	var schemas []*Schema
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		s, err := Compile(data)
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := strictjson.Parse(data, strictjson.Limits{MaxValues: 10_000})
		if err != nil {
			return
		}
		for _, s := range schemas {
			a, b := s.Validate(v), s.Validate(v)
			if (a == nil) != (b == nil) || a != nil && a.Error() != b.Error() {
				t.Fatalf("two verdicts: %v, %v", a, b)
			}
		}
	})
}
