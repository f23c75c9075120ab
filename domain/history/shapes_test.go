package history

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	mrand "math/rand"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The shapes of secret issue 33 found kept, each a corpus: what redaction must take out (each text
// with the pieces of it that must not stand after), and look-alikes it must leave as they are. A text
// is caught when no piece stands in what redaction gives, or when the rescan names what stands (the
// capture is refused, and nothing is kept).

// shapeCase is one text and the pieces of it that are secret.
type shapeCase struct {
	name   string
	text   string
	pieces []string
}

// score redacts every case with r and counts those caught: redacted, or refused by the rescan.
func score(t *testing.T, r *Redactor, cases []shapeCase) (redacted, refused int, missed []string) {
	t.Helper()
	for _, c := range cases {
		out := r.Text(c.text, Counts{})
		stands := false
		for _, p := range c.pieces {
			if strings.Contains(out, p) {
				stands = true
			}
		}
		switch {
		case !stands && len(r.Survivors(out)) == 0:
			redacted++
		case len(r.Survivors(out)) > 0:
			refused++
		default:
			missed = append(missed, fmt.Sprintf("%s: %q", c.name, clipCase(out)))
		}
	}
	return redacted, refused, missed
}

func newTestRedactor(t *testing.T, held ...string) *Redactor {
	t.Helper()
	det, err := SecretDetector()
	assert.NilError(t, err)
	return NewRedactor(det, held, testHome)
}

// randomText is n characters of alphabet, from r.
func randomText(r *mrand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

const (
	hexDigits = "0123456789abcdef"
	base62    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// assignmentCorpus is every secret-named key, spelled for env files and for code, given values of
// low and high entropy, in every way a value is written.
func assignmentCorpus() []shapeCase {
	r := mrand.New(mrand.NewSource(33))
	names := [][2]string{ // env spelling, code spelling
		{"TWILIO_AUTH_TOKEN", "twilioAuthToken"}, {"SLACK_BOT_TOKEN", "slack_bot_token"}, {"MAILGUN_API_KEY", "mailgunApiKey"},
		{"STRIPE_SECRET", "stripe_secret"}, {"DB_PASSWORD", "dbPassword"}, {"REDIS_AUTH", "redis_auth"}, {"JWT_SECRET", "jwtSecret"},
		{"ENCRYPTION_KEY", "encryption_key"}, {"REFRESH_TOKEN", "refreshToken"}, {"PRIVATE_KEY_ID", "private_key_id"},
		{"OAUTH_CLIENT_SECRET", "oauthClientSecret"}, {"GPG_PASSPHRASE", "gpg_passphrase"}, {"X_API_KEY", "x-api-key"},
		{"BASIC_AUTH_CREDENTIALS", "basicAuthCredentials"}, {"SESSION_SECRET_KEY", "sessionSecretKey"},
	}
	values := []string{
		"0a1b0a1b0a1b0a1b0a1b0a1b0a1b0a1b", // 32 hex under gitleaks' generic threshold (entropy 2)
		"ab12ab12cd34cd34ab12ab12cd34cd34", // 32 hex, entropy 3
		randomText(r, hexDigits, 32),       // a Twilio auth token's shape
		randomText(r, hexDigits, 40),       // a service account's private_key_id
		randomText(r, base62, 24),
		"Tr0ub4dor&3x",
		"1111aaaa2222bbbb3333", // low entropy, letters and digits
		"deadbeef-0000-4000-8000-000000000001",
	}
	var out []shapeCase
	for _, n := range names {
		env, code := n[0], n[1]
		for i, v := range values {
			for _, f := range []string{
				env + "=" + v, env + `="` + v + `"`, "export " + env + "=" + v, "export " + env + "='" + v + "'",
				`{"` + code + `": "` + v + `", "region": "eu-west-1"}`, code + ": " + v, code + `: "` + v + `"`,
				code + ` = "` + v + `"`, code + ` := "` + v + `"`, "docker run -e " + env + "=" + v + " app",
			} {
				out = append(out, shapeCase{name: fmt.Sprintf("%s value %d: %s", env, i, f), text: "config:\n" + f + "\nend", pieces: []string{v}})
			}
		}
	}
	for _, v := range values[2:5] {
		out = append(out, shapeCase{name: "a header", text: "Authorization: Bearer " + v, pieces: []string{v}},
			shapeCase{name: "a header in JSON", text: `{"Authorization": "Bearer ` + v + `"}`, pieces: []string{v}})
	}
	return out
}

// privateKeys are one of each kind of private key, DER-encoded, with a name.
func privateKeys(t *testing.T) map[string][]byte {
	t.Helper()
	keys := map[string][]byte{}
	for _, bits := range []int{1024, 2048} {
		k, err := rsa.GenerateKey(rand.Reader, bits)
		assert.NilError(t, err)
		keys[fmt.Sprintf("RSA %d PKCS#1", bits)] = x509.MarshalPKCS1PrivateKey(k)
		der, err := x509.MarshalPKCS8PrivateKey(k)
		assert.NilError(t, err)
		keys[fmt.Sprintf("RSA %d PKCS#8", bits)] = der
	}
	for _, c := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		assert.NilError(t, err)
		der, err := x509.MarshalECPrivateKey(k)
		assert.NilError(t, err)
		keys["EC "+c.Params().Name+" SEC1"] = der
		der, err = x509.MarshalPKCS8PrivateKey(k)
		assert.NilError(t, err)
		keys["EC "+c.Params().Name+" PKCS#8"] = der
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	assert.NilError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(ed)
	assert.NilError(t, err)
	keys["Ed25519 PKCS#8"] = der
	x, err := ecdh.X25519().GenerateKey(rand.Reader)
	assert.NilError(t, err)
	der, err = x509.MarshalPKCS8PrivateKey(x)
	assert.NilError(t, err)
	keys["X25519 PKCS#8"] = der
	keys["encrypted PKCS#8"] = encryptedPKCS8()
	keys["PKCS#12"] = pkcs12Like()
	return keys
}

// derSequence is a DER SEQUENCE of parts.
func derSequence(parts ...[]byte) []byte {
	body := []byte{}
	for _, p := range parts {
		body = append(body, p...)
	}
	return append(derLength(0x30, len(body)), body...)
}

func derLength(tag byte, n int) []byte {
	switch {
	case n < 0x80:
		return []byte{tag, byte(n)}
	case n < 0x100:
		return []byte{tag, 0x81, byte(n)}
	}
	return []byte{tag, 0x82, byte(n >> 8), byte(n)}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return b
}

// encryptedPKCS8 is an EncryptedPrivateKeyInfo as openssl writes one: PBES2, then the encrypted key.
func encryptedPKCS8() []byte {
	pbes2 := []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d}
	params := derSequence(derSequence([]byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0c}, derSequence(append([]byte{0x04, 0x08}, randomBytes(8)...), []byte{0x02, 0x02, 0x08, 0x00})))
	enc := append(derLength(0x04, 1232), randomBytes(1232)...)
	return derSequence(derSequence(pbes2, params), enc)
}

// pkcs12Like is a PFX's outer shape: version 3, then its content, of random bytes.
func pkcs12Like() []byte {
	data := []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01}
	return derSequence([]byte{0x02, 0x01, 0x03}, derSequence(data, append(derLength(0x04, 900), randomBytes(900)...)))
}

