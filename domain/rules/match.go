package rules

import (
	"fmt"
	"slices"
	"strings"
)

// MaxPromptBytes bounds the part of a prompt that is read for words; a longer prompt is matched on
// its first MaxPromptBytes (where what a person asks for stands), and the result says so.
const MaxPromptBytes = 256 << 10

// Matched is one domain a prompt brings in, why, and the rules it brings.
type Matched struct {
	Domain *Resolved
	// Forced is the *NAME that forced it in, as the prompt spelled the name; "" when its words did.
	Forced string
	// Words are the recall words and aliases the prompt holds, as written in the domain.
	Words []string
	Rules []Chosen
}

// Chosen is one rule a matched domain brings, and the rule's own recall words the prompt holds.
type Chosen struct {
	Rule  *InForce
	Words []string
}

// Why says in words why the domain came in.
func (m Matched) Why() string {
	if m.Forced != "" {
		return "forced by *" + m.Forced
	}
	q := make([]string, len(m.Words))
	for i, w := range m.Words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return "recalled by " + strings.Join(q, ", ")
}

// Asleep is a dormant domain whose words the prompt holds: it did not come in.
type Asleep struct {
	Domain *Resolved
	Words  []string
}

// Result is what a prompt brings in.
type Result struct {
	// Matched are in the order they are handed over: forced domains, then guardrails, then the
	// domains more of whose words the prompt holds, then by name.
	Matched []Matched
	Asleep  []Asleep
	// Unknown are *NAMEs that name no domain.
	Unknown []string
	// Truncated is true when the prompt was longer than MaxPromptBytes and only its start was read.
	Truncated bool
}

// Match reads the prompt's words and brings in every domain it recalls or forces.
func (s *Set) Match(promptText string) Result {
	var res Result
	if len(promptText) > MaxPromptBytes {
		cut := MaxPromptBytes
		for cut > 0 && promptText[cut]&0xC0 == 0x80 {
			cut--
		}
		promptText, res.Truncated = promptText[:cut], true
	}
	p := readPrompt(promptText)
	force := map[*Resolved]string{}
	for _, name := range forced(promptText) {
		d, ok := s.names[name]
		if !ok {
			if !slices.Contains(res.Unknown, name) {
				res.Unknown = append(res.Unknown, name)
			}
			continue
		}
		if _, done := force[d]; !done {
			force[d] = name
		}
	}
	for _, d := range s.Domains {
		var hit []string
		for i, w := range d.words {
			if _, ok := p.has(w); ok {
				hit = append(hit, d.Recall[i].Text)
			}
		}
		for i, a := range d.aliases {
			if _, ok := p.has(a); ok {
				hit = append(hit, d.Aliases[i].Text)
			}
		}
		name, isForced := force[d]
		switch {
		case isForced:
		case len(hit) == 0:
			continue
		case d.Dormant:
			res.Asleep = append(res.Asleep, Asleep{Domain: d, Words: hit})
			continue
		}
		m := Matched{Domain: d, Forced: name, Words: hit}
		for i := range d.Rules {
			r := &d.Rules[i]
			var own []string
			for k, w := range r.words {
				if _, ok := p.has(w); ok {
					own = append(own, r.Recall[k])
				}
			}
			if len(r.words) > 0 && len(own) == 0 && !isForced {
				continue // a narrowed rule whose own words are not in the prompt
			}
			m.Rules = append(m.Rules, Chosen{Rule: r, Words: own})
		}
		// The rules more of whose own words the prompt holds come first; the domain's order otherwise.
		slices.SortStableFunc(m.Rules, func(a, b Chosen) int { return len(b.Words) - len(a.Words) })
		res.Matched = append(res.Matched, m)
	}
	slices.SortStableFunc(res.Matched, func(a, b Matched) int {
		if (a.Forced != "") != (b.Forced != "") {
			return boolRank(a.Forced != "") - boolRank(b.Forced != "")
		}
		if a.Domain.Guardrail != b.Domain.Guardrail {
			return boolRank(a.Domain.Guardrail) - boolRank(b.Domain.Guardrail)
		}
		if len(a.Words) != len(b.Words) {
			return len(b.Words) - len(a.Words)
		}
		return strings.Compare(a.Domain.Name, b.Domain.Name)
	})
	return res
}

func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}
