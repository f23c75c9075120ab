package setup

import (
	"fmt"
	"slices"

	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
)

// connectAgents are the agents named, each once, in the loop's order.
func connectAgents(in []runner.Agent) []string {
	out := []string{}
	for _, r := range review.Roles() {
		if slices.Contains(in, runner.Agent(r)) {
			out = append(out, string(r))
		}
	}
	return out
}

// agentRoute is where the machine sends an agent today: kind is "runner" or "connection" (a
// provider), and name the route's; kind is "" when the agent goes where routing decides.
type agentRoute struct{ kind, name string }

// routeInMachine reads an agent's route from the loaded machine.
func routeInMachine(providers *provider.Machine, runners *runner.Machine) func(agent string) agentRoute {
	return func(agent string) agentRoute {
		if r, ok := runners.Sent(agent); ok {
			return agentRoute{"runner", r.Runner}
		}
		if c, ok := providers.Pointed(agent); ok {
			return agentRoute{"connection", c.Name}
		}
		return agentRoute{}
	}
}

// routeInDoc reads an agent's route from the machine file's roles object.
func routeInDoc(roles map[string]any) func(agent string) agentRoute {
	return func(agent string) agentRoute {
		role, _ := roles[agent].(map[string]any)
		for _, kind := range []string{"runner", "connection"} {
			if name, ok := role[kind].(string); ok && name != "" {
				return agentRoute{kind, name}
			}
		}
		return agentRoute{}
	}
}

// rolesRefusal refuses an agent the machine sends to another route than the runner name; an agent
// already sent to name itself is no change.
func rolesRefusal(verb, name, path string, agents []string, routeOf func(string) agentRoute) error {
	for _, agent := range agents {
		rt := routeOf(agent)
		if rt.kind == "" || (rt.kind == "runner" && rt.name == name) {
			continue
		}
		key := "oracle.roles." + agent + "." + rt.kind
		what := "runner"
		if rt.kind == "connection" {
			what = "provider"
		}
		return refusal.New(refusal.CodeRoleRouted, "", fmt.Sprintf("%s is already sent to %s %s (%s in %s), and abcd never moves an agent silently; nothing was written", agent, what, rt.name, key, path),
			"remove "+key+" from "+path+" (or ", refusal.Run("ahoy_disconnect", refusal.With("name", rt.name)), ", which removes every role pointing at it), then connect again; or connect without this role").On(verb, "roles")
	}
	return nil
}

// sendAgents writes oracle.roles.<agent>.runner = name for each agent into the machine file's oracle
// object, keeping what an agent already sent to name has (its model), and says which agents the
// runner now takes, in the loop's order: those named, and those the file already sent to it.
func sendAgents(oracleNS map[string]any, name string, agents []string) []string {
	if len(agents) == 0 {
		return runnerAgents(oracleNS, name)
	}
	roles := child(oracleNS, "roles")
	for _, agent := range agents {
		role, ok := roles[agent].(map[string]any)
		if !ok {
			role = map[string]any{}
			roles[agent] = role
		}
		role["runner"] = name
	}
	return runnerAgents(oracleNS, name)
}

// runnerAgents are the agents the machine file's roles send to runner name, in the loop's order.
func runnerAgents(oracleNS map[string]any, name string) []string {
	roles, _ := oracleNS["roles"].(map[string]any)
	out := []string{}
	for _, r := range review.Roles() {
		if routeInDoc(roles)(string(r)) == (agentRoute{"runner", name}) {
			out = append(out, string(r))
		}
	}
	return out
}
