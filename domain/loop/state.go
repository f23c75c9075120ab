// Package loop is the build loop as a state machine: a run's lanes, their stages, the awaits handed
// to agents, and the validation rounds. It is pure: the use cases read and write the state file,
// render briefs and talk to git; every rule about what happens next lives here.
package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// SchemaVersion is the state file's version. Version 2 added lanes that build on others, lane
// worktrees, the integration lane and the base's name; a version 1 state is read and stepped as it
// was written (its spec runs have no integration lane, and the auditor joins the last lane).
const SchemaVersion = 2

// oldestVersion is the oldest state version this abcd reads.
const oldestVersion = 1

// MaxStateBytes bounds the state file.
const MaxStateBytes = 4 << 20

// DefaultFixRounds is how many failed rounds a lane may have before it is handed back.
const DefaultFixRounds = 3

// Kind is what a run is for.
type Kind string

const (
	KindSpec   Kind = "spec"   // implement start: a spec's steps as lanes
	KindReview Kind = "review" // abcd review: one lane, the branch's changes, reviewers only
	KindAudit  Kind = "audit"  // abcd intent audit: one lane, the intent-auditor only
)

// Stage is where a lane stands.
type Stage string

const (
	StageWaiting    Stage = "waiting" // a spec lane before it starts: on the lanes it builds on, or the integration
	StageBrief      Stage = "brief"
	StageImplement  Stage = "implement"
	StageValidate   Stage = "validate"
	StageFix        Stage = "fix"
	StageDone       Stage = "done"
	StageHandedBack Stage = "handed-back"
)

// AwaitKind is what an agent is waited on for.
type AwaitKind string

const (
	AwaitImplement AwaitKind = "implement"
	AwaitFix       AwaitKind = "fix"
	AwaitReview    AwaitKind = "review"
	AwaitAudit     AwaitKind = "audit"
)

// Roles of the loop's agents.
const (
	RoleImplementer = "implementer"
	RoleRuthless    = "ruthless-reviewer"
	RoleSecurity    = "security-reviewer"
	RoleAuditor     = "intent-auditor"
)

// State is a run's whole story, as <layout.Runs>/<run>/state.json holds it.
type State struct {
	SchemaVersion int      `json:"schema_version"`
	Run           string   `json:"run"`
	Kind          Kind     `json:"kind"`
	Spec          string   `json:"spec"`
	Intent        string   `json:"intent"`
	Criteria      []string `json:"criteria"`
	Base          string   `json:"base"`
	Created       string   `json:"created"`
	DoD           string   `json:"dod"`
	// DoDEnv names the variables the definition of done is given beside a runner's allowlist when abcd
	// runs it on a runner's work (build.dod_env when the run started).
	DoDEnv     []string `json:"dod_env,omitempty"`
	FixRounds  int      `json:"fix_rounds"`
	Validators []string `json:"validators"`
	// BaseRef is the name the base was given by (a branch, HEAD~3) when the run started.
	BaseRef string `json:"base_ref"`
	// Routes are the --route flags a step was given, kept so every await the run opens later
	// (from a receipt) is routed by them too.
	Routes    []string   `json:"routes"`
	Lanes     []Lane     `json:"lanes"`
	Fallbacks []Fallback `json:"fallbacks"`
	// Changes counts every recorded change, so a reader can tell two states apart.
	Changes int `json:"changes"`
	Counter int `json:"counter"`
	// Finish is how the finished run was taken where the team works (build.finish merge or pr), once
	// it was; nil while it is not (a run that ends as its branch never has one).
	Finish *Finished `json:"finish,omitempty"`
}

