package rules

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/rules"
)

func (RulesLayer) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(rules.Layers()...)}
}

// A rules file is the machine's or the repository's; the bundled layer is no file.
func (RulesFileStatus) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(rules.Machine, rules.Repository)}
}
