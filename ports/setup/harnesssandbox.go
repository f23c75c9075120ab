package setup

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// ClaudeSettingsRel is the repository's Claude Code settings file that is the person's own and never
// committed: where ahoy install turns Claude Code's sandbox on, with consent.
const ClaudeSettingsRel = core.ClaudeSettingsRel

// claudeSettingsDir is the folder holding it.
const claudeSettingsDir = core.ClaudeSettingsDir

// HarnessSandboxCategory is the consent category of the harness's own sandbox.
const HarnessSandboxCategory = "harness-sandbox"

// ClaudeSandboxBlock is the settings' sandbox block ahoy install writes, for a machine whose
// $ABCD_HOME is abcdHome (absolute), denying writes to denyWrite (core.SandboxDenyWrite: the
// repository's .abcd/ but the lanes' worktrees, .git and .claude, as they stand when it is written;
// a run's start writes it again). Relative paths are the project's (Claude Code resolves them against
// the folder holding .claude/), so the block holds for the repository wherever it moves.
//
// What it asks of Claude Code's sandbox (each Bash command inside bubblewrap on Linux, Seatbelt on
// macOS):
//   - on, and failing loudly where it cannot start rather than running commands unsandboxed;
//   - no write to the record, the configuration, the guard file, any run's state, briefs and
//     returns, nor .git/ (a commit in a lane is one the person approves outside the sandbox) nor
//     .claude/; the lanes' worktrees are writable;
//   - no read of the person's credentials nor of $ABCD_HOME (abcd's keys, history, allowances).
func ClaudeSandboxBlock(abcdHome string, denyWrite []string) map[string]any {
	return core.ClaudeSandboxBlock(abcdHome, denyWrite)
}

// lookHarnessSandbox finds whether the block is there already, refusing a settings file abcd cannot
// read or one whose sandbox block is the person's own (never replaced).
func (st *installation) lookHarnessSandbox() error {
	verb := "ahoy_install"
	if st.sandboxAsked {
		verb = "ahoy_sandbox"
	}
	doc, _, err := st.a.ReadClaudeSettings(verb)
	if _, isRefusal := refusal.As(err); isRefusal && !st.sandboxAsked {
		// A settings file abcd cannot read is not offered a block: install goes on without it, and
		// ahoy sandbox says why.
		st.sandboxHas, st.sandboxUnreadable = true, true
		return nil
	}
	if err != nil {
		return err
	}
	have, ok := doc["sandbox"]
	switch {
	case !ok:
		st.sandboxHas = false
	case core.IsAbcdSandboxBlock(have, st.a.SandboxHome()):
		st.sandboxHas = true
	default:
		if !st.sandboxAsked {
			// Not asked for: the person's own block is theirs and nothing here touches it.
			st.sandboxHas = true
			return nil
		}
		return refusal.New(refusal.CodeFileInvalid, "",
			ClaudeSettingsRel+" already holds a sandbox block of its own, and abcd never replaces one; nothing was written",
			"merge docs/security.md's block into yours by hand, or remove yours and run ", refusal.Run(verb)).On(verb, "")
	}
	return nil
}

func (st *installation) sandboxBlock() (map[string]any, error) {
	deny, err := st.a.SandboxDenyWrite()
	if err != nil {
		return nil, err
	}
	return ClaudeSandboxBlock(st.a.SandboxHome(), deny), nil
}

// askHarnessSandbox offers the harness's sandbox: ahoy sandbox is the consent, --yes skips it (it
// changes how the person's own Claude Code runs every command), a terminal asks.
func (st *installation) askHarnessSandbox(ctx context.Context) error {
	switch {
	case st.sandboxUnreadable:
		st.sandboxStatus = "skipped"
	case st.sandboxHas:
		st.sandboxStatus = "present"
	case st.sandboxAsked:
		st.sandboxStatus = "created"
	case st.yes:
		st.sandboxStatus = "skipped"
	default:
		ok, err := st.a.Prompter.Confirm(ctx, fmt.Sprintf("Turn Claude Code's own sandbox on for this repository (%s: its Bash commands may write the lanes' worktrees but nothing else of .abcd/, nor .git/ or .claude/, nor read your credentials or %s; docs/security.md says what it adds)?",
			ClaudeSettingsRel, st.a.SandboxHome()))
		if err != nil {
			return err
		}
		st.sandboxStatus = map[bool]string{true: "created", false: "declined"}[ok]
	}
	return nil
}

