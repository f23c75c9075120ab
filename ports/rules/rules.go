package rules

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/rules"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// The rules' files, for remedies and documentation.
const (
	RulesFile        = ".abcd/rules.json"
	MachineRulesFile = "rules.json"
)

// RulesInput optionally names one domain.
type RulesInput struct {
	Domain rules.DomainName `json:"domain,omitempty"`
}

// RulesShowInput optionally names one domain, and a prompt to say why each domain would or would not
// come with it.
type RulesShowInput struct {
	Domain rules.DomainName `json:"domain,omitempty"`
	Prompt rules.PromptText `json:"prompt,omitempty"`
}

// RulesMatchInput is the prompt whose rules are asked for.
type RulesMatchInput struct {
	Prompt rules.PromptText `json:"prompt"`
}

// RulesLayer names a layer and the file that is it.
type RulesLayer struct {
	Layer  string `json:"layer"`
	Origin string `json:"origin" jsonschema:"minLength=1"`
}

// RulesFileStatus is one rules file: where it is and whether it is there.
type RulesFileStatus struct {
	Layer   string `json:"layer"`
	Path    string `json:"path" jsonschema:"minLength=1"`
	Present bool   `json:"present"`
}

// RulesSwitch is whether prompts are handed rules, and the file that decided it.
type RulesSwitch struct {
	On bool `json:"on"`
	RulesLayer
}

// RulesBudget is how much one prompt may be handed, and where each bound was set.
type RulesBudget struct {
	Bytes     int        `json:"bytes" jsonschema:"minimum=256,maximum=9000"`
	Rules     int        `json:"rules" jsonschema:"minimum=1,maximum=64"`
	BytesFrom RulesLayer `json:"bytes_from"`
	RulesFrom RulesLayer `json:"rules_from"`
}

// RulesState is what every rules verb reports about the layers: the files, the switch, the budget and
// the notices (each override of a bundled guardrail, the switch when off), which are also warned on
// stderr on every load.
type RulesState struct {
	Files   []RulesFileStatus `json:"files"`
	Inject  RulesSwitch       `json:"inject"`
	Budget  RulesBudget       `json:"budget"`
	Notices []string          `json:"notices"`
}

// RulesDomainSummary is one domain in force, in brief.
type RulesDomainSummary struct {
	Name string `json:"name" jsonschema:"minLength=1"`
	RulesLayer
	Guardrail bool     `json:"guardrail"`
	Dormant   bool     `json:"dormant"`
	Recall    []string `json:"recall"`
	Aliases   []string `json:"aliases"`
	Rules     int      `json:"rules"`
	Dropped   int      `json:"dropped"`
}

// RulesResult lists the domains in force (or the one asked for).
type RulesResult struct {
	RulesState
	Domains []RulesDomainSummary `json:"domains"`
	// Total is how many rules are in force over every domain.
	Total int `json:"total"`
}

// RulesWord is a recall word or alias and the layer that gave it.
type RulesWord struct {
	Word string `json:"word" jsonschema:"minLength=1"`
	RulesLayer
}

// RulesRuleView is one rule in force and where it came from.
type RulesRuleView struct {
	ID     string   `json:"id" jsonschema:"minLength=1"`
	Text   string   `json:"text" jsonschema:"minLength=1"`
	Recall []string `json:"recall"`
	RulesLayer
	// Replaces is the layer whose text for this id this one replaced; absent when none.
	Replaces *RulesLayer `json:"replaces,omitempty"`
}

// RulesDroppedView is a rule a higher layer dropped.
type RulesDroppedView struct {
	ID        string     `json:"id" jsonschema:"minLength=1"`
	Text      string     `json:"text"`
	GivenBy   RulesLayer `json:"given_by"`
	DroppedBy RulesLayer `json:"dropped_by"`
}

// RulesWhy is why a domain would or would not come with the prompt rules show was given.
type RulesWhy struct {
	// Comes is true when the prompt brings the domain in.
	Comes bool   `json:"comes"`
	Why   string `json:"why" jsonschema:"minLength=1"`
	// Words are the domain's recall words and aliases the prompt holds.
	Words []string `json:"words"`
	// Rules are the ids of the rules the domain would bring.
	Rules []string `json:"rules"`
}

