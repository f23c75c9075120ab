package app

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// GuardFile is where a repository adds to, tightens or (once committed) weakens the guard's rules.
const GuardFile = ".abcd/guard.json"

// GuardCheckInput is one command line an agent is about to run, and where it runs.
type GuardCheckInput struct {
	// Command is the command line, as the shell would receive it.
	Command guard.CommandLine `json:"command"`
	// Cwd is the absolute folder it runs in; the repository root when absent.
	Cwd guard.Folder `json:"cwd,omitempty"`
}

// GuardFinding is one rule that matched one command of the line.
type GuardFinding struct {
	// Rule is the rule's id (unreadable when the line could not be read within the guard's bounds).
	Rule string `json:"rule" jsonschema:"minLength=1"`
	Tier string `json:"tier"`
	// Certain is false when the match rests on a value not known until the command runs.
	Certain bool `json:"certain"`
	// Command is the command that matched, as written.
	Command string `json:"command"`
	// Via is how the line reaches it: the wrappers and executed strings around it, outermost first.
	Via   []string `json:"via"`
	Why   string   `json:"why" jsonschema:"minLength=1"`
	Safer string   `json:"safer" jsonschema:"minLength=1"`
}

// GuardVerdict is the guard's answer for one command line: allow, warn (it runs, with a message) or
// block (with why, the rule and a safer command). The strongest finding decides.
type GuardVerdict struct {
	Decision string `json:"decision"`
	// Rule, Why, Safer, Command, Via and Certain repeat the deciding finding; empty on allow.
	Rule     string         `json:"rule"`
	Why      string         `json:"why"`
	Safer    string         `json:"safer"`
	Command  string         `json:"command"`
	Via      []string       `json:"via"`
	Certain  bool           `json:"certain"`
	Findings []GuardFinding `json:"findings"`
	// Rules says which registry decided: the built-in rules, the repository's committed
	// .abcd/guard.json, or its working-tree copy (which may only add or tighten until committed).
	Rules string `json:"rules"`
	// Notices are what a person should know about the rules in force (a broken file, a weakening
	// refused until committed); each is also written as a warning.
	Notices []string `json:"notices"`
}

func guardVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "guard_check", Path: []string{"guard", "check"}, Summary: "Check a command line before an agent runs it: allow, warn or block, with why and a safer command",
			ReadOnly: true, Idempotent: true}, guardCheck),
	}
}

// guardCheck reads the line the way the shell will, and checks every command it runs against the
// rules in force in the repository containing the folder it runs in.
func guardCheck(ctx context.Context, a *App, in *GuardCheckInput) (GuardVerdict, error) {
	// The input's types check themselves when decoded; a caller handing a struct in is held to the same.
	if err := guard.CheckCommandLine(string(in.Command)); err != nil {
		return GuardVerdict{}, onField(err, "guard_check", "command")
	}
	core := a
	cwd := string(in.Cwd)
	if cwd != "" {
		if err := guard.CheckFolder(cwd); err != nil {
			return GuardVerdict{}, onField(err, "guard_check", "cwd")
		}
		cwd = filepath.Clean(cwd)
		if a.Reroot != nil {
			core = a.Reroot(cwd)
		}
	}
	if core.Commands == nil {
		return GuardVerdict{}, fmt.Errorf("guard check: no command reader is wired into this build")
	}
	root, git := core.Setup.Root()
	if cwd == "" {
		cwd = root
	}
	repo := ""
	if git {
		repo = root
	}
	rules, err := guardRules(ctx, core)
	if err != nil {
		return GuardVerdict{}, err
	}
	for _, n := range rules.notices {
		core.warn(n)
	}
	line, err := core.Commands.ReadLine(string(in.Command))
	if err != nil {
		return GuardVerdict{}, err
	}
	v := rules.reg.Evaluate(line, guard.Context{Cwd: cwd, Repo: repo})
	return verdictOf(v, rules), nil
}

func (a *App) warn(msg string) {
	if a.Diag != nil {
		a.Diag.Warn(msg)
	}
}

// verdictOf is the published document for a domain verdict.
func verdictOf(v guard.Verdict, rules rulesInForce) GuardVerdict {
	out := GuardVerdict{Decision: string(v.Decision), Rule: v.Rule, Why: v.Why, Safer: v.Safer, Command: v.Command,
		Via: guardStrings(v.Via), Certain: v.Certain, Findings: []GuardFinding{}, Rules: rules.source, Notices: guardStrings(rules.notices)}
	if rules.reg.Off && v.Rule != guard.UnreadableRule {
		out.Rules = rulesOff
	}
	for _, f := range v.Findings {
		out.Findings = append(out.Findings, GuardFinding{Rule: f.Rule, Tier: string(f.Tier), Certain: f.Certain, Command: f.Command,
			Via: guardStrings(f.Via), Why: f.Why, Safer: f.Safer})
	}
	return out
}

func guardStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// rulesInForce is the registry that decides, where it came from, and what a person should know.
type rulesInForce struct {
	reg     *guard.Registry
	source  string
	notices []string
}

// guardRules decides which rules are in force. The working tree's .abcd/guard.json may add rules and
// tighten tiers at once; a change that weakens the guard (switches it off, removes or lowers a rule,
// changes a pattern) takes effect only once committed: until then the committed rules stay in force.
// A broken file never leaves the guard off: the committed rules (or the built-in ones) decide, with a
// notice.
func guardRules(ctx context.Context, a *App) (rulesInForce, error) {
	builtin, err := guard.Builtin()
	if err != nil {
		return rulesInForce{}, fmt.Errorf("the built-in guard rules: %w", err)
	}
	base, err := guard.Compile(builtin, nil)
	if err != nil {
		return rulesInForce{}, fmt.Errorf("the built-in guard rules: %w", err)
	}
	out := rulesInForce{reg: base, source: rulesBuiltIn}

	// The committed rules, when HEAD has the file.
	committed := out
	var committedData []byte
	if a.Git != nil {
		data, ok, err := a.Git.Committed(ctx, GuardFile, guard.MaxFileBytes)
		switch {
		case err != nil:
			out.notices = append(out.notices, fmt.Sprintf("the committed %s cannot be read (%s); the built-in guard rules are in force", GuardFile, errText(err)))
		case ok:
			committedData = data
			if reg, err := compileRepo(builtin, data); err != nil {
				out.notices = append(out.notices, fmt.Sprintf("the committed %s is broken (%s); the built-in guard rules are in force", GuardFile, errText(err)))
			} else {
				committed = rulesInForce{reg: reg, source: rulesCommitted}
			}
		}
	}
	committed.notices = out.notices
	fallback := "the built-in guard rules are in force"
	if committed.source == rulesCommitted {
		fallback = "the committed rules stay in force"
	}

	data, err := a.Records.Read(ctx, GuardFile)
	if r, ok := refusal.As(err); ok && r.Code == "record_missing" {
		if committedData == nil {
			return committed, nil
		}
		if weak := guard.Weakens(committed.reg, base); len(weak) > 0 {
			committed.notices = append(committed.notices, fmt.Sprintf("%s is deleted but the deletion is not committed, and it weakens the guard (%s); it takes effect once committed: %s", GuardFile, strings.Join(weak, "; "), fallback))
			return committed, nil
		}
		out.notices = committed.notices
		return out, nil
	}
	if err != nil {
		committed.notices = append(committed.notices, fmt.Sprintf("%s cannot be read (%s); %s", GuardFile, errText(err), fallback))
		return committed, nil
	}
	if committedData != nil && bytes.Equal(data, committedData) {
		return committed, nil
	}
	reg, err := compileRepo(builtin, data)
	if err != nil {
		committed.notices = append(committed.notices, fmt.Sprintf("%s is broken (%s); %s", GuardFile, errText(err), fallback))
		return committed, nil
	}
	if weak := guard.Weakens(committed.reg, reg); len(weak) > 0 {
		committed.notices = append(committed.notices, fmt.Sprintf("the uncommitted change to %s weakens the guard (%s); it takes effect once committed: %s", GuardFile, strings.Join(weak, "; "), fallback))
		return committed, nil
	}
	return rulesInForce{reg: reg, source: rulesWorkingTree, notices: committed.notices}, nil
}

func compileRepo(builtin guard.File, data []byte) (*guard.Registry, error) {
	f, err := guard.Decode(GuardFile, data)
	if err != nil {
		return nil, err
	}
	return guard.Compile(builtin, &f)
}

// errText is an error's sentence for a notice.
func errText(err error) string {
	if r, ok := refusal.As(err); ok {
		return text.Clip(r.Why)
	}
	return text.Clip(err.Error())
}

// onField names the verb's field a refusal from a value's own check is about.
func onField(err error, verb, field string) error {
	if r, ok := refusal.As(err); ok {
		return r.On(verb, field)
	}
	return err
}
