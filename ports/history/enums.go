package history

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/history"
)

// A captured session's harness, a capture's outcome and a message's role are closed lists.
func (HistoryCaptured) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"harness": contract.Enum(history.Harnesses...),
		"outcome": contract.Enum(history.Stored, history.Superseded, history.Unchanged, history.KeptLonger, history.Refused)}
}

func (HistorySession) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"harness": contract.Enum(history.Harnesses...)}
}

func (HistoryMessage) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"role": contract.Enum(history.Roles()...)}
}
