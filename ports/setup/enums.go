package setup

import (
	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/ports/internal/core"
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
	CredentialEnv  = "key_env"
	credentialFile = "key_file"
	credentialNone = "none"
)

// What a configuration file configures, and the one layer a file lives at.
const (
	fileConfig  = "config"
	fileRouting = "routing"
)

func (AhoyStep) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{
		"category": contract.Enum(categoryRecord, categoryLocalWork, categoryRoutingHome, categoryRoutingRepo),
		"status":   contract.Enum(stepCreated, stepPresent, stepSkipped, stepDeclined),
	}
}

func (AhoyConnectResult) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"credential": contract.Enum(CredentialEnv, credentialFile, credentialNone)}
}

func (ConfigEntry) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"layer": contract.Enum(core.LayerNames(config.Layers()...)...)}
}

// A key's layers list only the layers that set it: never none.
func (ConfigLayerValue) SchemaFields() map[string]contract.Rule {
	ls := config.Layers()
	return map[string]contract.Rule{"layer": contract.Enum(core.LayerNames(ls[:len(ls)-1]...)...)}
}

// A configuration file lives in the repository or on the machine.
func (ConfigFileStatus) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{
		"layer": contract.Enum(core.LayerNames(config.LayerRepo, config.LayerMachine)...),
		"kind":  contract.Enum(fileConfig, fileRouting),
	}
}
