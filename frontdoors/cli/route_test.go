package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
)

// hasRouteFlag reports whether --route applies to cmd, declared on it or inherited.
func hasRouteFlag(cmd *cobra.Command) bool {
	return cmd.Flags().Lookup("route") != nil || cmd.PersistentFlags().Lookup("route") != nil ||
		cmd.InheritedFlags().Lookup("route") != nil
}

// TestRouteFlagFollowsDispatches holds the commands to the table: a verb that dispatches an agent
// offers --route, and a verb that dispatches none does not.
func TestRouteFlagFollowsDispatches(t *testing.T) {
	root := NewRoot(newApp(factsInitialized), &IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		name, ok := c.Annotations["verb"]
		if c == root {
			name, ok = "status", true // bare abcd runs the status verb
		}
		if ok {
			v, found := app.Lookup(name)
			assert.Assert(t, found, "command %q claims verb %q, which the table does not declare", c.CommandPath(), name)
			seen[name] = true
			if len(v.Dispatches) > 0 {
				assert.Check(t, hasRouteFlag(c), "%q runs %s, which dispatches %v, but has no --route", c.CommandPath(), name, v.Dispatches)
			} else {
				assert.Check(t, !hasRouteFlag(c), "%q runs %s, which dispatches nothing, but offers --route", c.CommandPath(), name)
			}
		} else {
			assert.Check(t, !hasRouteFlag(c), "%q runs no verb but offers --route", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, v := range app.Table() {
		assert.Check(t, seen[v.Name], "verb %s has no command to check", v.Name)
	}
}

func TestRouteFlagRefusesAnAgentTheVerbDoesNotDispatch(t *testing.T) {
	a := newApp(factsInitialized)
	cmd := &cobra.Command{Use: "throwaway", RunE: func(*cobra.Command, []string) error { return nil }}
	var texts []string
	routeFlag(cmd, &texts)
	routes := func() (map[string]oracle.FlagRoute, error) { return a.Routes("status", texts) }

	f := cmd.Flags().Lookup("route")
	assert.Assert(t, f != nil, "routeFlag registered no --route")
	assert.Check(t, is.Contains(f.Usage, oracle.RouteGrammar), "the help names the grammar")
	assert.Check(t, is.Contains(f.Usage, oracle.TierList()), "the help names the tiers")

	// No flag given: nothing routed, nothing refused.
	got, err := routes()
	assert.NilError(t, err)
	assert.Check(t, is.Len(got, 0))

	assert.NilError(t, cmd.Flags().Parse([]string{"--route", "ruthless-reviewer=frontier"}))
	_, err = routes()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal, got %v", err)
	assert.Check(t, is.Equal(r.Code, "route_invalid"))
	assert.Check(t, is.Equal(r.Kind, refusal.Refused))
	assert.Check(t, is.Contains(r.What, "ruthless-reviewer=frontier"), "the refusal quotes the flag")
	assert.Check(t, is.Contains(r.Remedy, oracle.RouteGrammar), "the refusal quotes the grammar")
	assert.Check(t, is.Equal(refusal.DocumentOf(err).ExitCode, 2))
}

func TestRouteFlagRepeats(t *testing.T) {
	a := newApp(factsInitialized)
	cmd := &cobra.Command{Use: "throwaway"}
	var texts []string
	routeFlag(cmd, &texts)
	routes := func() (map[string]oracle.FlagRoute, error) { return a.Routes("status", texts) }
	// A value holding a comma stays one flag: settings are comma-separated inside it.
	assert.NilError(t, cmd.Flags().Parse([]string{"--route", "intent-auditor=local?a=1,b=2", "--route=ruthless-reviewer=economy"}))
	vals, err := cmd.Flags().GetStringArray("route")
	assert.NilError(t, err)
	assert.DeepEqual(t, vals, []string{"intent-auditor=local?a=1,b=2", "ruthless-reviewer=economy"})
	_, err = routes()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal, got %v", err)
	assert.Check(t, is.Equal(r.Code, "route_invalid"))
}
