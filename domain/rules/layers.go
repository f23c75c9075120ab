package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Layer is where a rule came from, lowest first.
type Layer string

const (
	Bundled    Layer = "bundled"
	Machine    Layer = "machine"
	Repository Layer = "repository"
)

// Provenance is the layer and file that gave something.
type Provenance struct {
	Layer  Layer
	Origin string // the file's path, or "abcd" for the bundled domains
}

func (p Provenance) String() string { return fmt.Sprintf("%s (%s)", p.Origin, p.Layer) }

// Source is one layer's file, decoded.
type Source struct {
	Layer  Layer
	Origin string
	File   File
}

// Set is the rules in force over every layer: each domain with where each of its parts came from,
// the switch and the budget with the file that set them, and what a person must be told on every load.
type Set struct {
	Inject     bool
	InjectFrom Provenance
	Budget     Budget
	BytesFrom  Provenance
	RulesFrom  Provenance
	// Domains are sorted by name.
	Domains []*Resolved
	// Notices name every override of a bundled guardrail (a rule dropped or rewritten, a guardrail
	// domain made dormant) and the switch when it is off.
	Notices []string
	names   map[string]*Resolved // names and aliases
}

// Resolved is one domain in force.
type Resolved struct {
	Name string
	From Provenance
	// Guardrail is true for abcd's bundled domains, whose rules an override is named for dropping.
	Guardrail   bool
	Recall      []Word
	Aliases     []Word
	Dormant     bool
	DormantFrom *Provenance // the layer that last set dormant, nil when none did
	Rules       []InForce
	Dropped     []Dropped
	words       []word
	aliases     []word
}

// Word is a recall word or alias and the layer that gave it.
type Word struct {
	Text string
	From Provenance
}

// InForce is one rule in force and where it came from.
type InForce struct {
	ID     string
	Text   string
	Recall []string
	From   Provenance
	// Replaced is the layer whose text this one replaced, nil when none.
	Replaced *Provenance
	words    []word
}

// Dropped is a rule a higher layer removed.
type Dropped struct {
	ID   string
	Text string
	From Provenance // where it was given
	By   Provenance // where it was dropped
}

// Compose lays the sources over each other, lowest first (bundled, machine, repository). A domain is
// defined by the first source that names it; a later one amends it: its recall words and aliases are
// added, its dormant setting wins, its rules are added (an id already there is replaced) and its
// drops remove rules. A later source that drops, rewrites or puts to sleep a bundled guardrail is
// named in Notices. A name or alias claimed by two domains, or more than MaxDomains domains in force,
// is an error naming the file.
func Compose(sources []Source) (*Set, error) {
	s := &Set{Inject: true, Budget: Budget{Bytes: DefaultBudgetBytes, Rules: DefaultBudgetRules}, names: map[string]*Resolved{}}
	abcd := Provenance{Layer: Bundled, Origin: "abcd"}
	s.InjectFrom, s.BytesFrom, s.RulesFrom = abcd, abcd, abcd
	byName := map[string]*Resolved{}
	for _, src := range sources {
		from := Provenance{Layer: src.Layer, Origin: src.Origin}
		f := src.File
		if f.Inject != nil {
			s.Inject, s.InjectFrom = *f.Inject, from
		}
		if f.Budget != nil {
			if f.Budget.Bytes != 0 {
				s.Budget.Bytes, s.BytesFrom = f.Budget.Bytes, from
			}
			if f.Budget.Rules != 0 {
				s.Budget.Rules, s.RulesFrom = f.Budget.Rules, from
			}
		}
		for _, d := range f.Domains {
			r, ok := byName[d.Name]
			if !ok {
				if owner, taken := s.names[d.Name]; taken {
					return nil, fmt.Errorf("%s: domain %s is already an alias of domain %s", src.Origin, d.Name, owner.Name)
				}
				r = &Resolved{Name: d.Name, From: from, Guardrail: src.Layer == Bundled}
				byName[d.Name] = r
				s.names[d.Name] = r
				if len(byName) > MaxDomains {
					return nil, fmt.Errorf("%s: brings the domains in force to %d, over the %d abcd takes", src.Origin, len(byName), MaxDomains)
				}
			}
			if err := s.amend(r, d, from); err != nil {
				return nil, fmt.Errorf("%s: domain %s: %w", src.Origin, d.Name, err)
			}
		}
	}
	for _, r := range byName {
		s.Domains = append(s.Domains, r)
	}
	slices.SortFunc(s.Domains, func(a, b *Resolved) int { return strings.Compare(a.Name, b.Name) })
	if !s.Inject {
		s.Notices = append(s.Notices, fmt.Sprintf("rule injection is off: %s sets inject false, so no prompt is handed rules", s.InjectFrom.Origin))
	}
	return s, nil
}

