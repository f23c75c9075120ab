package secret

import (
	"encoding/hex"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A key cut into pieces too short to be found alone is found with what stands between them taken
// out, and the whole stretch, pieces and joints, is what carries it.
func TestAKeyCutIntoPiecesIsFound(t *testing.T) {
	key := "sk-ant-api03-Qx7Lm2Zp9Kr4"
	sc := NewScrubber(key)
	for name, text := range map[string]string{
		"joined with +":             `k := "sk-ant-" + "api03-Q" + "x7Lm2Z" + "p9Kr4"`,
		"over lines, joined with +": "k = (\"sk-ant-\" +\n\t\"api03-Qx7\" +\n\t\"Lm2Zp9Kr4\")",
		"python's adjacent strings": `k = ("sk-ant-ap" "i03-Qx7L" 'm2Zp9Kr4')`,
		"a list joined":             `"".join(["sk-ant-ap", "i03-Qx7L", "m2Zp9Kr4"])`,
		"php's dot":                 `$k = 'sk-ant-ap' . 'i03-Qx7L' . 'm2Zp9Kr4';`,
		"a shell continuation":      "export K=sk-ant-ap\\\ni03-Qx7L\\\nm2Zp9Kr4\n",
		"wrapped, escaped breaks":   `{"k":"sk-ant-ap\ni03-Qx7L\nm2Zp9Kr4"}`,
		"wrapped over lines":        "sk-ant-ap\ni03-Qx7L\r\nm2Zp9Kr4",
		"hex cut in two":            "h := \"" + hex.EncodeToString([]byte(key))[:20] + "\" +\n \"" + hex.EncodeToString([]byte(key))[20:] + "\"",
	} {
		assert.Check(t, sc.Carries(text), name)
		spans := sc.SplitSpans(text)
		assert.Assert(t, len(spans) > 0, name)
		var kept strings.Builder
		at := 0
		for _, sp := range spans {
			kept.WriteString(text[at:sp[0]])
			at = sp[1]
		}
		kept.WriteString(text[at:])
		for _, piece := range []string{"ant-", "Qx7L", "Zp9K", "3-Qx"} {
			assert.Check(t, !strings.Contains(kept.String(), piece), "%s: %q stands in %q", name, piece, kept.String())
		}
	}
}

// Strings that are joined but hold no key, and ordinary text, carry nothing.
func TestJoinedTextWithoutAKeyCarriesNothing(t *testing.T) {
	sc := NewScrubber("sk-ant-api03-Qx7Lm2Zp9Kr4")
	for _, text := range []string{"", `msg := "hello, " + name + "!"`, `("a" "b" 'c')`, "a\\\nb", `x = ""`, `" "`, "sk-ant-", strings.Repeat(`"ab" + `, 100)} {
		assert.Check(t, !sc.Carries(text), text)
		assert.Check(t, is.Len(sc.SplitSpans(text), 0), text)
	}
	assert.Check(t, !NewScrubber().Carries("sk-ant-api03-Qx7Lm2Zp9Kr4"))
	// A URL's password is Scrub's to take out, not a credential held.
	assert.Check(t, !sc.Carries("postgres://app:hunter2hunter2@db/app"))
	assert.Check(t, sc.Holds("postgres://app:hunter2hunter2@db/app"))
}

func TestSpansAreWholeCharactersInOrder(t *testing.T) {
	key := "éééé-secret-value-0123"
	sc := NewScrubber(key)
	text := "«" + key + "» and «" + key[2:] + "»"
	spans := sc.Spans(text)
	assert.Assert(t, is.Len(spans, 2))
	assert.Check(t, is.Equal(text[spans[0][0]:spans[0][1]], key))
	assert.Check(t, spans[0][1] <= spans[1][0])
	assert.Check(t, is.Equal(sc.Scrub(text), "«"+Mark+"» and «"+Mark+"»"))
}

func FuzzJoinPiecesKeepsPlaces(f *testing.F) {
	f.Add(`k := "sk-ant-" + "api03" // x`)
	f.Add("a\\\nb \"c\" . 'd'")
	f.Fuzz(func(t *testing.T, s string) {
		joined, at := joinPieces(s, true)
		if len(at) != len(joined) {
			t.Fatalf("%d places for %d bytes", len(at), len(joined))
		}
		for i := range at {
			if s[at[i]] != joined[i] || i > 0 && at[i] <= at[i-1] {
				t.Fatalf("byte %d of %q stood at %d of %q", i, joined, at[i], s)
			}
		}
		if plain, _ := joinPieces(s, false); plain != joined {
			t.Fatalf("with and without places differ: %q, %q", plain, joined)
		}
	})
}
