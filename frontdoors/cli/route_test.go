package cli

import (
	"context"
	"encoding/json"
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

func TestRouteFlagOffersTheGrammar(t *testing.T) {
	f := routeFlag()
	assert.Check(t, is.Equal(f.flag, "route"))
	assert.Check(t, is.Equal(f.name, "routes"))
	assert.Check(t, is.Equal(f.kind, listField))
	assert.Check(t, is.Contains(f.usage, oracle.RouteGrammar), "the help names the grammar")
	assert.Check(t, is.Contains(f.usage, oracle.TierList()), "the help names the tiers")
}

// A --route for an agent the verb does not dispatch is refused before anything runs, naming the flag
// as the person typed it; a value holding a comma stays one flag.
func TestRouteFlagRefusesAnAgentTheVerbDoesNotDispatch(t *testing.T) {
	for _, args := range [][]string{
		{"implement", "step", "--route", "nobody=frontier"},
		{"review", "--route", "intent-auditor=local?a=1,b=2", "--route=ruthless-reviewer=economy"},
	} {
		var out, errOut strings.Builder
		s := &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}
		root := NewRoot(newApp(factsInitialized), s)
		code := Execute(context.Background(), root, s, append(args, "--json"))
		assert.Check(t, is.Equal(code, 2), "%v", args)
		var doc refusal.Document
		assert.NilError(t, json.Unmarshal([]byte(out.String()), &doc), out.String())
		assert.Check(t, is.Equal(doc.Code, refusal.CodeRouteInvalid), "%v", args)
		assert.Check(t, is.Contains(doc.What, "--route"), "%v: the refusal names the flag", args)
		assert.Check(t, is.Contains(doc.Remedy, oracle.RouteGrammar), "%v: the refusal quotes the grammar", args)
	}
}
