package text

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
	"unicode"
)

// TestClassesSpellWhatTheChecksRead: the classes a schema carries match exactly the characters
// Hidden and Space read, over every code point, so a schema built from them refuses what the check
// refuses. Space is also exactly unicode.IsSpace less the hidden characters.
func TestClassesSpellWhatTheChecksRead(t *testing.T) {
	hidden := regexp.MustCompile(`^[` + HiddenClass() + `]$`)
	space := regexp.MustCompile(`^[` + SpaceClass() + `]$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		s := string(r)
		if got, want := hidden.MatchString(s), Hidden(r) != ""; got != want {
			t.Fatalf("U+%04X: HiddenClass matches %v, Hidden says %v", r, got, want)
		}
		if got, want := space.MatchString(s), Space(r); got != want {
			t.Fatalf("U+%04X: SpaceClass matches %v, Space says %v", r, got, want)
		}
		if want := unicode.IsSpace(r) && Hidden(r) == ""; Space(r) != want {
			t.Fatalf("U+%04X: Space %v, unicode.IsSpace less hidden %v", r, Space(r), want)
		}
	}
}

// FuzzEscapeUnseenJSON: the escaped document means what the original did, and shows no hidden or
// white space character past ASCII.
func FuzzEscapeUnseenJSON(f *testing.F) {
	f.Add("bidi \u202e and \u3000 space, \u0085 and é")
	f.Fuzz(func(t *testing.T, s string) {
		data, err := json.Marshal(map[string]string{s: s})
		if err != nil {
			t.Fatal(err)
		}
		out := EscapeUnseenJSON(data)
		var want, back map[string]string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, want) {
			t.Fatalf("%q -> %s: %v", s, out, err)
		}
		for _, r := range string(out) {
			if r >= 0x80 && (Hidden(r) != "" || Space(r)) {
				t.Fatalf("%q -> %s shows U+%04X", s, out, r)
			}
		}
	})
}
