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

// FuzzPrefix: the cut is a prefix within the bound, keeps every whole rune it can, and never splits
// one.
func FuzzPrefix(f *testing.F) {
	f.Add("é€😀", 5)
	f.Add("abc", 0)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Prefix(s, n)
		if !strings.HasPrefix(s, got) || len(got) > max(n, 0) && len(s) > n {
			t.Fatalf("Prefix(%q, %d) = %q", s, n, got)
		}
		if len(s) <= n {
			if got != s {
				t.Fatalf("short text changed: %q -> %q", s, got)
			}
			return
		}
		if len(got) < len(s) && !utf8.RuneStart(s[len(got)]) && len(got) > 0 {
			t.Fatalf("Prefix(%q, %d) = %q ends inside a rune", s, n, got)
		}
		if utf8.ValidString(s) && len(s)-len(got) > 0 && n-len(got) >= utf8.UTFMax {
			t.Fatalf("Prefix(%q, %d) = %q dropped a whole rune", s, n, got)
		}
	})
}
