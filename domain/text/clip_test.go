package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{strings.Repeat("a", ClipBytes), strings.Repeat("a", ClipBytes)},
		{strings.Repeat("a", ClipBytes+1), strings.Repeat("a", ClipBytes) + "…"},
		// 27 three-byte runes are 81 bytes: the cut falls inside the 27th, so 26 are kept.
		{strings.Repeat("€", 27), strings.Repeat("€", 26) + "…"},
		{strings.Repeat("é", 100), strings.Repeat("é", 40) + "…"},
	} {
		if got := Clip(c.in); got != c.want {
			t.Errorf("Clip(%d bytes) = %q, want %q", len(c.in), got, c.want)
		}
	}
}

// FuzzClip: the clip never grows text past ClipBytes and the mark, keeps a prefix, and never splits
// a rune that was whole.
func FuzzClip(f *testing.F) {
	f.Add(strings.Repeat("x", 100_000))
	f.Add(strings.Repeat("😀", 30))
	f.Add("\xff\xfe" + strings.Repeat("é", 50))
	f.Fuzz(func(t *testing.T, s string) {
		got := Clip(s)
		if len(s) <= ClipBytes {
			if got != s {
				t.Fatalf("short text changed: %q -> %q", s, got)
			}
			return
		}
		body, ok := strings.CutSuffix(got, "…")
		if !ok || len(body) > ClipBytes || !strings.HasPrefix(s, body) {
			t.Fatalf("Clip(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(body) {
			t.Fatalf("split a rune: %q", body)
		}
	})
}
