package guard

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// GuardFile is where a repository adds to or tightens the guard's rules, or (once the person allows
// it on their machine) weakens them.
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
	// Rules says which registry decided: built-in (no repository file, a broken one, or one that
	// weakens the guard without the person's allow, whose additions then stand beside the built-in
	// rules only when it adds none), working-tree (the repository's .abcd/guard.json: its additions
	// and tightenings, and its weakenings once the person allowed it), or off (an allowed file
	// switched the guard off). committed is no longer given: the guard reads no git history.
	Rules string `json:"rules"`
	// Notices are what a person should know about the rules in force (a broken file, a weaker one
	// not allowed on this machine); each is also written as a warning.
	Notices []string `json:"notices"`
}

func GuardVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "guard_check", Path: []string{"guard", "check"}, Example: "abcd guard check --command \"git push --force origin main\"\necho \"rm -rf build\" | abcd guard check", Summary: "Check a command line before an agent runs it: allow, warn or block, with why and a safer command",
			ReadOnly: true, Idempotent: true}, GuardCheck),
		guardAllowVerb(),
	}
}

// GuardCheck reads the line the way the shell will, and checks every command it runs against the
// rules in force in the repository containing the folder it runs in. It starts no process: the rules
// in force come from the working tree's guard file and the machine's allow file.
func GuardCheck(ctx context.Context, a *Deps, in *GuardCheckInput) (GuardVerdict, error) {
	// The input's types check themselves when decoded; a caller handing a struct in is held to the same.
	if err := guard.CheckCommandLine(string(in.Command)); err != nil {
		return GuardVerdict{}, core.OnField(err, "guard_check", "command")
	}
	repoGuard := a
	cwd := string(in.Cwd)
	if cwd != "" {
		if err := guard.CheckFolder(cwd); err != nil {
			return GuardVerdict{}, core.OnField(err, "guard_check", "cwd")
		}
		cwd = filepath.Clean(cwd)
		if a.Reroot != nil {
			repoGuard = a.Reroot(cwd)
		}
	}
	if repoGuard.Commands == nil {
		return GuardVerdict{}, fmt.Errorf("guard check: no command reader is wired into this build")
	}
	root, git := repoGuard.Setup.Root()
	if cwd == "" {
		cwd = root
	} else if err := folderExists(repoGuard, root, cwd); err != nil {
		return GuardVerdict{}, err
	}
	repo := ""
	if git {
		repo = root
	}
	rules, err := guardRules(ctx, repoGuard, root)
	if err != nil {
		return GuardVerdict{}, err
	}
	for _, n := range rules.notices {
		repoGuard.Warn(n)
	}
	line, err := repoGuard.Commands.ReadLine(string(in.Command))
	if err != nil {
		return GuardVerdict{}, err
	}
	v := rules.reg.Evaluate(line, guard.Context{Cwd: cwd, Repo: repo, Machine: filepath.Dir(repoGuard.Setup.MachinePath(guard.AllowFileName)), Unallowed: rules.unallowed})
	return verdictOf(v, rules), nil
}

// folderExists refuses a folder known not to be there: the line could not run in it. A folder
// outside the root is not looked at (the repository's reader reaches no further), and one the reader
// cannot look at (a link on its way) is not known to be missing: the line is checked either way.
func folderExists(a *Deps, root, cwd string) error {
	rel, inside := relInside(root, cwd)
	if !inside {
		return nil
	}
	there, err := a.Setup.Exists(rel)
	if err == nil && !there {
		return refusal.New(refusal.CodeGuardCwdMissing, "", fmt.Sprintf("the folder %s does not exist, so no command can run in it", text.ClipPath(cwd)),
			"give the folder the command runs in").On("guard_check", "cwd")
	}
	return nil
}

// relInside is cwd relative to root, in slashes, and whether cwd is inside root at all (filepath.Rel
// fails for a folder on another volume).
func relInside(root, cwd string) (string, bool) {
	rel, err := filepath.Rel(root, cwd)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	return rel, rel != ".." && !strings.HasPrefix(rel, "../")
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
	// unallowed: the guard file weakens the built-in rules and is not allowed on this machine.
	unallowed bool
}

