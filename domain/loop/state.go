// Package loop is the build loop as a state machine: a run's lanes, their stages, the awaits handed
// to agents, and the validation rounds. It is pure: the use cases read and write the state file,
// render briefs and talk to git; every rule about what happens next lives here.
package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// SchemaVersion is the state file's version.
const SchemaVersion = 1

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

// State is a run's whole story, as .abcd/.work.local/run/<run>/state.json holds it.
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
	FixRounds     int      `json:"fix_rounds"`
	Validators    []string `json:"validators"`
	// Routes are the --route flags a step was given, kept so every await the run opens later
	// (from a receipt) is routed by them too.
	Routes    []string   `json:"routes"`
	Lanes     []Lane     `json:"lanes"`
	Fallbacks []Fallback `json:"fallbacks"`
	// Changes counts every recorded change, so a reader can tell two states apart.
	Changes int `json:"changes"`
	Counter int `json:"counter"`
}

// Lane is one step of the spec (or the one lane of a review or audit run).
type Lane struct {
	ID              string            `json:"id"`
	Step            int               `json:"step"`
	Text            string            `json:"text"`
	Branch          string            `json:"branch"`
	Stage           Stage             `json:"stage"`
	Head            string            `json:"head"`
	Round           int               `json:"round"`
	Failed          int               `json:"failed"`
	Tiers           map[string]string `json:"tiers"`
	Awaits          []Await           `json:"awaits"`
	Rounds          []Round           `json:"rounds"`
	Implementations []Implementation  `json:"implementations"`
	Findings        string            `json:"findings"`
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
}

// Implementation is an implementer's verified receipt: the first one, or a fix after a failed round.
type Implementation struct {
	Round   int      `json:"round"`
	Commits []string `json:"commits"`
	Head    string   `json:"head"`
	Model   string   `json:"model"`
	Receipt string   `json:"receipt"`
	At      string   `json:"at"`
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
}

// Decode reads a state file strictly: bounded, one object, no duplicate or unknown key, nothing
// trailing, this schema version.
func Decode(file string, data []byte) (State, error) {
	if len(data) > MaxStateBytes {
		return State{}, fmt.Errorf("%s is larger than %d bytes", file, MaxStateBytes)
	}
	if err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: MaxStateBytes, MaxDepth: 32}); err != nil {
		return State{}, fmt.Errorf("%s: %s", file, err.(*strictjson.Error).Describe())
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return State{}, fmt.Errorf("%s: %v", file, err)
	}
	if s.SchemaVersion != SchemaVersion {
		return State{}, fmt.Errorf("%s declares schema_version %d; this abcd reads version %d", file, s.SchemaVersion, SchemaVersion)
	}
	s = s.normalised()
	// encoding/json matches keys in any case; the state's keys must be exactly the ones abcd writes.
	if key, ok := unknownKey(data, Encode(s)); !ok {
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
	for _, l := range s.Lanes {
		switch l.Stage {
		case StageBrief, StageImplement, StageValidate, StageFix, StageDone, StageHandedBack:
		default:
			return fmt.Errorf("lane %s has stage %q", text.Clip(l.ID), text.Clip(string(l.Stage)))
		}
	}
	return nil
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
		if l.Rounds == nil {
			l.Rounds = []Round{}
		}
		for j := range l.Rounds {
			if l.Rounds[j].Verdicts == nil {
				l.Rounds[j].Verdicts = []Verdict{}
			}
		}
		if l.Implementations == nil {
			l.Implementations = []Implementation{}
		}
		for j := range l.Implementations {
			l.Implementations[j].Commits = nonNil(l.Implementations[j].Commits)
		}
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