func (s *Set) amend(r *Resolved, d Domain, from Provenance) error {
	if len(d.words) != len(d.Recall) || len(d.aliasWords) != len(d.Aliases) {
		if err := d.check(); err != nil { // a domain handed in without Decode
			return err
		}
	}
	for i, w := range d.Recall {
		if !slices.ContainsFunc(r.Recall, func(x Word) bool { return strings.EqualFold(x.Text, w) }) {
			r.Recall = append(r.Recall, Word{Text: w, From: from})
			r.words = append(r.words, d.words[i])
		}
	}
	for i, a := range d.Aliases {
		if owner, taken := s.names[a]; taken && owner != r {
			return fmt.Errorf("alias %s is already domain %s's name or alias", a, owner.Name)
		}
		if s.names[a] == r {
			continue
		}
		s.names[a] = r
		r.Aliases = append(r.Aliases, Word{Text: a, From: from})
		r.aliases = append(r.aliases, d.aliasWords[i])
	}
	if len(r.Recall)+len(r.Aliases) > MaxWordsInDomain {
		return fmt.Errorf("its layers give it %d recall words and aliases, over the %d a domain may have", len(r.Recall)+len(r.Aliases), MaxWordsInDomain)
	}
	if d.Dormant != nil {
		p := from
		r.DormantFrom = &p
		r.Dormant = *d.Dormant
		if r.Guardrail && *d.Dormant && from.Layer != Bundled {
			s.Notices = append(s.Notices, fmt.Sprintf("%s makes the bundled guardrail domain %s dormant: its rules reach a prompt only when it names *%s", from.Origin, r.Name, r.Name))
		}
	}
	for _, id := range d.Drop {
		i := slices.IndexFunc(r.Rules, func(x InForce) bool { return x.ID == id })
		if i < 0 {
			// A stale drop takes nothing away; it is named, not refused, so a rule abcd stopped
			// bundling never turns a working file into a broken one.
			s.Notices = append(s.Notices, fmt.Sprintf("%s drops rule %s/%s, which no lower layer gives; the drop does nothing", from.Origin, r.Name, id))
			continue
		}
		gone := r.Rules[i]
		r.Rules = slices.Delete(r.Rules, i, i+1)
		r.Dropped = append(r.Dropped, Dropped{ID: gone.ID, Text: gone.Text, From: gone.From, By: from})
		if gone.From.Layer == Bundled && r.Guardrail {
			s.Notices = append(s.Notices, fmt.Sprintf("%s drops the bundled guardrail rule %s/%s (%q)", from.Origin, r.Name, id, clipRule(gone.Text)))
		}
	}
	for _, rule := range d.Rules {
		in := InForce{ID: rule.ID, Text: rule.Text, Recall: rule.Recall, From: from, words: rule.words}
		if i := slices.IndexFunc(r.Rules, func(x InForce) bool { return x.ID == rule.ID }); i >= 0 {
			old := r.Rules[i]
			p := old.From
			in.Replaced = &p
			r.Rules[i] = in
			if old.From.Layer == Bundled && r.Guardrail && old.Text != rule.Text {
				s.Notices = append(s.Notices, fmt.Sprintf("%s rewrites the bundled guardrail rule %s/%s (was %q)", from.Origin, r.Name, rule.ID, clipRule(old.Text)))
			}
			continue
		}
		if len(r.Rules) >= MaxRulesInDomain {
			return fmt.Errorf("its layers give it more than %d rules", MaxRulesInDomain)
		}
		r.Rules = append(r.Rules, in)
	}
	return nil
}

// Lookup finds a domain in force by its name or an alias.
func (s *Set) Lookup(name string) (*Resolved, bool) {
	r, ok := s.names[fold(name)]
	return r, ok
}

// RuleCount is how many rules are in force over every domain.
func (s *Set) RuleCount() int {
	n := 0
	for _, d := range s.Domains {
		n += len(d.Rules)
	}
	return n
}

func clipRule(s string) string {
	const most = 60
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
