package secret

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const canary = "sk-canary/+=&é\"1234567890"

// echoes is every spelling a hostile server tried with the key: each must come out of any text.
func echoes(key string) map[string]string {
	raw := []byte(key)
	out := map[string]string{
		"as is": key, "std base64": base64.StdEncoding.EncodeToString(raw), "std base64 unpadded": base64.RawStdEncoding.EncodeToString(raw),
		"url base64": base64.URLEncoding.EncodeToString(raw), "url base64 unpadded": base64.RawURLEncoding.EncodeToString(raw),
		"query escaped": url.QueryEscape(key), "path escaped": url.PathEscape(key), "lowercase escapes": lowerEscapes(url.QueryEscape(key)),
		"hex": hex.EncodeToString(raw), "HEX": strings.ToUpper(hex.EncodeToString(raw)),
	}
	if body, ok := strings.CutPrefix(key, "sk-"); ok {
		out["without its prefix"] = body
		out["its body in base64"] = base64.StdEncoding.EncodeToString([]byte(body))
	}
	for pad := range 3 {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
			out["base64 inside a longer text, "+string(rune('0'+pad))+" bytes before"] = enc.EncodeToString([]byte("Basic "[:3+pad] + "user:" + key + ":tail"))
			out["base64 of a bearer header, "+string(rune('0'+pad))] = enc.EncodeToString([]byte(strings.Repeat("x", pad) + "Authorization: Bearer " + key))
		}
	}
	return out
}

func TestScrubTakesEveryFormOut(t *testing.T) {
	for _, key := range []string{canary, "sk-proj-AbCdEf0123456789xyzXYZ_-", "plain-key-without-a-prefix-0123", "0123456789abcdefghij"} {
		sc := NewScrubber("other-secret-value", key)
		for name, form := range echoes(key) {
			got := sc.Scrub("before " + form + " after")
			assert.Check(t, !leaks(got, key), "%s %q: %q", key, name, got)
			assert.Check(t, strings.HasPrefix(got, "before") && strings.HasSuffix(got, "after"), "%s: the text around it stays: %q", name, got)
			assert.Check(t, strings.Contains(got, Mark), "%s %q: %q", key, name, got)
		}
	}
	for _, form := range []string{`sk-canary/+=&é\"1234567890`, `sk-canary/+=\u0026é\"1234567890`, `sk-canary\/+=\u0026\u00e9\"1234567890`, `sk-canary\/+=&\u00E9\"1234567890`} {
		assert.Check(t, is.Equal(Scrub("before "+form+" after", canary), "before "+Mark+" after"), form)
	}
}

// leaks reports whether text still holds a run of Window bytes of any spelling of key.
func leaks(text, key string) bool {
	for _, f := range Forms(key) {
		for i := 0; i+Window <= len(f); i++ {
			if strings.Contains(text, f[i:i+Window]) {
				return true
			}
		}
	}
	return false
}

func TestAKeyWhoseCaseWasFoldedStillGoes(t *testing.T) {
	key := "sk-proj-CaNaRy7Qx+9Zk_3vLw-8Tn2Hp5Rb"
	for _, folded := range []string{strings.ToLower(key), strings.ToUpper(key), strings.ToLower(base64.StdEncoding.EncodeToString([]byte(key)))} {
		assert.Check(t, is.Equal(Scrub("application/x-"+folded+"; charset=utf-8", key), "application/x-"+Mark+"; charset=utf-8"), folded)
	}
}

func TestAKeyCutShortStillGoes(t *testing.T) {
	key := "sk-live-0123456789abcdefghijklmnop"
	for _, cut := range []string{key[:Window+3], key[len(key)-Window-1:], key[5 : 5+Window]} {
		got := Scrub("the server said "+cut+"… and stopped", key)
		assert.Check(t, !strings.Contains(got, cut), got)
		assert.Check(t, is.Equal(got, "the server said "+Mark+"… and stopped"))
	}
}

func TestTheTextAroundAKeyStaysWhole(t *testing.T) {
	// A key whose spelling starts or ends inside a character takes the whole character, never half.
	key := "éééé-secret-value-0123"
	got := Scrub("«"+key+"»", key)
	assert.Check(t, utf8.ValidString(got), "%q", got)
	assert.Check(t, is.Equal(got, "«"+Mark+"»"))
	got = NewScrubber(key).Scrub("x" + key[1:] + "y") // a key starting mid-character
	assert.Check(t, utf8.ValidString(got) || !utf8.ValidString("x"+key[1:]+"y"), "%q", got)
}

func TestOrdinaryTextIsLeftAlone(t *testing.T) {
	sc := NewScrubber(canary, "sk-proj-AbCdEf0123456789xyzXYZ_-")
	for _, s := range []string{"", "a review with no key in it: SHIP", "sk-", "Bearer ", strings.Repeat("0123456789", 100), "gpt-4o-mini"} {
		assert.Check(t, is.Equal(sc.Scrub(s), s))
		assert.Check(t, !sc.Holds(s))
	}
}

