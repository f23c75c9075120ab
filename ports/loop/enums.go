package loop

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// runUnknown is a run whose state cannot be read: its kind is not known.
const runUnknown = "unknown"

func (AwaitView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"kind": contract.Enum(loop.AwaitKinds()...)}
}

func (LaneView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"stage": contract.Enum(loop.Stages()...)}
}

func (RunView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"kind": contract.Enum(append(core.Strs(loop.Kinds()...), runUnknown)...)}
}

// A status board's layers are the routing tables a row can come from.
func (RoutingLayer) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(oracle.Tables()...)}
}
