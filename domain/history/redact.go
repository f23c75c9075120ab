package history

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/secret"
)

// Redaction markers: what stands where something was taken out.
const (
	markPrefix = "[REDACTED:"
	HomeMark   = "~"
	// CredentialRule and HomeRule name the two redactions that are not the detector's rules.
	CredentialRule = "abcd-credential"
	HomeRule       = "home-path"
)

// Counts are how many times each rule redacted something.
type Counts map[string]int

func (c Counts) add(rule string, n int) {
	if n > 0 {
		c[rule] += n
	}
}

// Total is every redaction.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Redactor takes secrets, the credentials abcd holds and the person's home path out of text.
type Redactor struct {
	det *Detector
	// held finds the credentials abcd holds with the one scrubber (domain/secret): in every spelling
	// it knows, whole, cut short or cut into pieces.
	held *secret.Scrubber
	home string
	// seen remembers each text already redacted (a transcript repeats its context, its tools and
	// their definitions many times), and clean each result whose last pass found nothing: the rescan
	// need not read it again.
	seen  map[string]redacted
	clean map[string]bool
}

type redacted struct {
	out    string
	counts Counts
}

// MinCredentialBytes is the shortest credential looked for: anything shorter would redact ordinary
// words.
const MinCredentialBytes = 8

// NewRedactor is a redactor over the detector's rules, the credentials abcd holds (each looked for in
// every spelling domain/secret's scrubber knows: as it is and without its prefix, base64 in both
// alphabets and at every alignment, URL-escaped, hex and JSON-escaped; whole, a run of
// secret.Window bytes of one, or cut into pieces) and the home folder (written as ~). A credential
// shorter than MinCredentialBytes is left out.
func NewRedactor(det *Detector, credentials []string, home string) *Redactor {
	r := &Redactor{det: det, home: strings.TrimRight(home, "/"), seen: map[string]redacted{}, clean: map[string]bool{}}
	if r.home == "" || r.home == "/" || !strings.HasPrefix(r.home, "/") {
		r.home = ""
	}
	var held []string
	for _, c := range credentials {
		if c = strings.TrimSpace(c); len(c) >= MinCredentialBytes {
			held = append(held, c)
		}
	}
	r.held = secret.NewScrubber(held...)
	return r
}

// maxRounds bounds how often a text is redacted again: a redaction can bring a new match to light
// (a secret that was inside another's context).
const maxRounds = 4

// Text redacts one text: nested escaped text, each view of it, until a pass finds nothing more.
func (r *Redactor) Text(s string, counts Counts) string {
	if done, ok := r.seen[s]; ok {
		for k, v := range done.counts {
			counts.add(k, v)
		}
		return done.out
	}
	in, mine := s, Counts{}
	for round := 0; round < maxRounds; round++ {
		next := r.once(s, mine, 0)
		if next == s {
			// This pass read every view of the text and took nothing out.
			r.clean[s] = true
			break
		}
		s = next
	}
	if len(in) <= 1<<20 {
		r.seen[in] = redacted{out: s, counts: mine}
	}
	for k, v := range mine {
		counts.add(k, v)
	}
	return s
}

func (r *Redactor) once(s string, counts Counts, depth int) string {
	// Credentials first, in every spelling, whole or in pieces.
	if spans := r.held.SplitSpans(s); len(spans) > 0 {
		fs := make([]Finding, len(spans))
		for i, sp := range spans {
			fs[i] = Finding{Rule: CredentialRule, Start: sp[0], End: sp[1]}
		}
		s = r.replace(s, fs, counts)
	}
	// Text that is itself an escaped string (a JSON document inside a tool result, a shell-quoted
	// line): redact what it stands for, and escape the result again.
	if depth < 3 {
		if inner, ok := unescapeJSON(s); ok {
			red := r.once(inner, counts, depth+1)
			if red != inner {
				s = escapeJSON(red)
			}
		}
	}
	s = r.replace(s, r.det.Find(s), counts)
	// A token ended by a URL's or a list's punctuation (?key=TOKEN&x=1): the same text with that
	// punctuation as spaces, which every rule takes as an end; the places are the same.
	if delimited := delimit(s); delimited != s {
		s = r.replace(s, r.det.Find(delimited), counts)
	}
	// Views whose places differ from the text's (escapes undone loosely, URL escapes decoded): what
	// they find is taken out of the text wherever it stands, in each form it could be written.
	for _, view := range []string{looseUnescape(s), urlUnescape(s)} {
		if view != "" && view != s {
			s = r.replaceSecrets(s, delimit(view), counts)
		}
	}
	// A token wrapped over lines (or spaced out): looked for with the spaces taken out, for rules
	// whose tokens carry their own prefix; the whole wrapped span is taken out.
	if joined, at := squeeze(s); len(joined) < len(s) {
		if fs := r.det.find(joined, true); len(fs) > 0 {
			spans := make([]Finding, 0, len(fs))
			for _, f := range fs {
				spans = append(spans, Finding{Rule: f.Rule, Start: at[f.Start], End: at[f.End-1] + 1})
			}
			s = r.replace(s, spans, counts)
		}
	}
	// A secret inside base64: the whole run goes.
	s = r.replaceEncoded(s, counts)
	if r.home != "" {
		if n := countHome(s, r.home); n > 0 {
			s = replaceHome(s, r.home)
			counts.add(HomeRule, n)
		}
	}
	return s
}

