// Package rules holds a repository's conventions as named domains of short rules, the layers they come
// from (abcd's bundled domains, the machine's file, the repository's file) with the provenance of each
// rule, the recall of a domain by the words of a prompt (matched on word boundaries, never as
// substrings), and the budget that bounds what one prompt is handed. It is pure: no I/O, no clock.
package rules

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// Bounds on one rules file and on what the layers make together. A file past them is refused naming
// the file and the bound, never read in part.
const (
	MaxFileBytes     = 256 << 10
	MaxDomains       = 512 // in one file, and in force over every layer
	MaxRulesInDomain = 64
	MaxWordsInDomain = 64 // recall words and aliases together
	MaxRuleBytes     = 1024
	MaxWordBytes     = 64
	MaxIDBytes       = 48
	// MaxNameBytes keeps a domain's name a short file name on every system.
	MaxNameBytes = 40
)

// File is a rules file: the bundled domains abcd embeds, $ABCD_HOME/rules.json, or a repository's
// .abcd/rules.json.
type File struct {
	// SchemaVersion is 1.
	SchemaVersion int `json:"schema_version"`
	// Inject false switches injection off: no prompt is handed rules (the verbs still show them). The
	// highest layer that sets it decides, and abcd says which file that is.
	Inject *bool `json:"inject,omitempty"`
	// Budget bounds what one prompt is handed.
	Budget *Budget `json:"budget,omitempty"`
	// Domains are defined by the first layer that names them; a later layer's entry of the same name
	// amends it.
	Domains []Domain `json:"domains,omitempty" jsonschema:"maxItems=512"`
}

// Budget is how much one prompt may be handed: bytes of injected text and a count of rules. A layer
// may set either; the highest layer that sets one decides it.
type Budget struct {
	Bytes int `json:"bytes,omitempty" jsonschema:"minimum=256,maximum=9000"`
	Rules int `json:"rules,omitempty" jsonschema:"minimum=1,maximum=64"`
}

// Limits of a budget, and the bundled default.
const (
	MinBudgetBytes     = 256
	MaxBudgetBytes     = 9000 // under the 10,000 characters a harness takes as context from a hook
	DefaultBudgetBytes = 3000
	MaxBudgetRules     = 64
	DefaultBudgetRules = 10
)

// Domain is a named group of rules a prompt recalls by its words.
type Domain struct {
	// Name is the domain's one name: lower-case letters, digits and inner hyphens, so it can name a
	// file and be forced in with *NAME.
	Name string `json:"name" jsonschema:"pattern=^[a-z][a-z0-9]*(-[a-z0-9]+)*$,maxLength=40"`
	// Recall are the words and phrases that bring the domain in, matched whole on word boundaries
	// without case; a trailing * matches any word it begins ("migrat*").
	Recall []string `json:"recall,omitempty" jsonschema:"maxItems=64"`
	// Aliases are other names: each recalls the domain as a word does, and *ALIAS forces it in.
	Aliases []string `json:"aliases,omitempty" jsonschema:"maxItems=16"`
	// Dormant domains are never recalled by their words; only *NAME brings one in.
	Dormant *bool `json:"dormant,omitempty"`
	// Rules are added; an id the domain already has is replaced by this layer's text.
	Rules []Rule `json:"rules,omitempty" jsonschema:"maxItems=64"`
	// Drop removes rules a lower layer gave the domain, by id.
	Drop []string `json:"drop,omitempty" jsonschema:"maxItems=64"`

	// words and aliasWords are Recall and Aliases as check read them, so composing reads no word twice.
	words, aliasWords []word
}

// Rule is one short convention.
type Rule struct {
	// ID is stable within its domain: what a higher layer replaces or drops it by.
	ID   string `json:"id" jsonschema:"pattern=^[a-z][a-z0-9]*(-[a-z0-9]+)*$,maxLength=48"`
	Text string `json:"text" jsonschema:"minLength=1,maxLength=1024"`
	// Recall narrows the rule: when set, the rule comes with its domain only when one of these words
	// is in the prompt too (or the domain was forced in).
	Recall []string `json:"recall,omitempty" jsonschema:"maxItems=32"`

	words []word
}

// reserved are names a domain may not take: the words the rules command itself takes.
var reserved = []string{"match", "show", "hook", "help"}