// opensshKey is an unencrypted OpenSSH private key's body, as ssh-keygen writes one.
func opensshKey(t *testing.T) []byte {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	assert.NilError(t, err)
	str := func(b []byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...) }
	pubBlob := append(str([]byte("ssh-ed25519")), str(pub)...)
	check := randomBytes(4)
	private := append(append(check, check...), pubBlob...)
	private = append(private, str(priv)...)
	private = append(private, str([]byte("ada@host"))...)
	private = append(private, 1, 2, 3, 4, 5)
	out := []byte("openssh-key-v1\x00")
	out = append(out, str([]byte("none"))...)
	out = append(out, str([]byte("none"))...)
	out = append(out, str(nil)...)
	out = binary.BigEndian.AppendUint32(out, 1)
	out = append(out, str(pubBlob)...)
	return append(out, str(private)...)
}

// wrap cuts s into lines of n characters joined by sep.
func wrap(s string, n int, sep string) string {
	var lines []string
	for len(s) > n {
		lines = append(lines, s[:n])
		s = s[n:]
	}
	return strings.Join(append(lines, s), sep)
}

// derForms are the ways a headerless key is written: one line, wrapped as PEM wraps it (64, with
// \n; 76, with \r\n), inside a JSON document with its breaks escaped, a YAML block, after a label
// in prose, and an env file's line.
func derForms(b64 string) map[string]string {
	return map[string]string{
		"one line":           b64,
		"wrapped at 64":      "-- key --\n" + wrap(b64, 64, "\n") + "\n-- end --",
		"wrapped at 76 CRLF": wrap(b64, 76, "\r\n"),
		"in a JSON document": `{"type": "x", "private_key": "` + wrap(b64, 64, `\n`) + `\n", "client_email": "a@b.c"}`,
		"a YAML block":       "tls:\n  private: |\n    " + wrap(b64, 64, "\n    ") + "\n  port: 443",
		"after a label":      "Here it is:" + wrap(b64, 64, "\n") + "\nthanks",
		"in an env file":     "SIGNING=" + b64 + "\nOTHER=1",
	}
}

