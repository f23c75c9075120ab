package history

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// Canary is one secret of the canary corpus (testdata/canaries.json): its kind, the secret, and the
// text that carries it (the secret alone when empty). The harness test reads the same file.
type Canary struct {
	Kind   string `json:"kind"`
	Secret string `json:"secret"`
	Text   string `json:"text"`
}

func loadCanaries(t testing.TB) []Canary {
	t.Helper()
	data, err := os.ReadFile("testdata/canaries.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Canaries []Canary }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for i := range f.Canaries {
		if f.Canaries[i].Text == "" {
			f.Canaries[i].Text = f.Canaries[i].Secret
		}
	}
	return f.Canaries
}

const (
	testCredential = "prov-Kx9Lm2Qp7Zr4Wt8Vn3Bj6Hc1Fd5Gs0Ya"
	testHome       = "/home/ada"
)

// forms are the ways a transcript carries a secret: as it is in a prompt; in a tool's JSON output
// (escaped twice in the transcript line); wrapped over lines; base64-encoded; URL-escaped in a query;
// in a shell export; in a markdown code block; beside the home path.
func forms(secret string) map[string]string {
	inner, _ := json.Marshal(map[string]string{"token": secret, "note": "from " + testHome + "/.env"})
	wrapped := secret
	if len(secret) > 24 && !strings.Contains(secret, "\n") {
		wrapped = secret[:len(secret)/2] + "\n" + secret[len(secret)/2:]
	}
	return map[string]string{
		"plain":         "please use " + secret + " for this",
		"json in json":  string(inner),
		"wrapped":       "the key is:\n" + wrapped + "\nthanks",
		"base64":        "encoded: " + base64.StdEncoding.EncodeToString([]byte("token="+secret)),
		"url query":     "curl 'https://api.example/v1?key=" + url.QueryEscape(secret) + "&x=1'",
		"shell export":  "export SERVICE_TOKEN='" + secret + "'",
		"markdown code": "```\n" + secret + "\n```",
	}
}

// line is one Claude Code transcript line holding text as a tool result.
func line(text string) []byte {
	data, _ := json.Marshal(map[string]any{"type": "user", "cwd": testHome + "/src/app", "sessionId": "s1",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": text}}}})
	return append(data, '\n')
}

// encodedForms are how a secret could still stand in stored bytes.
func encodedForms(secret string) []string {
	j, _ := json.Marshal(secret)
	out := []string{secret, string(j[1 : len(j)-1]), base64.StdEncoding.EncodeToString([]byte(secret)), url.QueryEscape(secret)}
	// A private key's body is what matters: its base64 lines.
	if strings.Contains(secret, "PRIVATE KEY") {
		for _, l := range strings.Split(secret, "\n") {
			if !strings.HasPrefix(l, "-----") {
				out = append(out, l)
			}
		}
	}
	return out
}

// The canary corpus: every secret in every form, in a transcript line. After redaction none stands in
// the stored bytes in any encoding, or the rescan names it and the transcript is not kept; the home
// path is gone too.
func TestTheCanaryCorpusIsFoundInNoStoredRecord(t *testing.T) {
	det, err := SecretDetector()
	assert.NilError(t, err)
	r := NewRedactor(det, []string{testCredential}, testHome)
	kept, refused := 0, 0
	canaries := loadCanaries(t)
	for _, c := range canaries {
		for name, text := range forms(c.Text) {
			counts := Counts{}
			out, err := r.JSON(line(text), counts)
			assert.NilError(t, err)
			survivors, err := r.SurvivorsJSON(out)
			assert.NilError(t, err)
			if len(survivors) > 0 {
				refused++
				continue // not kept: nothing stored
			}
			kept++
			for _, enc := range encodedForms(c.Secret) {
				assert.Check(t, !strings.Contains(string(out), enc), "%s, %s: %q stands in the kept bytes:\n%s", c.Kind, name, enc, out)
			}
			assert.Check(t, !strings.Contains(string(out), testHome), "%s, %s: the home path stands", c.Kind, name)
			assert.Check(t, counts.Total() > 0, "%s, %s: counted", c.Kind, name)
			assert.Check(t, json.Valid(out[:len(out)-1]), "%s, %s: still JSON", c.Kind, name)
		}
	}
	t.Logf("%d secrets in %d forms: %d redacted and kept, %d refused", len(canaries), len(forms("x")), kept, refused)
	assert.Check(t, refused == 0, "every canary form is redacted, none has to be refused")
}

// A transcript in which a secret survives is refused: the rescan looks through views redaction did
// not use (here, a secret hidden from the redaction's detector but not from the rescan's).
func TestTheRescanNamesWhatSurvives(t *testing.T) {
	det, err := SecretDetector()
	assert.NilError(t, err)
	r := NewRedactor(det, []string{testCredential}, testHome)
	for _, c := range []struct{ text, want string }{
		{"ghp_R8x2Kq7WmZ4tLp9sVb3nYc6Hd1Jf5Ga0Ue2i", "github-pat"},
		{base64.StdEncoding.EncodeToString([]byte("AKIAQ3EGT7XK5W2MZR4P is the key")), "aws-access-token"},
		{url.QueryEscape("key " + testCredential), CredentialRule},
		{"cd " + testHome + "/src", HomeRule},
		{`{\"t\":\"glpat-Zx8qW3rT7yU1iO5pA9sD\"}`, "gitlab-pat"},
	} {
		got := r.Survivors(c.text)
		assert.Check(t, len(got) > 0 && contains(got, c.want), "%q: %v", c.text, got)
	}
	assert.Check(t, len(r.Survivors("[REDACTED:github-pat] and ~/src")) == 0, "markers are no findings")
	assert.Check(t, len(r.Survivors("an ordinary sentence about a token and a key")) == 0)
}

func TestRedactionKeepsWhatIsNotSecret(t *testing.T) {
	det, err := SecretDetector()
	assert.NilError(t, err)
	r := NewRedactor(det, []string{testCredential}, testHome)
	in := line("ran go test ./... in " + testHome + "/src/app: ok; see /home/adam/x and postgres://localhost:5432/db")
	counts := Counts{}
	out, err := r.JSON(in, counts)
	assert.NilError(t, err)
	assert.Check(t, strings.Contains(string(out), `ran go test ./... in ~/src/app: ok; see /home/adam/x and postgres://localhost:5432/db`), "%s", out)
	assert.Check(t, counts[HomeRule] == 2, "%v", counts)
	_, err = r.JSON([]byte(`{"a":"unclosed`), Counts{})
	assert.Check(t, err != nil)
	// Byte for byte elsewhere: key order, spacing and numbers are kept.
	same := []byte(`{"z": 1.50, "a" :[true,null], "b":"plain"}` + "\n")
	out, err = r.JSON(same, Counts{})
	assert.NilError(t, err)
	assert.Check(t, string(out) == string(same))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzRedact(f *testing.F) {
	for _, c := range loadCanaries(f) {
		f.Add(string(line(c.Text)))
	}
	f.Add(`{"a":"\u0041KIAQ3EGT7XK5W2MZR4P"}`)
	det, err := SecretDetector()
	if err != nil {
		f.Fatal(err)
	}
	r := NewRedactor(det, []string{testCredential}, testHome)
	f.Fuzz(func(t *testing.T, data string) {
		out, err := r.JSON([]byte(data), Counts{})
		if err != nil {
			return
		}
		if json.Valid([]byte(data)) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out: %q -> %q", data, out)
		}
		if _, err := r.SurvivorsJSON(out); err != nil {
			t.Fatal(fmt.Errorf("redacted output unreadable: %w", err))
		}
	})
}