// Decode reads a rules file strictly: one JSON object, no unknown or repeated key, nothing after it,
// schema_version 1, and every domain, rule and word within its bounds. file names it in every error.
func Decode(file string, data []byte) (File, error) {
	if len(data) > MaxFileBytes {
		return File{}, fmt.Errorf("%s: is %d bytes, over the %d a rules file may be", file, len(data), MaxFileBytes)
	}
	f, err := strictjson.DecodeFile(file, data, strictjson.Limits{MaxBytes: MaxFileBytes, MaxDepth: 16}, FileVersion, func(f *File) int { return f.SchemaVersion })
	if err != nil {
		return File{}, err
	}
	if err := f.check(); err != nil {
		return File{}, fmt.Errorf("%s: %w", file, err)
	}
	return f, nil
}

func (f File) check() error {
	if b := f.Budget; b != nil {
		if b.Bytes != 0 && (b.Bytes < MinBudgetBytes || b.Bytes > MaxBudgetBytes) {
			return fmt.Errorf("budget.bytes %d is outside %d to %d", b.Bytes, MinBudgetBytes, MaxBudgetBytes)
		}
		if b.Rules < 0 || b.Rules > MaxBudgetRules {
			return fmt.Errorf("budget.rules %d is outside 1 to %d", b.Rules, MaxBudgetRules)
		}
		if b.Bytes < 0 {
			return fmt.Errorf("budget.bytes %d is outside %d to %d", b.Bytes, MinBudgetBytes, MaxBudgetBytes)
		}
	}
	if len(f.Domains) > MaxDomains {
		return fmt.Errorf("declares %d domains, over the %d a file may", len(f.Domains), MaxDomains)
	}
	seen := make(map[string]bool, len(f.Domains))
	for i := range f.Domains {
		d := &f.Domains[i]
		if err := CheckName(d.Name); err != nil {
			return fmt.Errorf("domains[%d]: %w", i, err)
		}
		if seen[d.Name] {
			return fmt.Errorf("domain %s is declared twice; amend it in one entry", d.Name)
		}
		seen[d.Name] = true
		if err := d.check(); err != nil {
			return fmt.Errorf("domain %s: %w", d.Name, err)
		}
	}
	return nil
}

func (d *Domain) check() error {
	if len(d.Recall)+len(d.Aliases) > MaxWordsInDomain {
		return fmt.Errorf("has %d recall words and aliases, over the %d a domain may", len(d.Recall)+len(d.Aliases), MaxWordsInDomain)
	}
	if len(d.Rules) > MaxRulesInDomain {
		return fmt.Errorf("has %d rules, over the %d a domain may", len(d.Rules), MaxRulesInDomain)
	}
	if len(d.Drop) > MaxRulesInDomain {
		return fmt.Errorf("drops %d rules, over the %d a domain may have", len(d.Drop), MaxRulesInDomain)
	}
	d.words, d.aliasWords = make([]word, len(d.Recall)), make([]word, len(d.Aliases))
	for i, w := range d.Recall {
		pw, err := parseWord(w)
		if err != nil {
			return fmt.Errorf("recall %q: %w", text.Clip(w), err)
		}
		d.words[i] = pw
	}
	for i, a := range d.Aliases {
		if err := CheckName(a); err != nil {
			return fmt.Errorf("alias: %w", err)
		}
		if a == d.Name {
			return fmt.Errorf("alias %s is the domain's own name", a)
		}
		d.aliasWords[i] = word{parts: strings.Split(a, "-"), raw: a}
	}
	ids := make(map[string]bool, len(d.Rules))
	for i := range d.Rules {
		r := &d.Rules[i]
		if err := checkID(r.ID); err != nil {
			return fmt.Errorf("rules[%d]: %w", i, err)
		}
		if ids[r.ID] {
			return fmt.Errorf("rule %s is given twice", r.ID)
		}
		ids[r.ID] = true
		if err := checkRuleText(r.Text); err != nil {
			return fmt.Errorf("rule %s: %w", r.ID, err)
		}
		if len(r.Recall) > 32 {
			return fmt.Errorf("rule %s: has %d recall words, over the 32 a rule may", r.ID, len(r.Recall))
		}
		r.words = make([]word, len(r.Recall))
		for k, w := range r.Recall {
			pw, err := parseWord(w)
			if err != nil {
				return fmt.Errorf("rule %s: recall %q: %w", r.ID, text.Clip(w), err)
			}
			r.words[k] = pw
		}
	}
	for _, id := range d.Drop {
		if err := checkID(id); err != nil {
			return fmt.Errorf("drop: %w", err)
		}
		if ids[id] {
			return fmt.Errorf("drops rule %s and gives it in the same entry", id)
		}
	}
	return nil
}