// RulesDomainView is one domain in force, whole, with the provenance of every part.
type RulesDomainView struct {
	Name string `json:"name" jsonschema:"minLength=1"`
	RulesLayer
	Guardrail bool `json:"guardrail"`
	Dormant   bool `json:"dormant"`
	// DormantFrom is the layer that last set dormant; absent when none did.
	DormantFrom *RulesLayer        `json:"dormant_from,omitempty"`
	Recall      []RulesWord        `json:"recall"`
	Aliases     []RulesWord        `json:"aliases"`
	Rules       []RulesRuleView    `json:"rules"`
	Dropped     []RulesDroppedView `json:"dropped"`
	// Match is present when a prompt was given.
	Match *RulesWhy `json:"match,omitempty"`
}

// RulesShowResult is every domain in force (or the one asked for), whole.
type RulesShowResult struct {
	RulesState
	Domains []RulesDomainView `json:"domains"`
	// Unknown are the *NAMEs the prompt gave that name no domain.
	Unknown []string `json:"unknown"`
}

// RulesMatchedRule is one rule a matched domain brings.
type RulesMatchedRule struct {
	ID   string `json:"id" jsonschema:"minLength=1"`
	Text string `json:"text" jsonschema:"minLength=1"`
	RulesLayer
	// Words are the rule's own recall words the prompt holds.
	Words []string `json:"words"`
	// Included is false when the budget left it out.
	Included bool `json:"included"`
}

// RulesMatched is one domain the prompt brings in.
type RulesMatched struct {
	Domain    string `json:"domain" jsonschema:"minLength=1"`
	Guardrail bool   `json:"guardrail"`
	Why       string `json:"why" jsonschema:"minLength=1"`
	// Forced is the *NAME that forced it in; absent when its words did.
	Forced string             `json:"forced,omitempty"`
	Words  []string           `json:"words"`
	Rules  []RulesMatchedRule `json:"rules"`
}

// RulesAsleep is a dormant domain whose words the prompt holds.
type RulesAsleep struct {
	Domain string   `json:"domain" jsonschema:"minLength=1"`
	Words  []string `json:"words"`
}

// RulesRef names one rule of one domain.
type RulesRef struct {
	Domain string `json:"domain" jsonschema:"minLength=1"`
	ID     string `json:"id" jsonschema:"minLength=1"`
}

// RulesMatchResult is what a prompt is handed: the domains it brings in and why, the text a hook
// injects (empty when nothing matched or injection is off), and what the budget left out.
type RulesMatchResult struct {
	RulesState
	Matched []RulesMatched `json:"matched"`
	Asleep  []RulesAsleep  `json:"asleep"`
	Unknown []string       `json:"unknown"`
	// Context is the text injected ahead of the prompt.
	Context  string     `json:"context"`
	Included []RulesRef `json:"included"`
	LeftOut  []RulesRef `json:"left_out"`
	// Truncated is true when the prompt was longer than abcd reads for words and only its start was read.
	Truncated bool `json:"truncated"`
}

func RulesVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "rules", Path: []string{"rules"}, Example: "abcd rules\nabcd rules committing", Summary: "List the rule domains in force: their layers, recall words and how many rules each holds",
			ReadOnly: true, Idempotent: true}, RulesList),
		verb.Declare(verb.Verb{Name: "rules_show", Path: []string{"rules", "show"}, Example: "abcd rules show\nabcd rules show secrets --prompt \"rotate the API token\"", Summary: "Show every rule in force with the layer and file it came from, and why a prompt would bring each domain",
			ReadOnly: true, Idempotent: true}, RulesShow),
		verb.Declare(verb.Verb{Name: "rules_match", Path: []string{"rules", "match"}, Example: "abcd rules match --prompt \"refactor the migration\"\necho \"add a test\" | abcd rules match", Summary: "Show the rules a prompt calls for and the context a hook injects, within the budget, naming what it left out",
			ReadOnly: true, Idempotent: true}, RulesMatch),
	}
}