// replace takes findings out of s, each secret replaced by its marker; overlapping findings merge.
func (r *Redactor) replace(s string, fs []Finding, counts Counts) string {
	if len(fs) == 0 {
		return s
	}
	sort.Slice(fs, func(i, j int) bool {
		return fs[i].Start < fs[j].Start || fs[i].Start == fs[j].Start && fs[i].End > fs[j].End
	})
	var b strings.Builder
	at := 0
	for _, f := range fs {
		if f.End <= at {
			continue // inside one already taken out
		}
		start := max(f.Start, at)
		if strings.Contains(s[start:f.End], markPrefix) {
			continue // a marker, not a secret
		}
		b.WriteString(s[at:start])
		b.WriteString(markPrefix + f.Rule + "]")
		counts.add(f.Rule, 1)
		at = f.End
	}
	b.WriteString(s[at:])
	return b.String()
}

// replaceSecrets takes out of s every secret the detector finds in view, in each form s could carry
// it in: as it is, JSON-escaped, URL-escaped.
func (r *Redactor) replaceSecrets(s, view string, counts Counts) string {
	for _, f := range r.det.Find(view) {
		secret := view[f.Start:f.End]
		if strings.Contains(secret, markPrefix) || len(secret) < 4 {
			continue
		}
		for _, form := range []string{secret, escapeJSON(secret), url.QueryEscape(secret), url.PathEscape(secret)} {
			if n := strings.Count(s, form); n > 0 {
				s = strings.ReplaceAll(s, form, markPrefix+f.Rule+"]")
				counts.add(f.Rule, n)
			}
		}
	}
	return s
}

// delimit is s with the punctuation that ends a token in a URL (& ? #) as spaces, byte for byte (so
// the places in it are the places in s, whatever s holds that is not UTF-8).
func delimit(s string) string {
	if !strings.ContainsAny(s, "&?#") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '&' || c == '?' || c == '#' {
			b[i] = ' '
		}
	}
	return string(b)
}

// looseUnescape undoes the escapes of text that holds escaped text but is not itself the body of a
// JSON string (a JSON document inside a string): \" \\ \n \r \t \/ read as what they stand for;
// "" when there are none.
func looseUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return ""
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n", `\r`, "\r", `\t`, "\t", `\/`, `/`).Replace(s)
}

// urlUnescape decodes URL escapes (%XX, +), "" when there are none or they are not escapes.
func urlUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return ""
	}
	u, err := url.QueryUnescape(s)
	if err != nil {
		return ""
	}
	return u
}

// replaceEncoded takes out each base64 run that decodes to text holding a secret or a credential.
func (r *Redactor) replaceEncoded(s string, counts Counts) string {
	runs := base64Runs(s)
	if len(runs) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, run := range runs {
		decoded, ok := decodeBase64(s[run[0]:run[1]])
		if !ok {
			continue
		}
		rule := ""
		if fs := r.det.Find(decoded); len(fs) > 0 {
			rule = fs[0].Rule
		} else if r.held.Carries(decoded) {
			rule = CredentialRule
		}
		if rule == "" {
			continue
		}
		b.WriteString(s[at:run[0]])
		b.WriteString(markPrefix + rule + "]")
		counts.add(rule, 1)
		at = run[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// Survivors looks at a redacted text once more, through every view abcd knows (as it is; each
// escaped layer undone; spaces and line breaks taken out; base64 runs and URL escapes decoded), and
// names what any finds: a secret's rule, the credential, or the home path. Markers are not findings.
// Anything named means the text is not kept.
func (r *Redactor) Survivors(s string) []string {
	if r.clean[s] {
		// Redaction's last pass over this very text read it through the same views and found
		// nothing: the rescan does not read it twice.
		return nil
	}
	seen := map[string]bool{}
	var out []string
	note := func(rule string) {
		if !seen[rule] {
			seen[rule] = true
			out = append(out, rule)
		}
	}
	views := []string{s}
	for v, i := s, 0; i < 3; i++ {
		inner, ok := unescapeJSON(v)
		if !ok {
			break
		}
		views = append(views, inner)
		v = inner
	}
	if u := urlUnescape(s); u != "" && u != s {
		views = append(views, u, delimit(u))
	}
	if l := looseUnescape(s); l != "" && l != s {
		views = append(views, l, delimit(l))
	}
	if d := delimit(s); d != s {
		views = append(views, d)
	}
	for _, run := range base64Runs(s) {
		if d, ok := decodeBase64(s[run[0]:run[1]]); ok {
			views = append(views, d)
		}
	}
	for _, v := range views {
		for _, f := range r.det.Find(v) {
			if !strings.Contains(markedSpan(v, f), markPrefix) {
				note(f.Rule)
			}
		}
		if joined, _ := squeeze(v); len(joined) < len(v) {
			for _, f := range r.det.find(joined, true) {
				if !strings.Contains(markedSpan(joined, f), markPrefix) {
					note(f.Rule)
				}
			}
		}
		if r.held.Carries(v) {
			note(CredentialRule)
		}
		if r.home != "" && countHome(v, r.home) > 0 {
			note(HomeRule)
		}
	}
	sort.Strings(out)
	return out
}

// markedSpan is the finding's secret with a little around it, to tell a marker from a secret.
func markedSpan(s string, f Finding) string {
	return s[max(0, f.Start-len(markPrefix)-40):min(len(s), f.End+1)]
}

// unescapeJSON reads s as the body of a JSON string, when it holds escapes and is one.
func unescapeJSON(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return "", false
	}
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil || out == s {
		return "", false
	}
	return out, true
}

// escapeJSON is s as the body of a JSON string.
func escapeJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// squeeze takes out whitespace and escaped line breaks (\n, \r, \t written out), keeping where each
// kept byte stood.
func squeeze(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			continue
		}
		if c == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't') {
			i++
			continue
		}
		b.WriteByte(c)
		at = append(at, i)
	}
	return b.String(), at
}

