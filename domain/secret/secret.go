// Package secret takes credentials out of text: every text abcd takes from a route (an answer, a
// model id, an error, a CLI's event) passes through Scrub before it is written or printed, on success
// paths as on failure paths.
package secret

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// MinBytes is the shortest credential Scrub takes out: a shorter one would scrub ordinary words, and
// no credential is this short.
const MinBytes = 4

// Mark replaces a credential in scrubbed text.
const Mark = "[key]"

// Forms lists the spellings of a credential a text could carry it in: as is, as a bearer header,
// base64 (standard and URL, padded or not), URL-encoded (query and path) and JSON-escaped, longest
// first so a longer form is replaced before a shorter one inside it. A credential shorter than
// MinBytes has none.
func Forms(credential string) []string {
	if len(credential) < MinBytes {
		return nil
	}
	quoted, _ := json.Marshal(credential) // escapes <, > and & as JSON encoders do by default
	var plain strings.Builder
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(credential) // a string always encodes
	unescaped := strings.TrimSuffix(plain.String(), "\n")
	raw := []byte(credential)
	forms := []string{
		"Bearer " + credential, credential,
		base64.StdEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw),
		url.QueryEscape(credential), url.PathEscape(credential),
		string(quoted[1 : len(quoted)-1]), unescaped[1 : len(unescaped)-1],
	}
	return longestFirst(forms)
}

// longestFirst sorts forms longest first (then by bytes, so repeats sit together) and drops repeats.
func longestFirst(forms []string) []string {
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(forms)
}

// Scrub replaces every credential in s, in every form Forms lists, with Mark.
func Scrub(s string, credentials ...string) string {
	for _, c := range credentials {
		for _, f := range Forms(c) {
			s = strings.ReplaceAll(s, f, Mark)
		}
	}
	return s
}

// Scrubber holds the credentials one step holds, for scrubbing many texts.
type Scrubber struct{ forms []string }

// NewScrubber keeps the forms of every credential, longest first; credentials shorter than MinBytes
// are left out.
func NewScrubber(credentials ...string) *Scrubber {
	var forms []string
	for _, c := range credentials {
		forms = append(forms, Forms(c)...)
	}
	return &Scrubber{forms: longestFirst(forms)}
}

// Scrub replaces every credential the scrubber holds in s.
func (sc *Scrubber) Scrub(s string) string {
	if sc == nil {
		return s
	}
	for _, f := range sc.forms {
		s = strings.ReplaceAll(s, f, Mark)
	}
	return s
}

// Bytes is Scrub for bytes; b is returned unchanged (not copied) when it holds no credential.
func (sc *Scrubber) Bytes(b []byte) []byte {
	if sc == nil || len(sc.forms) == 0 {
		return b
	}
	s := string(b)
	out := sc.Scrub(s)
	if out == s {
		return b
	}
	return []byte(out)
}

// Empty reports whether the scrubber holds no credential.
func (sc *Scrubber) Empty() bool { return sc == nil || len(sc.forms) == 0 }