// guardRules decides which rules are in force from the working tree's .abcd/guard.json. A file that
// only adds rules or raises tiers takes effect at once. A file that weakens the built-in rules
// (switches the guard off, disables or lowers a rule, changes how a command a rule names is read)
// takes effect only when the person allowed exactly those bytes at that path on this machine (abcd
// guard allow); until then its additions stand beside the built-in rules and every check says so. A
// broken or unreadable file never switches the guard off: the built-in rules decide, with a notice.
func guardRules(ctx context.Context, a *Deps, root string) (rulesInForce, error) {
	builtin, err := guard.Builtin()
	if err != nil {
		return rulesInForce{}, fmt.Errorf("the built-in guard rules: %w", err)
	}
	builtIn, err := guard.Compile(builtin, nil)
	if err != nil {
		return rulesInForce{}, fmt.Errorf("the built-in guard rules: %w", err)
	}
	out := rulesInForce{reg: builtIn, source: rulesBuiltIn}
	data, err := a.Records.Read(ctx, GuardFile)
	if r, ok := refusal.As(err); ok && r.Code == refusal.CodeRecordMissing {
		return out, nil
	}
	if err != nil {
		out.notices = append(out.notices, fmt.Sprintf("%s cannot be read (%s); the built-in guard rules are in force", GuardFile, core.ErrText(err)))
		return out, nil
	}
	f, reg, err := compileRepo(builtin, data)
	if err != nil {
		out.notices = append(out.notices, fmt.Sprintf("%s is broken (%s); the built-in guard rules are in force", GuardFile, core.ErrText(err)))
		return out, nil
	}
	weak := guard.Weakens(builtIn, reg)
	if len(weak) == 0 {
		return rulesInForce{reg: reg, source: rulesWorkingTree}, nil
	}
	file := filepath.Join(root, filepath.FromSlash(GuardFile))
	allowed, note := guardAllowed(a, file, data)
	if allowed {
		return rulesInForce{reg: reg, source: rulesWorkingTree}, nil
	}
	strict, err := guard.Strict(builtin, f)
	if err != nil {
		return rulesInForce{}, fmt.Errorf("the built-in guard rules: %w", err)
	}
	if reg, err = guard.Compile(builtin, &strict); err != nil {
		return rulesInForce{}, fmt.Errorf("the strict part of %s: %w", GuardFile, err)
	}
	out = rulesInForce{reg: reg, source: rulesBuiltIn, unallowed: true}
	if len(strict.Rules) > 0 || len(strict.Tiers) > 0 || len(strict.Syntax) > 0 {
		out.source = rulesWorkingTree
	}
	if note != "" {
		out.notices = append(out.notices, note)
	}
	out.notices = append(out.notices, fmt.Sprintf("%s weakens the guard (%s) and this machine has not allowed it: the built-in rules stand, with what the file adds; the person allows exactly this file by running abcd guard allow in their own terminal",
		file, strings.Join(weak, "; ")))
	return out, nil
}

// guardAllowed reports whether the person allowed these bytes at file on this machine, and a notice
// when the allow file cannot be read (then nothing is allowed).
func guardAllowed(a *Deps, file string, data []byte) (bool, string) {
	raw, present, err := a.Setup.ReadMachineFile(guard.AllowFileName)
	if err != nil {
		return false, fmt.Sprintf("%s cannot be read (%s), so no weaker guard file is allowed", a.Setup.MachinePath(guard.AllowFileName), core.ErrText(err))
	}
	if !present {
		return false, ""
	}
	f, err := guard.DecodeAllowFile(a.Setup.MachinePath(guard.AllowFileName), raw)
	if err != nil {
		return false, fmt.Sprintf("%s is broken (%s), so no weaker guard file is allowed", a.Setup.MachinePath(guard.AllowFileName), core.ErrText(err))
	}
	return guard.Allowed(f.Allow, file, data), ""
}