// Lane is one step of the spec (or the one lane of a review or audit run), or a spec run's
// integration lane, where every delivered lane is merged and the intent-auditor audits the whole.
type Lane struct {
	ID     string `json:"id"`
	Step   int    `json:"step"`
	Text   string `json:"text"`
	Branch string `json:"branch"`
	Stage  Stage  `json:"stage"`
	// After names the lanes this one builds on: it starts once they are done, from their heads.
	After []string `json:"after"`
	// Integration marks the spec run's integration lane.
	Integration bool `json:"integration"`
	// Start is the commit the lane's branch started at: the run's base, or what it builds on merged.
	Start string `json:"start"`
	// Worktree is the lane's own checkout, relative to the repository root; "" before the lane
	// starts and once the run is over.
	Worktree string `json:"worktree"`
	// Delivered is set once the lane's line is in the spec's Progress section.
	Delivered bool `json:"delivered"`
	// KeptFrom is <run>/<lane> when the lane was delivered by an earlier run of the spec and this run
	// took it over as it stood (Carry): it starts done at that lane's head; "" otherwise.
	KeptFrom        string            `json:"kept_from,omitempty"`
	Head            string            `json:"head"`
	Round           int               `json:"round"`
	Failed          int               `json:"failed"`
	Tiers           map[string]string `json:"tiers"`
	Awaits          []Await           `json:"awaits"`
	Rounds          []Round           `json:"rounds"`
	Implementations []Implementation  `json:"implementations"`
	Findings        string            `json:"findings"`
	// Conflict is the merge the lane's start (or the integration) stopped on, made by hand in the
	// lane's worktree before the run goes on; empty otherwise.
	Conflict Conflict `json:"conflict"`
	// Checks are build.dod as abcd ran it on the lane's head before each round's validators.
	Checks []Check `json:"checks"`
}

// Conflict is a merge of one lane's head into another lane's branch that git could not make: the
// lane whose head it is, that head, and the files git named. The branch and its worktree stay as they
// were before the merge, for a person to make it by hand.
type Conflict struct {
	With  string   `json:"with"`
	Head  string   `json:"head"`
	Files []string `json:"files"`
}

// Await is work handed to an agent: the brief it reads and the path it writes its return to.
type Await struct {
	ID      string    `json:"id"`
	Kind    AwaitKind `json:"kind"`
	Role    string    `json:"role"`
	Round   int       `json:"round"`
	Brief   string    `json:"brief"`
	Return  string    `json:"return"`
	Routing Routing   `json:"routing"`
	Opened  string    `json:"opened"`
	// Answered is the route's answer placed at the return path: the route and the answer's SHA-256,
	// so a receipt of those same bytes is credited to the route; empty otherwise.
	Answered Answer `json:"answered"`
}

// Answer is what a route beside the host answered with, as the state keeps it: the route, the
// digest of the return it placed, and what a provider reported of the call.
type Answer struct {
	Route          string `json:"route"`
	SHA256         string `json:"sha256"`
	ModelAsked     string `json:"model_asked"`
	ModelReported  string `json:"model_reported"`
	SchemaEnforced bool   `json:"schema_enforced"`
	TokensIn       int    `json:"tokens_in"`
	TokensOut      int    `json:"tokens_out"`
	// CostUSD is what a provider's call cost and CostSource where the figure came from (its block's
	// prices, a subscription, or unknown); "" for every other route and a state written before.
	CostUSD    float64           `json:"cost_usd,omitempty"`
	CostSource runner.CostSource `json:"cost_source,omitempty"`
	// Settings are the settings sent with the call, each as its JSON text.
	Settings map[string]string `json:"settings"`
	// Runner is the runner's receipt when a runner took the step (the CLI and its version, the models,
	// the terminal event, the counts, the commits abcd made); absent for every other route.
	Runner *runner.Receipt `json:"runner,omitempty"`
}

// Routing is the route an await asked for, from the routing table.
type Routing struct {
	Agent      string `json:"agent"`
	Tier       string `json:"tier"`
	FanOut     int    `json:"fan_out"`
	Source     string `json:"source"`
	Origin     string `json:"origin"`
	Override   string `json:"override"`
	Connection string `json:"connection"`
	Fallback   string `json:"fallback"`
	// Route is the validator route asked for (host or rp), and Ran the one that took the step.
	Route string `json:"route"`
	Ran   string `json:"ran"`
	// FellBack is the fallback reason once the route beside the host gave the step up: from then on
	// the step is the host's alone, and nothing says the route is still taking it. "" while the
	// route has it, and for a step asked of the host.
	FellBack string `json:"fell_back"`
	// Worker is the process calling the route while it works on the step: its pid, for a person to
	// read, and the lock it holds in the run's folder (workers/<lock>), which a later step tries to
	// say whether it still runs. Zero for a step asked of the host.
	Worker Worker `json:"worker"`
}

// Worker is a process calling a route beside the host for an await.
type Worker struct {
	PID  int    `json:"pid"`
	Lock string `json:"lock"`
}

// RouteWorking reports whether a route beside the host is still taking the await's step: asked of
// one, not fallen back, not answered.
func (a Await) RouteWorking() bool {
	r := a.Routing
	return r.Route != "" && r.Route != "host" && r.FellBack == "" && a.Answered.Route == ""
}

