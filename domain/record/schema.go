package record

import "github.com/abcd-dev/abcd/domain/contract"

// What the published schemas say of the record's files and findings, from the record's own lists:
// the front matter's closed values are the family's, and its free text follows the title rule as
// stored.

func (Family) SchemaEnum() contract.Rule { return contract.Enum(Families()...) }

// frontFields are the rules of a family's front matter members that are plain strings in Go.
func frontFields(f Family) map[string]contract.Rule {
	rules := map[string]contract.Rule{
		"type":  contract.Enum(TypeOf(f)),
		"title": StoredTitle("").SchemaRule(),
	}
	if ls := lifecycles[f]; len(ls) > 0 {
		rules["lifecycle"] = contract.Enum(ls...)
	}
	switch f {
	case Intents:
		rules["kind"] = contract.Enum(kinds...)
		rules["severity"] = contract.Enum(severities...)
	case Issues:
		rules["severity"] = contract.Enum(severities...)
		rules["source"] = StoredTitle("").SchemaRule()
	}
	return rules
}

func (IntentFrontMatter) SchemaFields() map[string]contract.Rule   { return frontFields(Intents) }
func (SpecFrontMatter) SchemaFields() map[string]contract.Rule     { return frontFields(Specs) }
func (IssueFrontMatter) SchemaFields() map[string]contract.Rule    { return frontFields(Issues) }
func (DecisionFrontMatter) SchemaFields() map[string]contract.Rule { return frontFields(Decisions) }

func (Finding) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"level": contract.Enum(LevelError, LevelWarning)}
}