func layerOf(p rules.Provenance) RulesLayer {
	return RulesLayer{Layer: string(p.Layer), Origin: p.Origin}
}

// domainArg finds the domain a verb was asked about, or refuses naming the domains in force.
func domainArg(verb string, set *rules.Set, name rules.DomainName) (*rules.Resolved, error) {
	d, ok := set.Lookup(string(name))
	if ok {
		return d, nil
	}
	return nil, refusal.New(refusal.CodeRulesDomainUnknown, "", fmt.Sprintf("no domain in force is named %q", text.Clip(string(name))),
		refusal.Run("rules"), " lists the domains in force").On(verb, "domain")
}

func RulesList(ctx context.Context, a *Deps, in *RulesInput) (RulesResult, error) {
	set, state, err := a.LoadRules(ctx)
	if err != nil {
		return RulesResult{}, err
	}
	res := RulesResult{RulesState: state, Domains: []RulesDomainSummary{}, Total: set.RuleCount()}
	domains := set.Domains
	if in.Domain != "" {
		d, err := domainArg("rules", set, in.Domain)
		if err != nil {
			return RulesResult{}, err
		}
		domains = []*rules.Resolved{d}
	}
	for _, d := range domains {
		s := RulesDomainSummary{Name: d.Name, RulesLayer: layerOf(d.From), Guardrail: d.Guardrail, Dormant: d.Dormant,
			Recall: []string{}, Aliases: []string{}, Rules: len(d.Rules), Dropped: len(d.Dropped)}
		for _, w := range d.Recall {
			s.Recall = append(s.Recall, w.Text)
		}
		for _, w := range d.Aliases {
			s.Aliases = append(s.Aliases, w.Text)
		}
		res.Domains = append(res.Domains, s)
	}
	return res, nil
}

func RulesShow(ctx context.Context, a *Deps, in *RulesShowInput) (RulesShowResult, error) {
	if err := rules.CheckPrompt(string(in.Prompt)); err != nil {
		return RulesShowResult{}, core.OnField(err, "rules_show", "prompt")
	}
	set, state, err := a.LoadRules(ctx)
	if err != nil {
		return RulesShowResult{}, err
	}
	res := RulesShowResult{RulesState: state, Domains: []RulesDomainView{}, Unknown: []string{}}
	domains := set.Domains
	if in.Domain != "" {
		d, err := domainArg("rules_show", set, in.Domain)
		if err != nil {
			return RulesShowResult{}, err
		}
		domains = []*rules.Resolved{d}
	}
	var match rules.Result
	prompted := in.Prompt != ""
	if prompted {
		match = set.Match(string(in.Prompt))
		res.Unknown = append(res.Unknown, match.Unknown...)
	}
	for _, d := range domains {
		v := domainView(d)
		if prompted {
			v.Match = whyOf(d, match)
		}
		res.Domains = append(res.Domains, v)
	}
	return res, nil
}

func domainView(d *rules.Resolved) RulesDomainView {
	v := RulesDomainView{Name: d.Name, RulesLayer: layerOf(d.From), Guardrail: d.Guardrail, Dormant: d.Dormant,
		Recall: []RulesWord{}, Aliases: []RulesWord{}, Rules: []RulesRuleView{}, Dropped: []RulesDroppedView{}}
	if d.DormantFrom != nil {
		l := layerOf(*d.DormantFrom)
		v.DormantFrom = &l
	}
	for _, w := range d.Recall {
		v.Recall = append(v.Recall, RulesWord{Word: w.Text, RulesLayer: layerOf(w.From)})
	}
	for _, w := range d.Aliases {
		v.Aliases = append(v.Aliases, RulesWord{Word: w.Text, RulesLayer: layerOf(w.From)})
	}
	for _, r := range d.Rules {
		rv := RulesRuleView{ID: r.ID, Text: r.Text, Recall: core.NonNil(r.Recall), RulesLayer: layerOf(r.From)}
		if r.Replaced != nil {
			l := layerOf(*r.Replaced)
			rv.Replaces = &l
		}
		v.Rules = append(v.Rules, rv)
	}
	for _, r := range d.Dropped {
		v.Dropped = append(v.Dropped, RulesDroppedView{ID: r.ID, Text: r.Text, GivenBy: layerOf(r.From), DroppedBy: layerOf(r.By)})
	}
	return v
}