// Round is one validation round of a lane.
type Round struct {
	N        int       `json:"n"`
	Verdicts []Verdict `json:"verdicts"`
}

// Verdict is one validator's verified return.
type Verdict struct {
	Role     string  `json:"role"`
	Word     string  `json:"word"`
	Pass     bool    `json:"pass"`
	Findings string  `json:"findings"`
	Return   string  `json:"return"`
	SHA256   string  `json:"sha256"`
	Routing  Routing `json:"routing"`
	At       string  `json:"at"`
	// Answered is the route's answer this verdict was recorded from; empty for a host return.
	Answered Answer `json:"answered"`
	// Await is the id of the await the verdict closed (as Implementation.Await).
	Await string `json:"await"`
}

// Implementation is an implementer's verified receipt: the first one, or a fix after a failed round.
type Implementation struct {
	Round   int      `json:"round"`
	Commits []string `json:"commits"`
	Head    string   `json:"head"`
	Model   string   `json:"model"`
	Receipt string   `json:"receipt"`
	At      string   `json:"at"`
	// Report is abcd's copy of the implementer's report as it was handed in, beside the receipt, so a
	// later round's report never takes its place; "" when none could be kept.
	Report string `json:"report"`
	// Uncommitted lists the files the implementer left uncommitted in the lane's worktree when the
	// receipt was recorded: not part of the change, and the reviewers are told so.
	Uncommitted []string `json:"uncommitted"`
	// Blocked is why the implementer handed the step back instead of delivering it; "" otherwise.
	Blocked string `json:"blocked"`
	// Await is the id of the await the receipt closed, so the step's sessions (abcd history) still
	// find it once the await is gone; "" in a state written before it was kept.
	Await string `json:"await"`
	// Answered is the route's answer this receipt was recorded from (a runner's, with its receipt);
	// absent for a host's receipt.
	Answered *Answer `json:"answered,omitempty"`
}

