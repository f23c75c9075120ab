package history

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The secret detector's rule set is gitleaks' (MIT licence, gitleaks/LICENSE beside this file), as
// data: gitleaks/rules.json, written from gitleaks' Go module by tools/secrets/extract, and held to
// gitleaks' own true and false positives by this package's tests. The detector reads the rules as
// gitleaks' does: a rule runs only when one of its keywords is in the text (without case); its regex
// finds the match; the secret is the rule's secret group (else the first group that matched, else the
// whole match); a secret whose Shannon entropy is not above the rule's is no finding; and a finding an
// allowlist (gitleaks' global one, or the rule's) allows is no finding.

//go:embed gitleaks/rules.json
var gitleaksJSON []byte

// abcdJSON are abcd's own rules beside gitleaks': what its set does not look for (a password written
// into a connection string).
//
//go:embed abcd/rules.json
var abcdJSON []byte

type ruleFile struct {
	Source     string          `json:"source"`
	License    string          `json:"license"`
	Allowlists []allowlistData `json:"allowlists"`
	Rules      []ruleData      `json:"rules"`
}

type allowlistData struct {
	Description string   `json:"description"`
	Condition   string   `json:"condition"`
	RegexTarget string   `json:"regex_target"`
	Regexes     []string `json:"regexes"`
	StopWords   []string `json:"stopwords"`
}

type ruleData struct {
	ID          string          `json:"id"`
	Description string          `json:"description"`
	Regex       string          `json:"regex"`
	SecretGroup int             `json:"secret_group"`
	Entropy     float64         `json:"entropy"`
	Keywords    []string        `json:"keywords"`
	Path        string          `json:"path"`
	Allowlists  []allowlistData `json:"allowlists"`
}

type secretRule struct {
	id       string
	re       *regexp.Regexp
	group    int
	entropy  float64
	keywords []string
	allow    []allowlist
	// prefixed rules find tokens that carry their own prefix (AKIA..., ghp_..., sk-ant-...), so they
	// can be looked for in text whose line breaks and spaces are taken out (a wrapped secret).
	prefixed bool
	// path is the file name pattern gitleaks scopes the rule to. A transcript has no file names, so
	// it is not applied: the rule looks at every text, which errs towards redacting.
	path string
}

type allowlist struct {
	and       bool
	target    string // "", "match" or "line"
	regexes   []*regexp.Regexp
	stopwords []string
}

// Detector finds secrets in text with gitleaks' rules.
type Detector struct {
	rules  []secretRule
	global []allowlist
	Source string
	// byPair finds the keywords a text holds in one pass: each keyword (lower case, at least two
	// bytes) under its first two bytes, with the rules that name it.
	byPair map[[2]byte][]keywordRules
	// pairs holds a bit for each pair of bytes byPair has, so the scan looks up the map only where a
	// keyword may begin (a map lookup at every byte is most of a long transcript's redaction).
	pairs [1 << 16 / 64]uint64
	// always are the rules with no keyword: they run on every text.
	always []int
	// coded is true for the bundled detector: abcd's rules written as code run beside the data's (a
	// secret-named key's value, a private key as base64 DER).
	coded bool
}

type keywordRules struct {
	keyword string
	rules   []int
}

// Finding is one secret in a text: the rule that found it and where the secret stands.
type Finding struct {
	Rule       string
	Start, End int
}

var detector = sync.OnceValues(func() (*Detector, error) { return NewDetector(gitleaksJSON, abcdJSON) })

// SecretDetector is the detector over the bundled rule set, built once.
func SecretDetector() (*Detector, error) { return detector() }

// NewDetector builds a detector from rule files in the shape tools/secrets/extract writes; the first
// file's global allowlist is the detector's.
func NewDetector(files ...[]byte) (*Detector, error) {
	d := &Detector{}
	for i, data := range files {
		var f ruleFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("the secret rules: %w", err)
		}
		if i == 0 {
			d.Source = f.Source
			var err error
			if d.global, err = compileLists(f.Allowlists); err != nil {
				return nil, fmt.Errorf("the secret rules' global allowlist: %w", err)
			}
		}
		if err := d.add(f.Rules); err != nil {
			return nil, err
		}
	}
	if len(d.rules) == 0 {
		return nil, fmt.Errorf("the secret rules hold no rule")
	}
	d.index()
	d.coded = true
	return d, nil
}

// index builds byPair and always.
func (d *Detector) index() {
	d.byPair = map[[2]byte][]keywordRules{}
	for i, r := range d.rules {
		if len(r.keywords) == 0 {
			d.always = append(d.always, i)
			continue
		}
		for _, k := range r.keywords {
			if len(k) < 2 {
				d.always = append(d.always, i)
				continue
			}
			pair := [2]byte{k[0], k[1]}
			bit := uint16(k[0])<<8 | uint16(k[1])
			d.pairs[bit/64] |= 1 << (bit % 64)
			list := d.byPair[pair]
			found := false
			for j := range list {
				if list[j].keyword == k {
					list[j].rules = append(list[j].rules, i)
					found = true
				}
			}
			if !found {
				list = append(list, keywordRules{keyword: k, rules: []int{i}})
			}
			d.byPair[pair] = list
		}
	}
}

