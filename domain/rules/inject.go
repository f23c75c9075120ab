package rules

import (
	"fmt"
	"strings"
)

// Ref names one rule of one domain.
type Ref struct {
	Domain string
	ID     string
	Bytes  int
}

// Injection is what one prompt is handed: the text, the rules in it, and the rules the budget left out.
type Injection struct {
	Text     string
	Included []Ref
	LeftOut  []Ref
	Budget   Budget
	// Off is true when the switch is off: nothing is handed over, whatever matched.
	Off bool
}

// InjectionHeader opens the text a prompt is handed.
const InjectionHeader = "abcd rules: the conventions of this repository that this prompt calls for. Follow them.\n"

const header = InjectionHeader

// Handed fits the matched rules into the budget, whole rules only (see fit). When any is left out the
// text ends by saying which, and how to read them.
func (s *Set) Handed(res Result) Injection {
	inj := Injection{Budget: s.Budget, Off: !s.Inject, Included: []Ref{}, LeftOut: []Ref{}}
	if !s.Inject || len(res.Matched) == 0 {
		return inj
	}
	text, in, out := fit(res.Matched, s.Budget.Bytes, s.Budget.Rules)
	if len(out) > 0 {
		// Room for the line that names what was left out, then fit again within what is left.
		const noteRoom = 320
		text, in, out = fit(res.Matched, s.Budget.Bytes-noteRoom, s.Budget.Rules)
		text += leftOutNote(out, s.Budget)
	}
	inj.Text, inj.Included, inj.LeftOut = text, in, out
	return inj
}

// fit chooses rules round by round: every matched domain's first rule, in Match's order, then every
// domain's second, and so on, so one domain with many rules never crowds out another that matched.
// A rule that does not fit the bytes left is skipped and the next is tried; the rule count ends it.
// The text groups the chosen rules under their domains, in Match's order.
func fit(ms []Matched, maxBytes, maxRules int) (string, []Ref, []Ref) {
	heads := make([]string, len(ms))
	for i, m := range ms {
		heads[i] = fmt.Sprintf("[%s] %s\n", m.Domain.Name, m.Why())
	}
	chosen := make([][]bool, len(ms))
	headed := make([]bool, len(ms))
	used, count := len(header), 0
	if used > maxBytes {
		used = maxBytes + 1 // nothing fits
	}
	for round := 0; ; round++ {
		more := false
		for i, m := range ms {
			if chosen[i] == nil {
				chosen[i] = make([]bool, len(m.Rules))
			}
			if round >= len(m.Rules) {
				continue
			}
			more = true
			need := len("- ") + len(m.Rules[round].Rule.Text) + 1
			if !headed[i] {
				need += len(heads[i])
			}
			if count >= maxRules || used+need > maxBytes {
				continue
			}
			chosen[i][round] = true
			headed[i] = true
			used += need
			count++
		}
		if !more {
			break
		}
	}
	var b strings.Builder
	in, out := []Ref{}, []Ref{}
	for i, m := range ms {
		written := false
		for k, c := range m.Rules {
			ref := Ref{Domain: m.Domain.Name, ID: c.Rule.ID, Bytes: len(c.Rule.Text)}
			if !chosen[i][k] {
				out = append(out, ref)
				continue
			}
			if b.Len() == 0 {
				b.WriteString(header)
			}
			if !written {
				b.WriteString(heads[i])
				written = true
			}
			b.WriteString("- " + c.Rule.Text + "\n")
			in = append(in, ref)
		}
	}
	return b.String(), in, out
}

// leftOutNote names, per domain, how many rules the budget left out, within 320 bytes.
func leftOutNote(out []Ref, budget Budget) string {
	var order []string
	count := map[string]int{}
	for _, r := range out {
		if count[r.Domain] == 0 {
			order = append(order, r.Domain)
		}
		count[r.Domain]++
	}
	var parts []string
	used := 0
	for i, d := range order {
		p := fmt.Sprintf("%s (%d)", d, count[d])
		if used+len(p) > 160 {
			parts = append(parts, fmt.Sprintf("and %d more domains", len(order)-i))
			break
		}
		parts = append(parts, p)
		used += len(p) + 2
	}
	return fmt.Sprintf("Left out over the budget of %d bytes and %d rules: %d rules of %s. Read them with: abcd rules show DOMAIN\n",
		budget.Bytes, budget.Rules, len(out), strings.Join(parts, ", "))
}