// writeHarnessSandbox adds the sandbox block to the settings, keeping every other member.
func (st *installation) writeHarnessSandbox(ctx context.Context) (AhoyStep, error) {
	step := AhoyStep{Category: HarnessSandboxCategory, Status: st.sandboxStatus, Paths: []string{ClaudeSettingsRel}}
	if st.sandboxStatus == "present" && !st.sandboxUnreadable {
		// abcd's block, written for the runs that stood then: written again for those that stand now.
		return step, st.a.RefreshHarnessSandbox(ctx)
	}
	if st.sandboxStatus != "created" {
		return step, nil
	}
	doc, _, err := st.a.ReadClaudeSettings("ahoy_install")
	if err != nil {
		return step, err
	}
	block, err := st.sandboxBlock()
	if err != nil {
		return step, err
	}
	doc["sandbox"] = block
	data, err := core.EncodeClaudeSettings(doc)
	if err != nil {
		return step, err
	}
	if _, err := st.a.Setup.MkdirAll(claudeSettingsDir); err != nil {
		return step, err
	}
	if err := st.a.Setup.ReplaceFile(ClaudeSettingsRel, data); err != nil {
		return step, err
	}
	st.res.Written = append(st.res.Written, ClaudeSettingsRel)
	return step, nil
}

// removeHarnessSandbox takes out the block install wrote, and only it: a block the person changed is
// theirs and kept; a settings file left empty goes, and its folder when that is left empty.
func (a *Deps) removeHarnessSandbox(res *AhoyUninstallResult) error {
	doc, present, err := a.ReadClaudeSettings("ahoy_uninstall")
	if err != nil || !present {
		return err
	}
	have, ok := doc["sandbox"]
	if !ok {
		return nil
	}
	if !core.IsAbcdSandboxBlock(have, a.SandboxHome()) {
		res.Kept = append(res.Kept, ClaudeSettingsRel+" (sandbox)")
		res.Notes = append(res.Notes, ClaudeSettingsRel+"'s sandbox block is not the one install wrote, so it is yours now and stays")
		return nil
	}
	delete(doc, "sandbox")
	if len(doc) == 0 {
		data, _, err := a.Setup.ReadFile(ClaudeSettingsRel)
		if err != nil {
			return err
		}
		if _, err := a.Setup.RemoveFileIf(ClaudeSettingsRel, data); err != nil {
			return err
		}
		if _, err := a.Setup.RemoveEmptyDir(claudeSettingsDir); err != nil {
			return err
		}
	} else {
		data, err := core.EncodeClaudeSettings(doc)
		if err != nil {
			return err
		}
		if err := a.Setup.ReplaceFile(ClaudeSettingsRel, data); err != nil {
			return err
		}
	}
	res.Removed = append(res.Removed, ClaudeSettingsRel+" (sandbox)")
	return nil
}

// AhoySandboxInput takes nothing: running it is the consent.
type AhoySandboxInput struct{}

// AhoySandboxResult says what was done to the settings file.
type AhoySandboxResult struct {
	Root string `json:"root"`
	// File is the settings file, relative to the root; Status is created (the block was added) or
	// present (it was there already).
	File   string `json:"file"`
	Status string `json:"status"`
}

// AhoySandboxVerb turns Claude Code's own sandbox on for the repository without a terminal: the
// consent ahoy install asks for in one.
func AhoySandboxVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "ahoy_sandbox",
		Path:       []string{"ahoy", "sandbox"},
		Example:    "abcd ahoy sandbox",
		Summary:    "Turn Claude Code's own sandbox on for this repository, configured for the loop (.claude/settings.local.json; ahoy uninstall takes it out)",
		Idempotent: true,
	}, ahoySandbox)
}

func ahoySandbox(ctx context.Context, a *Deps, _ *AhoySandboxInput) (AhoySandboxResult, error) {
	root, git := a.Setup.Root()
	if !git {
		return AhoySandboxResult{}, core.NotARepository("ahoy_sandbox", root)
	}
	st := &installation{a: a, yes: true, sandboxAsked: true, res: AhoyInstallResult{Root: root, Steps: []AhoyStep{}, OptionalSkipped: []string{}, Written: []string{}}}
	if err := st.lookHarnessSandbox(); err != nil {
		return AhoySandboxResult{}, err
	}
	if err := st.askHarnessSandbox(ctx); err != nil {
		return AhoySandboxResult{}, err
	}
	step, err := st.writeHarnessSandbox(ctx)
	if err != nil {
		return AhoySandboxResult{}, err
	}
	return AhoySandboxResult{Root: root, File: ClaudeSettingsRel, Status: step.Status}, nil
}
