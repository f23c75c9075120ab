package oracle

import (
	"errors"
	"testing"
)

// FuzzParseRoutes: ParseRoutes never panics; a route it accepts has a tier in the set, its text
// verbatim within 1024 bytes, an agent the invocation dispatches, a configured connection, and
// settings that pass the row rules; the same flag twice is always refused.
func FuzzParseRoutes(f *testing.F) {
	for _, seed := range []string{
		"intent-auditor=frontier",
		"ruthless-reviewer=economy@openrouter?temperature=0.2,stream=true,effort=high",
		"security-reviewer=host-decides@",
		"=local",
		"intent-auditor=local?a=1,a=2",
		"intent-auditor=frontier?note=\u202e",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, flag string) {
		routes, err := ParseRoutes([]string{flag}, dispatchAll, configuredOpenRouter)
		if err != nil {
			var re *RouteError
			if !errors.As(err, &re) {
				t.Fatalf("error %T, want a *RouteError", err)
			}
			if len(re.Flag) > 80+len("…") {
				t.Fatalf("RouteError.Flag is %d bytes", len(re.Flag))
			}
			return
		}
		if len(routes) != 1 {
			t.Fatalf("%d routes from one flag", len(routes))
		}
		for agent, r := range routes {
			if !r.Tier.Valid() {
				t.Fatalf("tier %q is not in the set", r.Tier)
			}
			if len(r.Text) > MaxRouteBytes || r.Text != flag {
				t.Fatalf("text %d bytes, verbatim %v", len(r.Text), r.Text == flag)
			}
			if agent != r.Agent || !ValidAgentName(agent) {
				t.Fatalf("agent %q keyed %q", r.Agent, agent)
			}
			if r.Connection != "" && !configuredOpenRouter(r.Connection) {
				t.Fatalf("connection %q is not configured", r.Connection)
			}
			if field, msg := checkSettings(r.Settings); msg != "" {
				t.Fatalf("settings: %s %s", field, msg)
			}
			if _, err := Resolve(agent, Layers{Flag: &r}, Configured{}, nil); err != nil && r.Connection == "" {
				t.Fatalf("Resolve refused an accepted flag without a connection: %v", err)
			}
		}
		if _, err := ParseRoutes([]string{flag, flag}, dispatchAll, configuredOpenRouter); err == nil {
			t.Fatal("the same flag twice was accepted")
		}
	})
}