func TestAShortCredentialScrubsNothing(t *testing.T) {
	assert.Check(t, is.Len(Forms("abc"), 0))
	assert.Check(t, is.Equal(Scrub("abc abc", "abc"), "abc abc"))
	assert.Check(t, NewScrubber("abc", "").Empty())
	var nilScrubber *Scrubber
	assert.Check(t, is.Equal(nilScrubber.Scrub("x"), "x"))
	// A short key is taken out only whole.
	assert.Check(t, is.Equal(Scrub("k3y9 k3y k3y9z", "k3y9"), Mark+" k3y "+Mark+"z"))
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

func TestAlignedIsWhatEveryAlignmentShares(t *testing.T) {
	key := []byte("0123456789abcdefghij")
	for align := range 3 {
		frag := aligned(base64.StdEncoding, key, align)
		assert.Check(t, len(frag) >= len(key)*4/3-3, "align %d: %q", align, frag)
		for _, before := range []string{"", "a", "ab", "abc", "\xff\x00\x01"[:align]} {
			if len(before)%3 != align {
				continue
			}
			for _, after := range []string{"", "z", "zz", "\x00\xff"} {
				whole := base64.StdEncoding.EncodeToString([]byte(before + string(key) + after))
				assert.Check(t, strings.Contains(whole, frag), "align %d, %q before, %q after", align, before, after)
			}
		}
	}
}

func TestBytesIsUnchangedWithoutACredential(t *testing.T) {
	sc := NewScrubber(canary)
	in := []byte("nothing here")
	assert.Check(t, &sc.Bytes(in)[0] == &in[0])
	assert.Check(t, !strings.Contains(string(sc.Bytes([]byte("x"+canary))), canary))
}

func FuzzScrubLeavesNoWindow(f *testing.F) {
	f.Add("before ", "sk-canary-0123456789abcdef", " after")
	f.Add("", "éééé-secret-value-0123", "")
	f.Fuzz(func(t *testing.T, before, key, after string) {
		if len(key) < Window {
			return
		}
		sc := NewScrubber(key)
		got := sc.Scrub(before + key + after)
		if strings.Contains(got, key) {
			t.Fatalf("the key stands in %q", got)
		}
		if utf8.ValidString(before+key+after) && !utf8.ValidString(got) {
			t.Fatalf("valid text became invalid: %q", got)
		}
	})
}

// A URL's password goes whoever's it is: no scrubber needs to hold it, an empty or nil one included.
func TestAURLsPasswordGoesHeldOrNot(t *testing.T) {
	var nilScrubber *Scrubber
	for _, sc := range []*Scrubber{nilScrubber, NewScrubber(), NewScrubber(canary)} {
		for in, want := range map[string]string{
			"failed: http://user:pw@10.1.2.3/x":                 "failed: http://user:" + Mark + "@10.1.2.3/x",
			"proxy https://u:p%40ss@proxy.example:8080 refused": "proxy https://u:" + Mark + "@proxy.example:8080 refused",
			"two: a://x:1@h, b://y:22@[::1]:80?q":               "two: a://x:" + Mark + "@h, b://y:" + Mark + "@[::1]:80?q",
			"an @ in the password: ftp://me:a@b@host/f":         "an @ in the password: ftp://me:" + Mark + "@host/f",
			`{"url":"http:\/\/bob:hunter2@db.internal\/app"}`:   `{"url":"http:\/\/bob:` + Mark + `@db.internal\/app"}`,
			`{"url":"postgres://bob:s3cr%22t@db:5432/app"}`:     `{"url":"postgres://bob:` + Mark + `@db:5432/app"}`,
			"http: //user:pw@10.1.2.3/x (a detail made plain)":  "http: //user:" + Mark + "@10.1.2.3/x (a detail made plain)",
			"no password: ssh://git@github.com/a/b":             "no password: ssh://git@github.com/a/b",
			"an address: ada@example.com, a path: /a//b, c:d@e": "an address: ada@example.com, a path: /a//b, c:d@e",
			"a comment: // see a:b@c":                           "a comment: // see a:b@c",
			"empty password: http://u:@h/":                      "empty password: http://u:@h/",
			"already: http://u:" + Mark + "@h/":                 "already: http://u:" + Mark + "@h/",
			"at the end: http://u:p@":                           "at the end: http://u:" + Mark + "@",
		} {
			got := sc.Scrub(in)
			assert.Check(t, is.Equal(got, want), in)
			assert.Check(t, is.Equal(sc.Scrub(got), got), "scrubbing twice changes nothing: %s", in)
			assert.Check(t, is.Equal(string(sc.Bytes([]byte(in))), want), in)
		}
	}
	// JSON stays JSON.
	sc := NewScrubber()
	out := sc.Bytes([]byte(`{"a":"http://u:p\"q@h/","b":"http://u:p\\@h/"}`))
	assert.Check(t, json.Valid(out), "%s", out)
	assert.Check(t, !strings.Contains(string(out), `p\\@`), "%s", out)
}

func FuzzPasswordsKeepTheRest(f *testing.F) {
	f.Add("http://user:pw@10.1.2.3/x")
	f.Add(`{"u":"a:\/\/b:c@d"}`)
	f.Fuzz(func(t *testing.T, s string) {
		got := Passwords(s)
		if Passwords(got) != got {
			t.Fatalf("not stable: %q then %q", got, Passwords(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid text became invalid: %q", got)
		}
		if json.Valid([]byte(s)) && !json.Valid([]byte(got)) {
			t.Fatalf("JSON became invalid: %q", got)
		}
		if !strings.Contains(s, "@") && got != s {
			t.Fatalf("text without an @ changed: %q", got)
		}
	})
}
