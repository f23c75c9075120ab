package app

import (
	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/rules"
)

// The closed values of the verbs' results, for the schema generator (contract.Fields): each list is
// the domain's own (tiers, layers, stages, kinds, families) or, for a value only a use case names,
// the constants below. No struct tag repeats a list, and a result that carries a value off its list
// fails the contract tests, which validate every result against its published schema.

// Where ahoy install's steps stand, and the consent categories it asks about.
const (
	stepCreated  = "created"
	stepPresent  = "present"
	stepSkipped  = "skipped"
	stepDeclined = "declined"

	categoryRecord      = "record"
	categoryLocalWork   = "local-work"
	categoryRoutingHome = "oracle-routing-machine"
	categoryRoutingRepo = "oracle-routing-repository"
)

// Where ahoy connect's provider reads its key.
const (
	credentialEnv  = "key_env"
	credentialFile = "key_file"
	credentialNone = "none"
)

// Which guard registry decided.
const (
	rulesBuiltIn     = "built-in"
	rulesCommitted   = "committed"
	rulesWorkingTree = "working-tree"
	rulesOff         = "off"
)

// What a configuration file configures, and the one layer a file lives at.
const (
	fileConfig  = "config"
	fileRouting = "routing"
)

// runUnknown is a run whose state cannot be read: its kind is not known.
const runUnknown = "unknown"

func strs[T ~string](v ...T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = string(x)
	}
	return out
}

func layerNames(ls ...config.Layer) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

func (AhoyStep) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{
		"category": contract.Enum(categoryRecord, categoryLocalWork, categoryRoutingHome, categoryRoutingRepo),
		"status":   contract.Enum(stepCreated, stepPresent, stepSkipped, stepDeclined),
	}
}

func (AhoyConnectResult) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"credential": contract.Enum(credentialEnv, credentialFile, credentialNone)}
}

func (ConfigEntry) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(layerNames(config.Layers()...)...)}
}

// A key's layers list only the layers that set it: never none.
func (ConfigLayerValue) SchemaFields() map[string]contract.Rule {
	ls := config.Layers()
	return map[string]contract.Rule{"layer": contract.Enum(layerNames(ls[:len(ls)-1]...)...)}
}

// A configuration file lives in the repository or on the machine.
func (ConfigFileStatus) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{
		"layer": contract.Enum(layerNames(config.LayerRepo, config.LayerMachine)...),
		"kind":  contract.Enum(fileConfig, fileRouting),
	}
}

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

func (AwaitView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"kind": contract.Enum(loop.AwaitKinds()...)}
}

func (LaneView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"stage": contract.Enum(loop.Stages()...)}
}

func (RunView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"kind": contract.Enum(append(strs(loop.Kinds()...), runUnknown)...)}
}

func (RecordSummary) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"family": contract.Enum(record.Families()...)}
}

// A status board's layers are the routing tables a row can come from.
func (RoutingLayer) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(oracle.Tables()...)}
}

func (RulesLayer) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(rules.Layers()...)}
}

// A rules file is the machine's or the repository's; the bundled layer is no file.
func (RulesFileStatus) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(rules.Machine, rules.Repository)}
}

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