// whyOf says why d would or would not come with the prompt match was made from.
func whyOf(d *rules.Resolved, match rules.Result) *RulesWhy {
	for _, m := range match.Matched {
		if m.Domain != d {
			continue
		}
		w := &RulesWhy{Comes: true, Why: m.Why(), Words: core.NonNil(m.Words), Rules: []string{}}
		for _, c := range m.Rules {
			w.Rules = append(w.Rules, c.Rule.ID)
		}
		if len(w.Rules) == 0 {
			w.Why += ", but none of its rules' own words are in the prompt, so it brings no rule"
		}
		return w
	}
	for _, s := range match.Asleep {
		if s.Domain == d {
			return &RulesWhy{Why: fmt.Sprintf("it is dormant: the prompt holds its words, but only *%s brings it in", d.Name), Words: core.NonNil(s.Words), Rules: []string{}}
		}
	}
	return &RulesWhy{Why: "the prompt holds none of its recall words or aliases, and does not name *" + d.Name, Words: []string{}, Rules: []string{}}
}

func RulesMatch(ctx context.Context, a *Deps, in *RulesMatchInput) (RulesMatchResult, error) {
	return a.matchRules(ctx, in, false)
}

// RulesHook is rules_match for the prompt hook: the same answer, and the composed rules kept on the
// machine (under $ABCD_HOME/cache/rules) so the next prompt reads them back instead of composing them.
func (a *Deps) RulesHook(ctx context.Context, in *RulesMatchInput) (RulesMatchResult, error) {
	return a.matchRules(ctx, in, true)
}

func (a *Deps) matchRules(ctx context.Context, in *RulesMatchInput, keep bool) (RulesMatchResult, error) {
	if err := rules.CheckPrompt(string(in.Prompt)); err != nil {
		return RulesMatchResult{}, core.OnField(err, "rules_match", "prompt")
	}
	set, state, err := a.composedRules(ctx, keep)
	if err != nil {
		return RulesMatchResult{}, err
	}
	match := set.Match(string(in.Prompt))
	inj := set.Handed(match)
	res := RulesMatchResult{RulesState: state, Matched: []RulesMatched{}, Asleep: []RulesAsleep{}, Unknown: core.NonNil(match.Unknown),
		Context: inj.Text, Included: []RulesRef{}, LeftOut: []RulesRef{}, Truncated: match.Truncated}
	included := map[RulesRef]bool{}
	for _, r := range inj.Included {
		ref := RulesRef{Domain: r.Domain, ID: r.ID}
		included[ref] = true
		res.Included = append(res.Included, ref)
	}
	for _, r := range inj.LeftOut {
		res.LeftOut = append(res.LeftOut, RulesRef{Domain: r.Domain, ID: r.ID})
	}
	for _, m := range match.Matched {
		rm := RulesMatched{Domain: m.Domain.Name, Guardrail: m.Domain.Guardrail, Why: m.Why(), Forced: m.Forced, Words: core.NonNil(m.Words), Rules: []RulesMatchedRule{}}
		for _, c := range m.Rules {
			rm.Rules = append(rm.Rules, RulesMatchedRule{ID: c.Rule.ID, Text: c.Rule.Text, RulesLayer: layerOf(c.Rule.From), Words: core.NonNil(c.Words),
				Included: included[RulesRef{Domain: m.Domain.Name, ID: c.Rule.ID}]})
		}
		res.Matched = append(res.Matched, rm)
	}
	for _, s := range match.Asleep {
		res.Asleep = append(res.Asleep, RulesAsleep{Domain: s.Domain.Name, Words: core.NonNil(s.Words)})
	}
	return res, nil
}
