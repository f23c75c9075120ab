package secret

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const canary = "sk-canary/+=&é\"1234567890"

func TestScrubTakesEveryFormOut(t *testing.T) {
	raw := []byte(canary)
	for _, form := range []string{
		canary, "Bearer " + canary,
		base64.StdEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw),
		url.QueryEscape(canary), url.PathEscape(canary), `sk-canary/+=&é\"1234567890`, `sk-canary/+=\u0026é\"1234567890`,
	} {
		got := Scrub("before "+form+" after", canary)
		assert.Check(t, is.Equal(got, "before "+Mark+" after"), form)
		assert.Check(t, is.Equal(NewScrubber("other-secret", canary).Scrub("before "+form+" after"), "before "+Mark+" after"), form)
	}
}

func TestAShortCredentialScrubsNothing(t *testing.T) {
	assert.Check(t, is.Len(Forms("abc"), 0))
	assert.Check(t, is.Equal(Scrub("abc abc", "abc"), "abc abc"))
	assert.Check(t, NewScrubber("abc", "").Empty())
	var nilScrubber *Scrubber
	assert.Check(t, is.Equal(nilScrubber.Scrub("x"), "x"))
}

func TestFormsHoldNoRepeat(t *testing.T) {
	forms := Forms("plainkey1234")
	seen := map[string]bool{}
	for _, f := range forms {
		assert.Check(t, !seen[f], f)
		seen[f] = true
	}
	for i := 1; i < len(forms); i++ {
		assert.Check(t, len(forms[i-1]) >= len(forms[i]))
	}
}

func TestBytesIsUnchangedWithoutACredential(t *testing.T) {
	sc := NewScrubber(canary)
	in := []byte("nothing here")
	assert.Check(t, &sc.Bytes(in)[0] == &in[0])
	assert.Check(t, !strings.Contains(string(sc.Bytes([]byte("x"+canary))), canary))
}
