package oracle

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/text"
)

// Table is one routing file's accepted rows, by agent name. Every row in a Table from CheckTable has
// a valid tier, a fan_out between 1 and Ceiling, and clean settings.
type Table map[string]Row

// Notice is something reported on stderr while the rest of the file applies: an orphan row skipped,
// a fan_out clamped. Agent is bounded to 80 bytes.
type Notice struct {
	Origin  string `json:"origin"`
	Agent   string `json:"agent"`
	Message string `json:"message"`
}

// String renders the notice as its stderr line.
func (n Notice) String() string { return n.Origin + ": " + n.Message }

// RowError refuses a whole routing file: nothing in it applies. Field is the member at fault
// ("schema_version", "tier", "fan_out", "settings" or "settings.<key>"); Agent is "" for a fault
// of the file as a whole. Msg names the remedy.
type RowError struct {
	Origin string
	Agent  string
	Field  string
	Msg    string
}

func (e *RowError) Error() string {
	if e.Agent == "" {
		return fmt.Sprintf("%s: %s %s", e.Origin, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: agents.%s.%s %s", e.Origin, e.Agent, e.Field, e.Msg)
}

// checkProviderValues refuses a setting a provider takes whose value the provider would refuse (a
// number given as a string, a value out of its range): every step the row sends to a provider would
// otherwise fall back, each for the same reason, long after the file was read. Keys in sorted order,
// so the first fault is stable; a key no provider takes is left to the call, which refuses it.
func checkProviderValues(s Settings) (field, msg string) {
	takes := config.ProviderSettings()
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if !slices.Contains(takes, k) {
			continue
		}
		if err := config.CheckProviderSetting(k, json.RawMessage(s[k])); err != nil {
			return "settings." + k, fmt.Sprintf("value %s %s: a provider refuses it, so every step this row sends to one would fall back",
				text.Clip(string(s[k])), err)
		}
	}
	return "", ""
}

// CheckTable checks one routing file's rows, named by origin (its path), and returns the rows that
// apply, the notices to report, and an error that refuses the whole file. Agents are visited in
// sorted order, so notices and the first fault are stable. known says whether an agent is in the
// roster; nil knows every well-formed name. The rules:
//   - schema_version must be 1;
//   - a row for an agent known rejects (or whose name is malformed) is a Notice and is skipped,
//     whatever it holds;
//   - tier is required and one of the closed set;
//   - fan_out is refused below 0, means Ceiling at 0 or absent, and is reported and clamped to Ceiling
//     above it;
//   - settings: at most 16, keys match ^[a-z][a-z0-9_]{0,63}$, values are strings, numbers or booleans
//     whose decoded form is at most 256 bytes and holds no control, bidirectional-control or
//     zero-width character; a setting a provider takes (temperature, max_tokens, ...) has a value
//     the provider accepts, of its type and in its range.
func CheckTable(origin string, f RoutingFile, known func(agent string) bool) (Table, []Notice, error) {
	if f.SchemaVersion != 1 {
		return nil, nil, &RowError{Origin: origin, Field: "schema_version",
			Msg: fmt.Sprintf("is %d; this abcd reads version 1: set \"schema_version\": 1", f.SchemaVersion)}
	}
	table := make(Table, len(f.Agents))
	var notices []Notice
	for _, agent := range slices.Sorted(maps.Keys(f.Agents)) {
		if !agentPattern.MatchString(agent) || (known != nil && !known(agent)) {
			notices = append(notices, Notice{Origin: origin, Agent: text.Clip(agent),
				Message: fmt.Sprintf("agent %s is not in the roster; row skipped", echo(agent))})
			continue
		}
		row := f.Agents[agent]
		fail := func(field, msg string) (Table, []Notice, error) {
			return nil, nil, &RowError{Origin: origin, Agent: agent, Field: field, Msg: msg}
		}
		switch {
		case row.Tier == "":
			return fail("tier", fmt.Sprintf("is required: give one of %s", TierList()))
		case !row.Tier.Valid():
			return fail("tier", fmt.Sprintf("%s is not one of %s", echo(string(row.Tier)), TierList()))
		case row.FanOut < 0:
			return fail("fan_out", fmt.Sprintf("is %d, below 0: give a number from 1 to %d, or leave it out for %d", row.FanOut, Ceiling, Ceiling))
		case row.FanOut == 0:
			row.FanOut = Ceiling
		case row.FanOut > Ceiling:
			notices = append(notices, Notice{Origin: origin, Agent: agent,
				Message: fmt.Sprintf("agent %s: fan_out %d is above the contract ceiling %d; clamped to %d", agent, row.FanOut, Ceiling, Ceiling)})
			row.FanOut = Ceiling
		}
		if field, msg := checkSettings(row.Settings); msg != "" {
			return fail(field, msg)
		}
		if field, msg := checkProviderValues(row.Settings); msg != "" {
			return fail(field, msg)
		}
		row.Settings = maps.Clone(row.Settings)
		table[agent] = row
	}
	return table, notices, nil
}
