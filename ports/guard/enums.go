package guard

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/guard"
)

// Which guard registry decided.
const (
	rulesBuiltIn     = "built-in"
	rulesCommitted   = "committed"
	rulesWorkingTree = "working-tree"
	rulesOff         = "off"
)

// A finding warns or blocks; the verdict may also allow.
func (GuardFinding) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"tier": contract.Enum(guard.Warn, guard.Block)}
}

func (GuardVerdict) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{
		"decision": contract.Enum(guard.Allow, guard.Warn, guard.Block),
		"rules":    contract.Enum(rulesBuiltIn, rulesCommitted, rulesWorkingTree, rulesOff),
	}
}
