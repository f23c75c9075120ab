// Package view holds the build loop's views of a run: what its verbs answer (a run's standing, its
// lanes and awaits, its whole story), apart from the use cases that make them.
package view

import (
	"sort"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// RunUnknown is a run whose state cannot be read: its kind is not known.
const RunUnknown = "unknown"

// AwaitView is an open await: who is waited on, the brief to hand them and where they write.
type AwaitView struct {
	ID      string                `json:"id"`
	Lane    string                `json:"lane"`
	Kind    string                `json:"kind"`
	Role    string                `json:"role"`
	Round   int                   `json:"round" jsonschema:"minimum=0"`
	Brief   string                `json:"brief"`
	Return  string                `json:"return"`
	Routing oracle.RequestRouting `json:"routing"`
	// Next is what the harness does for the await: the agent to start and the return to hand in.
	Next hint.Next `json:"next"`
}

// LaneView is a lane's standing.
type LaneView struct {
	ID     string `json:"id"`
	Step   int    `json:"step" jsonschema:"minimum=0"`
	Text   string `json:"text"`
	Branch string `json:"branch"`
	Stage  string `json:"stage"`
	Round  int    `json:"round" jsonschema:"minimum=0"`
	Failed int    `json:"failed" jsonschema:"minimum=0"`
	Head   string `json:"head"`
	// After lists the lanes this one builds on; Integration marks the spec run's integration lane.
	After       []string `json:"after"`
	Integration bool     `json:"integration"`
	// Start is the commit the lane started from; Worktree its own checkout (absolute), "" before
	// the lane starts and once the run is over.
	Start    string `json:"start"`
	Worktree string `json:"worktree"`
	// Findings is why a lane was handed back, what its failed round found, or the merge by hand it
	// waits for.
	Findings string `json:"findings"`
	// KeptFrom is <run>/<lane> when an earlier run of the spec delivered the lane and this run took
	// it over at that head, not doing it again; "" otherwise.
	KeptFrom string `json:"kept_from"`
}

// RunView is one run's standing.
type RunView struct {
	Run      string `json:"run"`
	Kind     string `json:"kind"`
	Spec     string `json:"spec"`
	Intent   string `json:"intent"`
	Base     string `json:"base"`
	Finished bool   `json:"finished"`
	// Problem says why a run could not be read ("" for every readable run).
	Problem string      `json:"problem"`
	Lanes   []LaneView  `json:"lanes"`
	Awaits  []AwaitView `json:"awaits"`
	// FallbacksByRoute and FallbacksByRole count the steps a route did not take, which the host took.
	FallbacksByRoute []FallbackCount `json:"fallbacks_by_route"`
	FallbacksByRole  []FallbackCount `json:"fallbacks_by_role"`
	// Unfenced names each step a runner ran outside abcd's sandbox (its block says "sandbox": "off"):
	// its lane, role, round and runner.
	Unfenced []string `json:"unfenced" jsonschema:"maxItems=4096"`
	// Spend is what the run's recorded steps have cost so far: in all, per lane, role and route.
	Spend loop.Spending `json:"spend"`
	// Finish is how the finished run was taken where the team works (build.finish merge or pr):
	// the branch fast-forwarded, or the pull request opened; absent while it is not.
	Finish *loop.Finished `json:"finish,omitempty"`
}

// RecordVerdictView is one verdict in a run's story.
type RecordVerdictView struct {
	Lane     string `json:"lane"`
	Round    int    `json:"round" jsonschema:"minimum=0"`
	Role     string `json:"role"`
	Word     string `json:"word"`
	Pass     bool   `json:"pass"`
	Tier     string `json:"tier"`
	Route    string `json:"route"`
	Ran      string `json:"ran"`
	Return   string `json:"return"`
	SHA256   string `json:"sha256"`
	Findings string `json:"findings"`
	// Receipt is the route block: what was asked, tried and used, and why they differ.
	Receipt oracle.Receipt `json:"receipt"`
	// Call is what a provider reported of the call, when one answered.
	Call CallView `json:"call"`
	// Sessions are the keys of the captured harness sessions that served this review (History).
	Sessions []string `json:"sessions"`
	// Runner is the runner's receipt, when a runner answered.
	Runner *runner.Receipt `json:"runner,omitempty"`
	// At is when the verdict was recorded.
	At string `json:"at"`
	// Criteria are the auditor's verdicts one criterion each, read back from its return (empty for a
	// reviewer's verdict); AuditNote says why they could not be, when they could not.
	Criteria  []review.CriterionVerdict `json:"criteria"`
	AuditNote string                    `json:"audit_note"`
}

// FallbackView is a fallback receipt.
type FallbackView struct {
	At     string `json:"at"`
	Lane   string `json:"lane"`
	Round  int    `json:"round" jsonschema:"minimum=0"`
	Role   string `json:"role"`
	Asked  string `json:"asked"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Ran    string `json:"ran"`
	// Cause is a runner's cause and Runner its receipt, when the route that fell back was a runner.
	Cause  runner.Cause    `json:"cause,omitempty"`
	Runner *runner.Receipt `json:"runner,omitempty"`
}

// ImplementRecordResult is a run's whole story.
type ImplementRecordResult struct {
	Run             RunView              `json:"run"`
	Implementations []ImplementationView `json:"implementations"`
	Verdicts        []RecordVerdictView  `json:"verdicts"`
	Fallbacks       []FallbackView       `json:"fallbacks"`
	ByRoute         []Count              `json:"by_route"`
	ByRole          []Count              `json:"by_role"`
	// History is the captured harness sessions that served the run's steps, from this machine's
	// history (abcd history); each implementation and verdict names its own.
	History history.RunHistory `json:"history"`
	// Started is when the run was created.
	Started string `json:"started"`
	// Markdown and HTML are the same story told for a pull request or an issue (with the lane graph
	// as a Mermaid block) and as one self-contained page, each only when asked for.
	Markdown string `json:"markdown,omitempty"`
	HTML     string `json:"html,omitempty"`
}

// CallView is what a provider reported of the call that answered a step; empty for the host and rp.
type CallView struct {
	Provider       string `json:"provider"`
	ModelAsked     string `json:"model_asked"`
	ModelReported  string `json:"model_reported"`
	SchemaEnforced bool   `json:"schema_enforced"`
	TokensIn       int    `json:"tokens_in" jsonschema:"minimum=0"`
	TokensOut      int    `json:"tokens_out" jsonschema:"minimum=0"`
	// CostUSD is what the call cost, and CostSource where the figure came from: priced (the
	// provider block's prices for the model that answered), unmetered (its billing is a
	// subscription) or unknown (0: no price, or no tokens reported).
	CostUSD    float64           `json:"cost_usd" jsonschema:"minimum=0"`
	CostSource runner.CostSource `json:"cost_source"`
}

// FallbackCount is how many steps asked of a route, or of a role, fell back to the host.
type FallbackCount struct {
	Name  string `json:"name"`
	Total int    `json:"total" jsonschema:"minimum=1"`
}

// ImplementationView is an implementer's recorded receipt.
type ImplementationView struct {
	Lane    string   `json:"lane"`
	Round   int      `json:"round" jsonschema:"minimum=0"`
	Commits []string `json:"commits"`
	Head    string   `json:"head"`
	Model   string   `json:"model"`
	// Receipt is the route block of the implementer's step: the route that ran it (the harness, or a
	// runner), and the model it names is the model reported.
	Receipt oracle.Receipt `json:"receipt"`
	// Sessions are the keys of the captured harness sessions that served this step (History).
	Sessions []string `json:"sessions"`
	// Runner is the runner's receipt, when a runner took the step (abcd's commit is its commits).
	Runner *runner.Receipt `json:"runner,omitempty"`
	// At is when the receipt was recorded.
	At string `json:"at"`
}

// Count is how many verdicts a route or a role gave.
type Count struct {
	Name   string `json:"name"`
	Total  int    `json:"total" jsonschema:"minimum=0"`
	Passed int    `json:"passed" jsonschema:"minimum=0"`
	Failed int    `json:"failed" jsonschema:"minimum=0"`
}

func (AwaitView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"kind": contract.Enum(loop.AwaitKinds()...)}
}

func (LaneView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"stage": contract.Enum(loop.Stages()...)}
}

func (RunView) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"kind": contract.Enum(append(core.Strs(loop.Kinds()...), RunUnknown)...)}
}

// CallOf is what a provider reported of the call a verdict came from; empty, of unknown cost, unless
// a provider ran (a call recorded before abcd priced one reads unknown).
func CallOf(v loop.Verdict) CallView {
	if v.Answered.Runner != nil || v.Answered.ModelAsked == "" && v.Answered.ModelReported == "" {
		return CallView{CostSource: runner.CostUnknown}
	}
	c := CallView{Provider: v.Answered.Route, ModelAsked: v.Answered.ModelAsked, ModelReported: v.Answered.ModelReported,
		SchemaEnforced: v.Answered.SchemaEnforced, TokensIn: v.Answered.TokensIn, TokensOut: v.Answered.TokensOut,
		CostUSD: v.Answered.CostUSD, CostSource: v.Answered.CostSource}
	if !c.CostSource.Valid() {
		c.CostUSD, c.CostSource = 0, runner.CostUnknown
	}
	return c
}

// FallbackCounts counts a run's fallbacks per route asked and per role.
func FallbackCounts(s loop.State) (byRoute, byRole []FallbackCount) {
	count := func(key func(loop.Fallback) string) []FallbackCount {
		m := map[string]int{}
		for _, f := range s.Fallbacks {
			m[key(f)]++
		}
		out := []FallbackCount{}
		for name, n := range m {
			out = append(out, FallbackCount{Name: name, Total: n})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out
	}
	return count(func(f loop.Fallback) string { return f.Asked }), count(func(f loop.Fallback) string { return f.Role })
}
