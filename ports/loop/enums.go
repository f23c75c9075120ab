package loop

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/ports/loop/view"
)

// runUnknown is a run whose state cannot be read: its kind is not known.
const runUnknown = view.RunUnknown

// A status board's layers are the routing tables a row can come from.
func (RoutingLayer) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(oracle.Tables()...)}
}
