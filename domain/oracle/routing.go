package oracle

import "github.com/abcd-dev/abcd/domain/contract"

// RoutingFile is the shape of both routing files: .abcd/config/oracle-routing.json in the
// repository and oracle-routing.json under $ABCD_HOME on the machine.
type RoutingFile struct {
	SchemaVersion int           `json:"schema_version"`
	Agents        RoutingAgents `json:"agents"`
}

// RoutingAgents maps a roster agent's name to its row.
type RoutingAgents map[string]Row

// Row is one agent's routing: the tier it deserves, how many of it may run at once, and the settings
// a provider receives.
type Row struct {
	Tier     Tier     `json:"tier"`
	FanOut   int      `json:"fan_out,omitempty" jsonschema:"minimum=0"`
	Settings Settings `json:"settings,omitempty"`
}

// Settings are provider settings: at most 16, each a scalar.
type Settings map[string]Scalar

// Scalar is a setting's value: a string, a number or a boolean, kept as the JSON text it was given.
type Scalar string

// Receipt is the route block every step's receipt carries: what was asked, what was tried, what ran,
// and why they differ. Every field is always present.
type Receipt struct {
	Agent           string   `json:"agent"`
	TierAsked       Tier     `json:"tier_asked"`
	ConnectionTried string   `json:"connection_tried"`
	ConnectionUsed  string   `json:"connection_used"`
	FallbackReason  string   `json:"fallback_reason"`
	Override        string   `json:"override"`
	SettingsSent    Settings `json:"settings_sent"`
	ModelReported   string   `json:"model_reported" jsonschema:"maxLength=200"`
}

// RoutingVersion is a routing file's schema_version.
const RoutingVersion = 1

func (RoutingFile) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(RoutingVersion)}
}