// keyPieces are the parts of a key's base64 that must not stand: its start, middle and end.
func keyPieces(b64 string) []string {
	trimmed := strings.TrimRight(b64, "=")
	m := len(trimmed) / 2
	return []string{trimmed[:20], trimmed[m : m+20], trimmed[len(trimmed)-16:]}
}

func derCorpus(t *testing.T) []shapeCase {
	t.Helper()
	var out []shapeCase
	keys := privateKeys(t)
	keys["OpenSSH Ed25519"] = opensshKey(t)
	for name, der := range keys {
		b64 := base64.StdEncoding.EncodeToString(der)
		for form, text := range derForms(b64) {
			out = append(out, shapeCase{name: name + ", " + form, text: text, pieces: keyPieces(b64)})
		}
	}
	return out
}

// stopwordCorpus is long random values that hold one of gitleaks' stopwords, under names only
// gitleaks' generic rule reads (no secret-named key), so its stopwords decide them: each is a value
// that rule finds but for the stopword (it starts with a letter or digit, as the rule's value does,
// and its entropy is above the rule's 3.5).
func stopwordCorpus(t *testing.T) []shapeCase {
	t.Helper()
	det, err := SecretDetector()
	assert.NilError(t, err)
	var stops []string
	for _, rule := range det.rules {
		for _, a := range rule.allow {
			for _, w := range a.stopwords {
				if len(w) >= 4 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
					stops = append(stops, w)
				}
			}
		}
	}
	assert.Assert(t, len(stops) > 100)
	r := mrand.New(mrand.NewSource(7))
	names := []string{"access_code", "ACCESS_CODE", "creds", "api_hash", "key_material", "token_value", "credential", "apiSignature"}
	var out []shapeCase
	for i := 0; len(out) < 240; i++ {
		n := 20 + r.Intn(45)
		alphabet := []string{base62, base62 + "+/", hexDigits}[i%3]
		v := randomText(r, alphabet, n)
		w := stops[r.Intn(len(stops))]
		if alphabet == base62 {
			w = strings.ToUpper(w[:1]) + w[1:] // as it stands in mixed case
		}
		at := 1 + r.Intn(len(v)-1)
		v = v[:at] + w + v[at:]
		if strings.ContainsAny(v[:1], "+/") || entropy(v) <= 3.5 {
			continue
		}
		name := names[i%len(names)]
		text := []string{name + ` = "` + v + `"`, name + ": " + v, name + "=" + v}[i%3]
		out = append(out, shapeCase{name: name + " with " + w, text: text, pieces: []string{v}})
	}
	return out
}

// heldCredential is a credential abcd holds, for the held corpus.
const heldCredential = "sk-ant-api03-Qx7Lm2Zp9Kr4Wt8Vn3Bj6Hc1Fd5Gs0YaPq"

