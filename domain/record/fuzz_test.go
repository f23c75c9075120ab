package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/internal/lines"
)

func FuzzParseIntent(f *testing.F) {
	f.Add("x.md", []byte(doc(intentFM, intentBody)))
	f.Fuzz(func(t *testing.T, file string, data []byte) {
		x, err := ParseIntent(file, data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 0 || pe.File != file || pe.Problem == "" || pe.Remedy == "" {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		if x.File != file || len(data) > MaxFileBytes {
			t.Fatalf("accepted %d bytes as %q", len(data), x.File)
		}
		// The header alone, from the start of the file, reads the same front matter.
		head := data[:min(len(data), HeaderReadBytes)]
		if v, _, err := ParseHeader(Intents, file, head); err != nil || v != any(x.Front) {
			t.Fatalf("ParseHeader disagrees: %#v %v", v, err)
		}
		out := RenderIntent(x)
		if len(out) > MaxFileBytes || bytes.Index(out, []byte("\n---\n"))+5 > MaxHeaderBytes {
			return // valid, but its canonical form outgrows the limits
		}
		y, err := ParseIntent(file, out)
		if err != nil {
			t.Fatalf("rendering does not parse: %v\n%q", err, out)
		}
		if !reflect.DeepEqual(stripIntent(x), stripIntent(y)) {
			t.Fatalf("round trip differs:\n%#v\n%#v", x, y)
		}
		if again := RenderIntent(y); !bytes.Equal(again, out) {
			t.Fatalf("rendering is not a fixed point:\n%q\n%q", out, again)
		}
		// SetLifecycle changes that one value and nothing else.
		moved, err := SetLifecycle(data, "shipped")
		if err != nil {
			t.Fatalf("SetLifecycle: %v", err)
		}
		z, err := ParseIntent(file, moved)
		if err != nil || z.Front.Lifecycle != "shipped" {
			t.Fatalf("after SetLifecycle: %v %+v", err, z.Front)
		}
		z.Front.Lifecycle = x.Front.Lifecycle
		if !reflect.DeepEqual(stripIntent(z), stripIntent(x)) {
			t.Fatalf("SetLifecycle changed more than the lifecycle")
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	f.Add("intents", []byte(doc(intentFM, "")))
	f.Fuzz(func(t *testing.T, family string, data []byte) {
		v, n, err := ParseHeader(Family(family), "x.md", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 0 || v != nil || n != 0 {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		if n < len("---\n---") || n > len(data) || n > MaxHeaderBytes+2 {
			t.Fatalf("header length %d of %d bytes", n, len(data))
		}
		w, m, err := ParseHeader(Family(family), "x.md", data[:n])
		if err != nil || m != n || !reflect.DeepEqual(v, w) {
			t.Fatalf("the header alone reads differently: %v", err)
		}
		var id string
		switch fm := v.(type) {
		case IntentFrontMatter:
			id = fm.ID
		case SpecFrontMatter:
			id = fm.ID
		case IssueFrontMatter:
			id = fm.ID
			if fm.Related == nil {
				t.Fatal("nil related")
			}
		case DecisionFrontMatter:
			id = fm.ID
			if fm.Supersedes == nil {
				t.Fatal("nil supersedes")
			}
		}
		if f, ok := FamilyOfID(id); !ok || f != Family(family) {
			t.Fatalf("id %q in a %s header", id, family)
		}
	})
}

func FuzzResolveRef(f *testing.F) {
	f.Add("itd-2607")
	in := []Candidate{
		{"itd-2607011230051234", "login-page", "a.md"},
		{"itd-2607011230059999", "logout", "b.md"},
		{"spc-2608010000000001", "login", "c.md"},
		{"spc-2608010000000001", "login", "d.md"},
		{"iss-2609010000000001", "", "e.md"},
	}
	f.Fuzz(func(t *testing.T, ref string) {
		got, err := ResolveRef(ref, in)
		if err == nil {
			if badRef(ref) != "" || !slices.Contains(in, got) {
				t.Fatalf("resolved %q to %+v", ref, got)
			}
			return
		}
		var re *RefError
		if !errors.As(err, &re) || re.Ref != ref {
			t.Fatalf("bad error %#v", err)
		}
		msg := err.Error()
		if p, _, bad := lines.Unreadable(msg); bad {
			t.Fatalf("message holds %s: %q", p, msg)
		}
		if len(msg) > 2000 {
			t.Fatalf("message of %d bytes", len(msg))
		}
		for _, c := range re.Candidates {
			if !slices.Contains(in, c) {
				t.Fatalf("candidate %+v", c)
			}
		}
		if re.Reason == "" && strings.TrimSpace(ref) == "" {
			t.Fatal("an empty ref was looked up")
		}
	})
}

func BenchmarkParseHeader(b *testing.B) {
	data := RenderIntent(NewIntent(itdID, "A typical intent title of some length", created))
	head := data[:min(len(data), HeaderReadBytes)]
	b.SetBytes(int64(len(head)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseHeader(Intents, "x.md", head); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseIntent(b *testing.B) {
	data := []byte(doc(intentFM, intentBody))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseIntent("x.md", data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFuzzSeedsValid keeps the corpora honest: seeds named valid* must parse, so the fuzzers start
// from inputs that reach every check.
func TestFuzzSeedsValid(t *testing.T) {
	for target, parse := range map[string]func(a, b string) error{
		"FuzzParseIntent": func(file, data string) error { _, err := ParseIntent(file, []byte(data)); return err },
		"FuzzParseHeader": func(family, data string) error {
			_, _, err := ParseHeader(Family(family), "x.md", []byte(data))
			return err
		},
	} {
		paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "valid*"))
		if err != nil || len(paths) < 3 {
			t.Fatalf("%s: too few valid seeds: %v", target, err)
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
			a, err1 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")"))
			b, err2 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")"))
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", p, err1, err2)
			}
			if err := parse(a, b); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
}