// Fallback is a route that did not return: the step went to the host with the same brief.
type Fallback struct {
	At     string `json:"at"`
	Lane   string `json:"lane"`
	Round  int    `json:"round"`
	Role   string `json:"role"`
	Asked  string `json:"asked"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Ran    string `json:"ran"`
	// Cause is a runner's closed cause (runner.Cause) and Runner its receipt, when the route that
	// fell back was a runner; absent otherwise.
	Cause  string          `json:"cause,omitempty"`
	Runner *runner.Receipt `json:"runner,omitempty"`
}

// Decode reads a state file strictly: bounded, one object, no duplicate or unknown key, nothing
// trailing, this schema version.
func Decode(file string, data []byte) (State, error) {
	if len(data) > MaxStateBytes {
		return State{}, fmt.Errorf("%s is larger than %d bytes", file, MaxStateBytes)
	}
	if err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: MaxStateBytes, MaxDepth: 32}); err != nil {
		return State{}, fmt.Errorf("%s: %s", file, strictjson.Describe(err))
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return State{}, fmt.Errorf("%s: %w", file, err)
	}
	if s.SchemaVersion < oldestVersion || s.SchemaVersion > SchemaVersion {
		return State{}, fmt.Errorf("%s declares schema_version %d; this abcd reads versions %d to %d", file, s.SchemaVersion, oldestVersion, SchemaVersion)
	}
	s = s.normalised()
	// encoding/json matches keys in any case; the state's keys must be exactly the ones abcd writes.
	// A file that is byte for byte what abcd writes for the state read has only those (the usual
	// case: abcd wrote it); any other is compared key by key.
	if want := Encode(s); bytes.Equal(data, want) {
		return s, nil
	} else if key, ok := unknownKey(data, want); !ok {
		return State{}, fmt.Errorf("%s: key %q is not one abcd writes (keys are case-sensitive)", file, text.Clip(key))
	}
	return s, nil
}

// Check refuses a decoded state whose values mean nothing to the machine: callers that are about to
// step a run check it after Decode, which checks only the shape.
func (s State) Check() error {
	switch s.Kind {
	case KindSpec, KindReview, KindAudit:
	default:
		return fmt.Errorf("kind %q is not spec, review or audit", text.Clip(string(s.Kind)))
	}
	if s.Run == "" {
		return fmt.Errorf("run is empty")
	}
	if s.FixRounds < 1 {
		return fmt.Errorf("fix_rounds is %d; at least 1", s.FixRounds)
	}
	if !ValidRunID(s.Run) {
		return fmt.Errorf("run %q is not a run id", text.Clip(s.Run))
	}
	if s.Base != "" && !isCommit(s.Base) {
		return fmt.Errorf("base %q is not a commit id", text.Clip(s.Base))
	}
	if s.Finish != nil {
		if err := s.Finish.Check(); err != nil {
			return err
		}
	}
	ids := map[string]bool{}
	for _, l := range s.Lanes {
		ids[l.ID] = true
	}
	dir := RunDir(s.Run) + "/"
	for _, l := range s.Lanes {
		what := "lane " + text.Clip(l.ID)
		switch {
		case !validLaneID(l.ID) || countID(s.Lanes, l.ID) > 1:
			return fmt.Errorf("lane id %q is not lane-<n> or integration, or is given twice", text.Clip(l.ID))
		case !validStage(l.Stage):
			return fmt.Errorf("%s has stage %q", what, text.Clip(string(l.Stage)))
		case l.Branch != "" && !validBranch(l.Branch):
			return fmt.Errorf("%s has branch %q, which is not a branch name", what, text.Clip(l.Branch))
		case s.Kind == KindSpec && l.Branch != "" && !strings.HasPrefix(l.Branch, "abcd/"+s.Run+"/"):
			return fmt.Errorf("%s has branch %q, not one of run %s", what, text.Clip(l.Branch), s.Run)
		case l.Worktree != "" && l.Worktree != WorktreeDir(s.Run, l.ID) && l.Worktree != OldWorktreeDir(s.Run, l.ID):
			return fmt.Errorf("%s has worktree %q; a lane's worktree is %s", what, text.Clip(l.Worktree), WorktreeDir(s.Run, l.ID))
		case l.Start != "" && !isCommit(l.Start), l.Head != "" && !isCommit(l.Head), l.Conflict.Head != "" && !isCommit(l.Conflict.Head):
			return fmt.Errorf("%s names a start or head that is not a commit id", what)
		case l.KeptFrom != "" && (l.Stage != StageDone || l.Integration || !keptFrom(l.KeptFrom)):
			return fmt.Errorf("%s is kept from %q, which is no <run>/<lane> of an earlier run, or the lane is not done", what, text.Clip(l.KeptFrom))
		case l.Conflict.With != "" && (!ids[l.Conflict.With] || l.Stage != StageWaiting || l.Worktree == ""):
			return fmt.Errorf("%s waits for a merge of %q by hand, which is no lane of the run, or the lane is not waiting in its worktree", what, text.Clip(l.Conflict.With))
		}
		for _, c := range l.Checks {
			if !isCommit(c.Head) || c.Round < 1 || c.Lines < 0 || c.Millis < 0 {
				return fmt.Errorf("%s has a check of build.dod that names no commit, no round, or a negative count", what)
			}
		}
		for _, a := range l.After {
			if !ids[a] || a == l.ID || a == IntegrationLane {
				return fmt.Errorf("%s builds on %q, which is no other step lane of the run", what, text.Clip(a))
			}
		}
		for _, aw := range l.Awaits {
			if !strings.HasPrefix(aw.Brief, dir) || !strings.HasPrefix(aw.Return, dir) || climbs(aw.Brief) || climbs(aw.Return) {
				return fmt.Errorf("%s has an await whose brief or return path is not inside %s", what, dir)
			}
		}
	}
	return nil
}

// WorktreeDir is a lane's worktree, relative to the repository root: in the lanes' folder beside
// .abcd/, never inside it (layout.Lanes says why).
func WorktreeDir(run, lane string) string { return LanesDir(run) + "/" + lane }

// OldWorktreeDir is where an earlier abcd made a lane's worktree, inside the run's folder. A state
// that records it is read and stepped as it stands: the path is the state's, not recomputed.
func OldWorktreeDir(run, lane string) string { return RunDir(run) + "/worktrees/" + lane }

func validStage(st Stage) bool {
	switch st {
	case StageWaiting, StageBrief, StageImplement, StageValidate, StageFix, StageDone, StageHandedBack:
		return true
	}
	return false
}

func countID(lanes []Lane, id string) int {
	n := 0
	for _, l := range lanes {
		if l.ID == id {
			n++
		}
	}
	return n
}

// validLaneID is lane-<digits> or the integration lane's id.
func validLaneID(id string) bool {
	if id == IntegrationLane {
		return true
	}
	n, ok := strings.CutPrefix(id, "lane-")
	if !ok || n == "" || len(n) > 6 {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isCommit is a full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
func isCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validBranch is a branch name git would take and a shell or a flag parser cannot misread: no
// leading dash, no white space, control character, "..", "~^:?*[\", no "//", not ending in "/",
// ".lock" or ".".
func validBranch(b string) bool {
	if b == "" || len(b) > 255 || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.HasSuffix(b, ".lock") || strings.HasSuffix(b, ".") || strings.Contains(b, "..") || strings.Contains(b, "//") ||
		strings.Contains(b, "@{") || strings.ContainsAny(b, " ~^:?*[\\") {
		return false
	}
	for _, r := range b {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// unknownKey reports the first object key of data (as a path) that want does not hold exactly.
func unknownKey(data, want []byte) (string, bool) {
	var got, ref any
	if json.Unmarshal(data, &got) != nil || json.Unmarshal(want, &ref) != nil {
		return "", false
	}
	return sameKeys(got, ref, "")
}

func sameKeys(got, ref any, path string) (string, bool) {
	switch g := got.(type) {
	case map[string]any:
		r, _ := ref.(map[string]any)
		for k, v := range g {
			rv, ok := r[k]
			if !ok {
				return path + "." + k, false
			}
			if key, ok := sameKeys(v, rv, path+"."+k); !ok {
				return key, false
			}
		}
	case []any:
		r, _ := ref.([]any)
		for i := range g {
			if i >= len(r) {
				return path, false
			}
			if key, ok := sameKeys(g[i], r[i], path); !ok {
				return key, false
			}
		}
	}
	return "", true
}

// Encode writes the state with every list and map present (never null).
func Encode(s State) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // findings quote code; escaping < > & would only grow the file
	enc.SetIndent("", "  ")
	_ = enc.Encode(s.normalised())
	return buf.Bytes()
}

func (s State) normalised() State {
	s.Lanes = append([]Lane(nil), s.Lanes...) // never write into the caller's lanes
	s.Criteria = nonNil(s.Criteria)
	s.Validators = nonNil(s.Validators)
	s.Routes = nonNil(s.Routes)
	if s.Lanes == nil {
		s.Lanes = []Lane{}
	}
	if s.Fallbacks == nil {
		s.Fallbacks = []Fallback{}
	}
	for i := range s.Lanes {
		l := &s.Lanes[i]
		if l.Tiers == nil {
			l.Tiers = map[string]string{}
		}
		if l.Awaits == nil {
			l.Awaits = []Await{}
		}
		for j := range l.Awaits {
			l.Awaits[j].Answered = l.Awaits[j].Answered.normalised()
		}
		l.After = nonNil(l.After)
		l.Conflict.Files = nonNil(l.Conflict.Files)
		if l.Checks == nil {
			l.Checks = []Check{}
		}
		if l.Rounds == nil {
			l.Rounds = []Round{}
		}
		for j := range l.Rounds {
			if l.Rounds[j].Verdicts == nil {
				l.Rounds[j].Verdicts = []Verdict{}
			}
			for k := range l.Rounds[j].Verdicts {
				l.Rounds[j].Verdicts[k].Answered = l.Rounds[j].Verdicts[k].Answered.normalised()
			}
		}
		if l.Implementations == nil {
			l.Implementations = []Implementation{}
		}
		for j := range l.Implementations {
			l.Implementations[j].Commits = nonNil(l.Implementations[j].Commits)
			l.Implementations[j].Uncommitted = nonNil(l.Implementations[j].Uncommitted)
			if a := l.Implementations[j].Answered; a != nil {
				n := a.normalised()
				l.Implementations[j].Answered = &n
			}
		}
	}
	s.Fallbacks = slices.Clone(s.Fallbacks)
	for i := range s.Fallbacks {
		s.Fallbacks[i].Runner = sourced(s.Fallbacks[i].Runner)
	}
	return s
}

// sourced is a copy of a runner's receipt whose cost names its source, as a receipt written before
// abcd recorded one reads.
func sourced(r *runner.Receipt) *runner.Receipt {
	if r == nil {
		return nil
	}
	c := *r
	c.CostSource = c.SourceOf()
	return &c
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (a Answer) normalised() Answer {
	if a.Settings == nil {
		a.Settings = map[string]string{}
	}
	a.Runner = sourced(a.Runner)
	return a
}