// heldCorpus is the credential abcd holds in hex and cut into pieces: every piece must go.
func heldCorpus() []shapeCase {
	c := heldCredential
	h := hex.EncodeToString([]byte(c))
	body := strings.TrimPrefix(c, "sk-ant-api03-")
	cut := func(s string, n int) []string {
		var out []string
		for len(s) > n {
			out = append(out, s[:n])
			s = s[n:]
		}
		return append(out, s)
	}
	joined := func(parts []string, open, sep, close string) string {
		return open + strings.Join(parts, close+sep+open) + close
	}
	seven, five := cut(c, 7), cut(c, 5)
	return []shapeCase{
		{"hex", "dump: " + h, []string{h[:24], h[len(h)-24:]}},
		{"HEX", "dump: " + strings.ToUpper(h), []string{strings.ToUpper(h[:24])}},
		{"hex of its body", "x=" + hex.EncodeToString([]byte(body)), []string{hex.EncodeToString([]byte(body))[:24]}},
		{"hex over two lines", "h = (\"" + h[:len(h)/2] + "\"\n     \"" + h[len(h)/2:] + "\")", []string{h[:20], h[len(h)-20:]}},
		{"hex in a C array", `"` + strings.Join(cut(h, 16), "\"\n\"") + `"`, cut(h, 16)},
		{"over two lines", "key:\n" + c[:len(c)/2] + "\n" + c[len(c)/2:], []string{c[:len(c)/2], c[len(c)/2:]}},
		{"over lines, CRLF", strings.Join(cut(c, 9), "\r\n"), cut(c, 9)},
		{"strings joined with +", "k := " + joined(seven, `"`, " + ", `"`), seven},
		{"strings over lines with +", "k = (" + joined(seven, `"`, " +\n\t", `"`) + ")", seven},
		{"python's adjacent strings", "k = (" + joined(five, `'`, "\n     ", `'`) + ")", five},
		{"php's dot", "$k = " + joined(five, `'`, " . ", `'`) + ";", five},
		{"a list joined", `"".join([` + joined(five, `"`, ", ", `"`) + `])`, five},
		{"a shell continuation", "export K=" + strings.Join(seven, "\\\n") + "\n", seven},
		{"escaped breaks in JSON", `{"k": "` + strings.Join(seven, `\n`) + `"}`, seven},
		{"cut short", "it began " + c[:20] + "…", []string{c[:20]}},
		{"without its prefix", "body=" + body, []string{body[:20]}},
		{"base64 in a header", "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("api:"+c)), []string{base64.StdEncoding.EncodeToString([]byte("api:" + c))[8:32]}},
	}
}

// lookalikes are ordinary code, configuration and prose that look like the shapes: none is changed.
var lookalikes = []string{
	"PASSWORD_MIN_LENGTH=8", "token_count = 42", `const KEY = "name"`, "max_tokens: 4096", "MAX_TOKENS=4096", "primary_key: id",
	`sort_key = "created_at"`, "author: Jane Doe", "AUTHOR=jane.doe", "AUTH_PROVIDER=google", "auth_method: password",
	"secret_name: prod-db-credentials", "api_key_header: X-API-Key", "token_type: Bearer", "TOKEN_EXPIRY=3600", "KEY_LENGTH=32",
	"password_hash_algorithm: bcrypt", "AUTH_URL=https://auth.example.com/oauth/authorize", "JWT_SECRET=${JWT_SECRET}",
	"API_KEY=<your-api-key>", `token = request.headers.get("Authorization")`, `secret = os.environ["SECRET"]`,
	`password: "{{ vault_password }}"`, "apiKey: process.env.API_KEY", `Key: "Enter"`, "key: value", `"key": "user_settings.theme"`,
	"private_key_path: ~/.ssh/id_ed25519", "ssh_key: /home/bob/.ssh/id_rsa.pub", "tokenizer: cl100k_base", "auth: true",
	"AUTH_ENABLED=false", "SECRET_KEY_BASE=", "TOKEN=", "password_reset_timeout: 3600", "secret_version: 2024-01-15",
	"The API key: see the settings page.", "Set your token: it goes in the header.", "password: at least 8 characters",
	"Authorization: see RFC 6750", "The secret: nobody knows.", "Auth: OK", `if token == "" {`, "for key, value := range m {",
	`key := fmt.Sprintf("%s:%d", name, id)`, "let apiKey = getApiKey();", "self.secret = secret",
	"password = form.cleaned_data['password']", "func (s *Server) authToken() string {", "AuthToken: token,",
	"Password: cfg.Password,", `"token": token,`, `Authorization: "Bearer " + token,`, `apiKey := os.Getenv("API_KEY")`,
	"tokenSource := oauth2.StaticTokenSource(tok)", `hotkey: "cmd+shift+p"`, "| token | string | the session's token |",
	"**Password:** required", `SRCREV = "43fc912ef59a83054ea7f6706df4d53a7dea4d80"`, "ENCRYPTION_KEY=changeme",
	"API_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx", "DB_PASSWORD=********", "aws_secret_access_key = YOUR_SECRET_KEY_HERE",
	"GITHUB_TOKEN=$(gh auth token)", `"private_key_id": "<private-key-id>"`, "password_policy: strict", "OAUTH_CALLBACK=/auth/callback",
	"auth_header_name: Authorization", "secret_arn: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod", "cache_key: user:42:profile",
	"partitionKey: tenantId", "refresh_token_ttl: 30d", "TOKEN_URL=https://oauth2.googleapis.com/token", "KEYBOARD_LAYOUT=us",
	"monkey=banana42banana", "turkey: roasted-2024", "authenticationMethod: saml", "  - key: CPU_LIMIT\n    value: 2000m",
	"session_token = session.get_token()", "AUTH_SECRET_FILE=/run/secrets/auth", "client_secret: !vault |", "secretKeyRef:",
	"password_confirmation: password", "The token: 42 of them were used, at 3.5 bits each.", "apiKey: this.apiKey",
	"public_key = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"", "next_page_token: CAUQAA", "csrf-token=Mj2qykJO5rELyHge",
	"idempotency_key = uuid4()", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA is how a public key starts",
	"the build of MIIT-2024 passed", "Mozilla/5.0 (X11; Linux x86_64)", "MEASURE_TOKEN_LATENCY=true",
}

// The figures of each shape: caught of total, and the look-alikes kept.
func TestTheShapesAreCaughtAndTheLookAlikesKept(t *testing.T) {
	r := newTestRedactor(t, heldCredential)
	for _, shape := range []struct {
		name  string
		cases []shapeCase
	}{
		{"a secret-named key's value", assignmentCorpus()},
		{"a headerless base64 private key", derCorpus(t)},
		{"a long random value holding a stopword", stopwordCorpus(t)},
		{"a credential abcd holds, in hex or in pieces", heldCorpus()},
	} {
		redacted, refused, missed := score(t, r, shape.cases)
		t.Logf("%s: %d of %d caught (%d redacted, %d refused by the rescan)", shape.name, redacted+refused, len(shape.cases), redacted, refused)
		assert.Check(t, is.Len(missed, 0), "%s: missed %d:\n%s", shape.name, len(missed), strings.Join(missed, "\n"))
	}
	kept := 0
	for _, text := range lookalikes {
		counts := Counts{}
		if out := r.Text(text, counts); assert.Check(t, is.Equal(out, text), "%v", counts) {
			kept++
		}
	}
	t.Logf("look-alikes: %d of %d kept as they are", kept, len(lookalikes))
}

// A public key, a certificate and base64 that is not DER are no private key.
func TestPublicKeysAndCertificatesAreNoPrivateKey(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	assert.NilError(t, err)
	spki, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	assert.NilError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"}, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1e9, 0)}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	assert.NilError(t, err)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	assert.NilError(t, err)
	ecPub, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	assert.NilError(t, err)
	r := mrand.New(mrand.NewSource(5))
	for name, der := range map[string][]byte{
		"RSA SPKI": spki, "RSA PKCS#1 public": x509.MarshalPKCS1PublicKey(&k.PublicKey), "certificate": cert, "EC SPKI": ecPub,
		"random after a SEQUENCE": append([]byte{0x30, 0x82, 0x04, 0xa4}, []byte(randomText(r, base62, 300))...),
	} {
		b64 := base64.StdEncoding.EncodeToString(der)
		for form, text := range derForms(b64) {
			assert.Check(t, is.Len(derKeys(text), 0), "%s, %s", name, form)
		}
	}
	for i := 0; i < 500; i++ {
		text := "M" + randomText(r, base62+"+/", 200)
		assert.Check(t, is.Len(derKeys(text), 0), text)
	}
}

// A key's own length says where it ends: what follows it on the line, or on the next, stays.
func TestADERKeyEndsWhereItsLengthSays(t *testing.T) {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	assert.NilError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(ed)
	assert.NilError(t, err)
	b64 := base64.StdEncoding.EncodeToString(der)
	text := "key " + b64 + "\nAnd then more words"
	fs := derKeys(text)
	assert.Assert(t, is.Len(fs, 1))
	assert.Check(t, is.Equal(text[fs[0].Start:fs[0].End], b64))
	// Cut short, the key takes what there is of it.
	fs = derKeys("key " + b64[:40] + " and so on")
	assert.Assert(t, is.Len(fs, 1))
	assert.Check(t, is.Equal(fs[0].End-fs[0].Start, 40))
}

// The rescan names each shape when redaction left it: a capture that keeps one is refused.
func TestTheRescanNamesEachShape(t *testing.T) {
	r := newTestRedactor(t, heldCredential)
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	assert.NilError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(ed)
	assert.NilError(t, err)
	for text, want := range map[string]string{
		"TWILIO_AUTH_TOKEN=0a1b0a1b0a1b0a1b0a1b0a1b0a1b0a1b":                                         AssignmentRule,
		`{"private_key_id": "` + strings.Repeat("3f", 20) + `"}`:                                     AssignmentRule,
		"key:\n" + wrap(base64.StdEncoding.EncodeToString(der), 20, "\n"):                            DERKeyRule,
		`creds = "Q7xZk2LmArchP9rT4vWn8Bc3Yd6Hf1Js"`:                                                 "generic-api-key",
		hex.EncodeToString([]byte(heldCredential)):                                                   CredentialRule,
		`k := "` + strings.Join([]string{"sk-ant-", "api03-Q", "x7Lm2Zp", "9Kr4Wt8"}, `" + "`) + `"`: CredentialRule,
	} {
		got := r.Survivors(text)
		assert.Check(t, contains(got, want), "%q: %v", text, got)
	}
}

// gitleaks' stopwords still let what they were made for be: names and words, and the whole values
// they list.
func TestStopwordsStillLetWordsBe(t *testing.T) {
	stops := []string{"arch", "snapshot", "jetbrains", "6fe4476ee5a1832882e326b506d14126"}
	for _, v := range []string{"rc0.15.0_20231217_1420-SNAPSHOT", "jetbrains.mps.v8_elimination", "6fe4476ee5a1832882e326b506d14126", "archive_2024_v2"} {
		assert.Check(t, stopped(v, stops), v)
	}
	for _, v := range []string{"Q7xZk2LmArchP9rT4vWn8Bc3Yd6Hf1Js", "9f3a0c7e2b8d4f16archa5e9c0d3b7f2e184"} {
		assert.Check(t, !stopped(v, stops), v)
	}
	assert.Check(t, !stopped("no stopword here", stops))
}

func FuzzAssignments(f *testing.F) {
	for _, c := range assignmentCorpus()[:40] {
		f.Add(c.text)
	}
	for _, l := range lookalikes {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lower := asciiLower(s)
		for _, fd := range assignments(s, lower) {
			if fd.Start < 0 || fd.End > len(s) || fd.Start >= fd.End {
				t.Fatalf("a finding outside the text: %+v in %q", fd, s)
			}
			if !secretValue(s[fd.Start:fd.End]) {
				t.Fatalf("a finding that is no value: %q", s[fd.Start:fd.End])
			}
		}
	})
}