// base64Runs are the runs of base64 characters long enough to hide a secret.
func base64Runs(s string) [][2]int {
	const least = 24
	var out [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isBase64Byte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= least {
			out = append(out, [2]int{start, i})
		}
		start = -1
	}
	return out
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

// decodeBase64 decodes a run in whichever alphabet reads it, when what it holds is mostly text.
func decodeBase64(s string) (string, bool) {
	trimmed := strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		d, err := enc.DecodeString(trimmed)
		if err != nil || len(d) < 12 || !utf8.Valid(d) {
			continue
		}
		printable := 0
		for _, r := range string(d) {
			if unicode.IsPrint(r) || r == '\n' || r == '\t' || r == '\r' {
				printable++
			}
		}
		if printable*10 >= utf8.RuneCount(d)*9 {
			return string(d), true
		}
	}
	return "", false
}

// countHome counts the home folder where it stands as a path: followed by a slash, a quote, a
// space or the end, so /home/ada is not found in /home/adam.
func countHome(s, home string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], home)
		if j < 0 {
			return n
		}
		end := i + j + len(home)
		if end == len(s) || !isPathByte(s[end]) {
			n++
		}
		i = end
	}
}

func replaceHome(s, home string) string {
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], home)
		if j < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		end := i + j + len(home)
		b.WriteString(s[i : i+j])
		if end == len(s) || !isPathByte(s[end]) {
			b.WriteString(HomeMark)
		} else {
			b.WriteString(home)
		}
		i = end
	}
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// JSON redacts every string of a JSON document (keys too), leaving everything else byte for byte;
// data is one JSON value, or JSON lines (each line one value). A document that is not JSON is an
// error, never passed on unread.
func (r *Redactor) JSON(data []byte, counts Counts) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(data))
	for i := 0; i < len(data); {
		c := data[i]
		if c != '"' {
			out.WriteByte(c)
			i++
			continue
		}
		end, escaped, err := stringEnd(data, i)
		if err != nil {
			return nil, err
		}
		raw := data[i : end+1]
		var s string
		if escaped {
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("a string at byte %d is not JSON: %w", i, err)
			}
		} else {
			s = string(raw[1 : len(raw)-1])
		}
		red := r.Text(s, counts)
		if red == s {
			out.Write(raw)
		} else {
			out.WriteByte('"')
			out.WriteString(escapeJSON(red))
			out.WriteByte('"')
		}
		i = end + 1
	}
	return out.Bytes(), nil
}

// SurvivorsJSON is Survivors over every string of a JSON document or JSON lines.
func (r *Redactor) SurvivorsJSON(data []byte) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for i := 0; i < len(data); {
		if data[i] != '"' {
			i++
			continue
		}
		end, escaped, err := stringEnd(data, i)
		if err != nil {
			return nil, err
		}
		s := string(data[i+1 : end])
		if escaped {
			if err := json.Unmarshal(data[i:end+1], &s); err != nil {
				return nil, fmt.Errorf("a string at byte %d is not JSON: %w", i, err)
			}
		}
		for _, rule := range r.Survivors(s) {
			if !seen[rule] {
				seen[rule] = true
				out = append(out, rule)
			}
		}
		i = end + 1
	}
	sort.Strings(out)
	return out, nil
}

// stringEnd finds the closing quote of the string that opens at data[i].
func stringEnd(data []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped, nil
		case '\n':
			return 0, false, fmt.Errorf("a string at byte %d runs past its line", i)
		}
	}
	return 0, false, fmt.Errorf("a string at byte %d is not closed", i)
}