// CheckName says what keeps s from being a domain's name (or an alias): it must be lower-case
// letters, digits and single inner hyphens, start with a letter, be at most MaxNameBytes, and not be
// a word the rules command takes. A name that passes is a plain file name on every system.
func CheckName(s string) error {
	if s == "" {
		return fmt.Errorf("a domain needs a name")
	}
	if len(s) > MaxNameBytes {
		return fmt.Errorf("name %q is longer than %d bytes", text.Clip(s), MaxNameBytes)
	}
	if !isSlug(s) {
		return fmt.Errorf("name %q cannot become a file name: use lower-case letters, digits and single inner hyphens, starting with a letter", text.Clip(s))
	}
	if slices.Contains(reserved, s) {
		return fmt.Errorf("name %q is a word of the rules command itself (%s); choose another", s, strings.Join(reserved, ", "))
	}
	return nil
}

func checkID(s string) error {
	if s == "" {
		return fmt.Errorf("a rule needs an id")
	}
	if len(s) > MaxIDBytes || !isSlug(s) {
		return fmt.Errorf("id %q must be lower-case letters, digits and single inner hyphens, starting with a letter, at most %d bytes", text.Clip(s), MaxIDBytes)
	}
	return nil
}

func checkRuleText(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("its text is empty")
	}
	if len(s) > MaxRuleBytes {
		return fmt.Errorf("its text is %d bytes, over the %d a rule may be: a rule is one short convention", len(s), MaxRuleBytes)
	}
	if p := lineProblem(s); p != "" {
		return fmt.Errorf("its text holds %s: a rule is one line of plain text", p)
	}
	return nil
}

// isSlug reports lower-case letters and digits in runs joined by single hyphens, starting with a
// letter.
func isSlug(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// word is a recall word or phrase as matching reads it: its words, folded, and whether the last one
// is a prefix.
type word struct {
	parts  []string
	prefix bool
	raw    string
}

// parseWord reads one recall entry: one to four words (letters, digits, underscores), separated by
// spaces or hyphens, the last optionally ending in * to match any word it begins.
func parseWord(s string) (word, error) {
	if strings.TrimSpace(s) == "" {
		return word{}, fmt.Errorf("is empty")
	}
	if len(s) > MaxWordBytes {
		return word{}, fmt.Errorf("is longer than %d bytes", MaxWordBytes)
	}
	if !utf8.ValidString(s) {
		return word{}, fmt.Errorf("is not valid UTF-8")
	}
	w := word{raw: s}
	body := s
	if strings.HasSuffix(body, "*") {
		w.prefix = true
		body = body[:len(body)-1]
	}
	for _, r := range body {
		if !isWordRune(r) && r != ' ' && r != '-' {
			return word{}, fmt.Errorf("holds %q: a recall word is letters, digits and underscores, words separated by spaces or hyphens, with an optional * at its end", r)
		}
	}
	for _, t := range tokens(body) {
		w.parts = append(w.parts, t.text)
	}
	if len(w.parts) == 0 || len(w.parts) > 4 {
		return word{}, fmt.Errorf("must be one to four words")
	}
	if w.prefix && (strings.HasSuffix(body, " ") || strings.HasSuffix(body, "-")) {
		return word{}, fmt.Errorf("a * ends a word; it cannot stand alone")
	}
	if w.prefix && len([]rune(w.parts[len(w.parts)-1])) < 3 {
		return word{}, fmt.Errorf("a prefix needs at least three letters before its *")
	}
	return w, nil
}

// lineProblem is text.LineProblem with a fast path for printable ASCII, which nearly every rule is:
// the hook checks every rule of every layer on every prompt.
func lineProblem(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return text.LineProblem(s)
		}
	}
	return ""
}