func compileRepo(builtin guard.File, data []byte) (guard.File, *guard.Registry, error) {
	f, err := guard.Decode(GuardFile, data)
	if err != nil {
		return guard.File{}, nil, err
	}
	reg, err := guard.Compile(builtin, &f)
	return f, reg, err
}

// writeGuard checks a changed path as the guard hook checks a file tool's write of it: by the rules
// in force in the repository (loaded as guard_check loads them, so a repository's stronger guard
// counts), in the folder the path is relative to.
type writeGuard struct {
	a       *Deps
	rules   rulesInForce
	machine string
}

func (a *Deps) WriteGuard(ctx context.Context) (writeGuard, error) {
	if a.Commands == nil {
		return writeGuard{}, fmt.Errorf("the guard's write check: no command reader is wired into this build")
	}
	root, _ := a.Setup.Root()
	rules, err := guardRules(ctx, a, root)
	if err != nil {
		return writeGuard{}, err
	}
	return writeGuard{a: a, rules: rules, machine: filepath.Dir(a.Setup.MachinePath(guard.AllowFileName))}, nil
}

// Guarded lists the changes under dir (absolute) that a block-tier rule stops as writes, each with
// the deciding rule: each change read as the write it is (Write), links on its way followed.
func (w writeGuard) Guarded(dir string, changes []runner.Entry) ([]runner.GuardedWrite, error) {
	root, git := w.a.Setup.Root()
	repo := ""
	if git {
		repo = root
	}
	gctx := guard.Context{Cwd: dir, Repo: repo, Machine: w.machine, Unallowed: w.rules.unallowed}
	var out []runner.GuardedWrite
	for _, e := range changes {
		for _, l := range w.a.WriteLines(dir, writeOf(e)) {
			line, err := w.a.Commands.ReadLine(l)
			if err != nil {
				return nil, err
			}
			if v := w.rules.reg.Evaluate(line, gctx); v.Decision == guard.Block {
				out = append(out, runner.GuardedWrite{Path: e.Path, Rule: v.Rule, Why: v.Why})
				break
			}
		}
	}
	return out, nil
}

// writeOf is what a step did at a changed path of its worktree, as a write: a file added, changed,
// or its mode or type changed; a removal; a link made.
func writeOf(e runner.Entry) guard.Write {
	w := guard.Write{Path: strings.TrimSuffix(e.Path, "/")}
	switch e.Kind {
	case runner.EntryDeleted:
		w.Remove = true
	case runner.EntryLink:
		w.Link = e.Link
	}
	return w
}

// WriteLines are the shell lines the guard reads for w, made in the folder cwd: the write as named
// and, where the links on its way make it another path, the same write of that path. The one place
// a write of a path becomes what the guard's rules read: the hook's file tools and patches, and
// what a runner's step left changed, all come here.
func (a *Deps) WriteLines(cwd string, w guard.Write) []string {
	return w.Lines(a.resolved(w.Path, cwd))
}

// resolved is the path file names once the links on its way are followed; "" when that is the
// path as written, or it cannot be told (no links port, or no absolute folder to read a relative
// path in).
func (a *Deps) resolved(file, cwd string) string {
	if a.Links == nil {
		return ""
	}
	abs := file
	if !filepath.IsAbs(abs) {
		if cwd == "" {
			return ""
		}
		abs = cwd + string(filepath.Separator) + abs
	}
	if real := a.Links.Resolve(abs); real != filepath.Clean(abs) {
		return real
	}
	return ""
}

// CheckWrites is the guard's verdict on writes an agent's tool makes in the folder cwd (a file
// tool's write, a patch's files): the same check as guard_check on the lines that make them.
func CheckWrites(ctx context.Context, a *Deps, cwd string, writes []guard.Write) (GuardVerdict, error) {
	var lines []string
	for _, w := range writes {
		lines = append(lines, a.WriteLines(cwd, w)...)
	}
	return GuardCheck(ctx, a, &GuardCheckInput{Command: guard.CommandLine(strings.Join(lines, "; ")), Cwd: guard.Folder(cwd)})
}
