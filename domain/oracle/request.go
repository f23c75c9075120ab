package oracle

import (
	"maps"

	"github.com/abcd-dev/abcd/domain/text"
)

// RequestRouting is the routing member on every step that hands work to an agent: the tier and bound
// the step asks for, the layer that decided them, and where the step goes.
type RequestRouting struct {
	Agent      string `json:"agent" jsonschema:"pattern=^[a-z][a-z0-9-]*$,maxLength=64"`
	Tier       Tier   `json:"tier"`
	FanOut     int    `json:"fan_out" jsonschema:"minimum=1"`
	Source     Source `json:"source"`
	Origin     string `json:"origin"`
	Override   string `json:"override" jsonschema:"maxLength=1024"`
	Connection string `json:"connection"`
	Fallback   string `json:"fallback"`
}

// Request renders the route as a request's routing member.
func (r Route) Request() RequestRouting {
	return RequestRouting{
		Agent:      r.Agent,
		Tier:       r.Row.Tier,
		FanOut:     r.Row.FanOut,
		Source:     r.Source,
		Origin:     r.Origin,
		Override:   r.Override,
		Connection: r.Connection.Name,
		Fallback:   r.Fallback,
	}
}

// Receipt renders the route block of the step's receipt. tried and used name the connections the step
// was tried on and ran on; fallbackReason says why they differ from the route ("" takes the route's
// own Fallback); modelReported is what the host or provider said ran, bounded to 200 bytes on a rune
// boundary. SettingsSent is what was sent: the route's merged settings when a connection ran the
// step, and nothing (an empty map, never nil) when the harness did, since nothing reaches it.
func (r Route) Receipt(tried, used, fallbackReason, modelReported string) Receipt {
	if fallbackReason == "" {
		fallbackReason = r.Fallback
	}
	sent := Settings{}
	if used != "" && used != HarnessName {
		sent = maps.Clone(r.Settings)
		if sent == nil {
			sent = Settings{}
		}
	}
	return Receipt{
		Agent:           r.Agent,
		TierAsked:       r.Row.Tier,
		ConnectionTried: tried,
		ConnectionUsed:  used,
		FallbackReason:  fallbackReason,
		Override:        r.Override,
		SettingsSent:    sent,
		ModelReported:   boundModel(modelReported),
	}
}

// boundModel keeps a reported model to MaxModelReported bytes of valid UTF-8, "…" included when cut.
func boundModel(s string) string {
	s = toValidUTF8(s)
	if len(s) <= MaxModelReported {
		return s
	}
	return text.Prefix(s, MaxModelReported-len("…")) + "…"
}