// candidates are the rules whose keywords lower (a text in lower case) holds, found in one pass.
func (d *Detector) candidates(lower string) []bool {
	run := make([]bool, len(d.rules))
	for _, i := range d.always {
		run[i] = true
	}
	for i := 0; i+1 < len(lower); i++ {
		if bit := uint16(lower[i])<<8 | uint16(lower[i+1]); d.pairs[bit/64]&(1<<(bit%64)) == 0 {
			continue
		}
		list, ok := d.byPair[[2]byte{lower[i], lower[i+1]}]
		if !ok {
			continue
		}
		for _, kr := range list {
			if strings.HasPrefix(lower[i:], kr.keyword) {
				for _, r := range kr.rules {
					run[r] = true
				}
			}
		}
	}
	return run
}

func (d *Detector) add(rules []ruleData) error {
	for _, r := range rules {
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return fmt.Errorf("secret rule %s: %w", r.ID, err)
		}
		sr := secretRule{id: r.ID, re: re, group: r.SecretGroup, entropy: r.Entropy, path: r.Path}
		for _, k := range r.Keywords {
			if k = strings.ToLower(k); !slices.Contains(sr.keywords, k) {
				sr.keywords = append(sr.keywords, k)
			}
		}
		if sr.allow, err = compileLists(r.Allowlists); err != nil {
			return fmt.Errorf("secret rule %s: %w", r.ID, err)
		}
		sr.prefixed = r.ID != "generic-api-key" && hasTokenPrefix(r.Keywords)
		d.rules = append(d.rules, sr)
	}
	return nil
}

// hasTokenPrefix reports a rule whose keywords are the token's own prefix (at least four characters
// of which one is not a letter, or an all-capital prefix like AKIA), so what it finds is a token
// that names itself, whatever is around it.
func hasTokenPrefix(keywords []string) bool {
	if len(keywords) == 0 {
		return false
	}
	for _, k := range keywords {
		if len(k) < 4 {
			return false
		}
		special := strings.ContainsAny(k, "_-0123456789") || k == strings.ToUpper(k)
		if !special {
			return false
		}
	}
	return true
}

func compileLists(in []allowlistData) ([]allowlist, error) {
	var out []allowlist
	for _, a := range in {
		l := allowlist{and: a.Condition == "AND", target: a.RegexTarget}
		for _, s := range a.Regexes {
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, err
			}
			l.regexes = append(l.regexes, re)
		}
		for _, w := range a.StopWords {
			l.stopwords = append(l.stopwords, strings.ToLower(w))
		}
		out = append(out, l)
	}
	return out, nil
}

// Find returns every secret in text, in the order of the rules, then of their place.
func (d *Detector) Find(text string) []Finding {
	return d.find(text, false)
}

func (d *Detector) find(text string, prefixedOnly bool) []Finding {
	if text == "" {
		return nil
	}
	run := d.candidates(strings.ToLower(text))
	var out []Finding
	for i := range d.rules {
		r := &d.rules[i]
		if prefixedOnly && !r.prefixed || !run[i] {
			continue
		}
		// A match that is not a finding (allowed, too little entropy) is not skipped whole: it may
		// have swallowed the start of the real secret (a name = "value" in which the name matched as
		// a value), so the search goes on from where its secret began.
		tries := 0
		for at := 0; at < len(text) && tries < maxTries; tries++ {
			m := r.re.FindStringSubmatchIndex(text[at:])
			if m == nil {
				break
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += at
				}
			}
			f, ok := d.judge(r, text, m)
			if ok {
				out = append(out, f)
				at = max(m[1], at+1)
				continue
			}
			// Looked past from where its secret began: a name matched as a value holds the start of
			// the real one; what came before the secret is context already seen.
			if f.Start > m[0] {
				at = f.Start
			} else {
				_, size := utf8.DecodeRuneInString(text[m[0]:])
				at = m[0] + max(size, 1)
			}
		}
	}
	if d.coded && !prefixedOnly {
		out = append(out, assignments(text, asciiLower(text))...)
		out = append(out, derKeys(text)...)
	}
	return out
}

// asciiLower is s with ASCII capitals in lower case and every other byte as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// maxTries bounds the matches one rule looks at in one text.
const maxTries = 4096