func FuzzDERKeys(f *testing.F) {
	f.Add("MIIEpAIBAAKCAQEA")
	f.Add("key:\nMC4CAQAwBQYDK2VwBCIEI" + strings.Repeat("A", 40))
	f.Add(opensshMagic + "AAAABG5vbmUAAAAEbm9uZQ")
	f.Fuzz(func(t *testing.T, s string) {
		last := 0
		for _, fd := range derKeys(s) {
			if fd.Start < last || fd.End > len(s) || fd.Start >= fd.End {
				t.Fatalf("findings out of order or outside the text: %+v in %q", fd, s)
			}
			last = fd.End
		}
	})
}

// The corpus's texts are JSON-safe, as a transcript carries them: each survives a round through
// the JSON redaction too.
func TestTheShapesAreCaughtInsideATranscript(t *testing.T) {
	r := newTestRedactor(t, heldCredential)
	for _, c := range append(assignmentCorpus()[:60], heldCorpus()...) {
		out, err := r.JSON(line(c.text), Counts{})
		assert.NilError(t, err)
		survivors, err := r.SurvivorsJSON(out)
		assert.NilError(t, err)
		if len(survivors) > 0 {
			continue // refused: nothing kept
		}
		for _, p := range c.pieces {
			j, _ := json.Marshal(p)
			assert.Check(t, !strings.Contains(string(out), string(j[1:len(j)-1])), "%s: %s", c.name, out)
		}
	}
}