// judge reads one match of a rule as gitleaks does: its secret, its entropy, the allowlists. The
// finding's span is the secret's, also when it is not a finding.
func (d *Detector) judge(r *secretRule, text string, m []int) (Finding, bool) {
	{
		{
			start, end := m[0], m[1]
			// gitleaks trims line breaks around a match before reading its secret.
			for start < end && text[start] == '\n' {
				start++
			}
			for end > start && text[end-1] == '\n' {
				end--
			}
			ss, se := start, end
			groups := len(m)/2 - 1
			switch {
			case r.group > 0 && r.group <= groups:
				if m[2*r.group] < 0 {
					return Finding{}, false
				}
				ss, se = m[2*r.group], m[2*r.group+1]
			case r.group == 0 && groups > 0:
				for g := 1; g <= groups; g++ {
					if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
						ss, se = m[2*g], m[2*g+1]
						break
					}
				}
			}
			if ss < start {
				ss = start
			}
			if se > end {
				se = end
			}
			if se <= ss {
				return Finding{}, false
			}
			secret := text[ss:se]
			if r.entropy != 0 && entropy(secret) <= r.entropy {
				return Finding{Start: ss, End: se}, false
			}
			f := found{secret: secret, match: text[start:end], at: ss - start, line: lineOf(text, start, end)}
			if f.allowed(d.global) || f.allowed(r.allow) {
				return Finding{Start: ss, End: se}, false
			}
			return Finding{Rule: r.id, Start: ss, End: se}, true
		}
	}
}

// found is a match of a rule being judged: its secret, the whole match, where the secret stands in
// it, and the line it is on.
type found struct {
	secret, match string
	at            int
	line          string
}

// allowed reports whether any allowlist lets the finding be. gitleaks' stopwords, and its regexes
// that look at the whole match, are for names and words (my_application_key, keyboard=): where what
// they find stands inside the secret, they let it be only when what is left of the secret without it
// is not random (a base64 key with "arch" or "keyboard" in it is still a secret).
func (f found) allowed(lists []allowlist) bool {
	for _, a := range lists {
		var checks []bool
		if len(a.regexes) > 0 {
			ok := false
			for _, re := range a.regexes {
				if f.regexAllows(re, a.target) {
					ok = true
					break
				}
			}
			checks = append(checks, ok)
		}
		if len(a.stopwords) > 0 {
			checks = append(checks, stopped(f.secret, a.stopwords))
		}
		if len(checks) == 0 {
			continue
		}
		if a.and {
			if !slices.Contains(checks, false) {
				return true
			}
		} else if slices.Contains(checks, true) {
			return true
		}
	}
	return false
}

// regexAllows reports whether an allowlist's regex lets the finding be: it matches its target, and,
// for the whole match, somewhere outside the secret or leaving no random stretch in it.
func (f found) regexAllows(re *regexp.Regexp, target string) bool {
	switch target {
	case "line":
		return re.MatchString(f.line)
	case "match": // below
	default:
		return re.MatchString(f.secret)
	}
	spans := re.FindAllStringIndex(f.match, -1)
	if len(spans) == 0 {
		return false
	}
	cut := make([]bool, len(f.secret))
	for _, sp := range spans {
		if sp[0] < f.at || sp[1] > f.at+len(f.secret) || sp[0] == sp[1] {
			return true // the name's, or the text's around the secret
		}
		for i := sp[0]; i < sp[1]; i++ {
			cut[i-f.at] = true
		}
	}
	return !randomStretch(without(f.secret, cut))
}

// stopped reports whether a stopword lets a secret be: one stands in it (without case), and what is
// left with every stopword that stands in it taken out holds no random stretch.
func stopped(secret string, stopwords []string) bool {
	lower := asciiLower(secret)
	var cut []bool
	for _, w := range stopwords {
		for from := 0; ; {
			k := strings.Index(lower[from:], w)
			if k < 0 {
				break
			}
			if cut == nil {
				cut = make([]bool, len(secret))
			}
			for i := from + k; i < from+k+len(w); i++ {
				cut[i] = true
			}
			from += k + 1
		}
	}
	return cut != nil && !randomStretch(without(secret, cut))
}

// without is s without the bytes cut marks.
func without(s string, cut []bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !cut[i] {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// randomStretch reports whether s holds a part (between separators) of at least 16 characters that
// mixes letters and digits with the entropy of a random value, and is no name in code of long words
// (NewDecapsulationKey1024; a random value can pass for a name of short ones).
func randomStretch(s string) bool {
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune("._-: \t\n,;", r) }) {
		if len(part) >= 16 && strings.ContainsAny(part, "0123456789") && strings.IndexFunc(part, unicode.IsLetter) >= 0 && entropy(part) >= 3.0 && !longWords(part) {
			return true
		}
	}
	return false
}

// longWords reports a name in code whose lower-case runs are three letters long on average.
func longWords(v string) bool {
	runs, _, lower := lowerRuns(v)
	return identifier(v) && lower >= 3*runs
}

func lineOf(text string, start, end int) string {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	le := strings.IndexByte(text[end:], '\n')
	if le < 0 {
		return text[ls:]
	}
	return text[ls : end+le]
}

// entropy is the Shannon entropy of s over its characters, as gitleaks computes it.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1.0 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
