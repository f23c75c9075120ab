package setup

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"reflect"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// ClaudeSettingsRel is the repository's Claude Code settings file that is the person's own and never
// committed: where ahoy install turns Claude Code's sandbox on, with consent.
const ClaudeSettingsRel = ".claude/settings.local.json"

// claudeSettingsDir is the folder holding it.
const claudeSettingsDir = ".claude"

// HarnessSandboxCategory is the consent category of the harness's own sandbox.
const HarnessSandboxCategory = "harness-sandbox"

// credentialFolders are the person's credential files and folders under HOME that a sandboxed
// command may not read: the same list abcd's own sandbox hides from a runner.
var credentialFolders = []string{
	"~/.ssh", "~/.aws", "~/.config/gcloud", "~/.netrc", "~/.docker", "~/.kube", "~/.gnupg", "~/.config/gh",
	"~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.password-store", "~/.local/share/keyrings", "~/.azure",
	"~/.vault-token", "~/.terraform.d", "~/.config/hub",
}

// ClaudeSandboxBlock is the settings' sandbox block ahoy install writes, for a machine whose
// $ABCD_HOME is abcdHome (absolute). Relative paths are the project's (Claude Code resolves them
// against the folder holding .claude/), so the block holds for the repository wherever it moves.
//
// What it asks of Claude Code's sandbox (each Bash command inside bubblewrap on Linux, Seatbelt on
// macOS):
//   - on, and failing loudly where it cannot start rather than running commands unsandboxed;
//   - no write under .abcd/ (the record, the configuration, the run's folder: its state, briefs and
//     receipts) nor .git/: Claude Code's Linux sandbox cannot open a folder again inside one it
//     denies, nor read a pattern, so the lanes' worktrees (inside the run's folder) are denied with
//     it, and a command that must write there (a build, a commit, which Claude Code's own rules
//     already refuse in a linked worktree) is one the person approves to run outside the sandbox;
//   - no read of the person's credentials nor of $ABCD_HOME (abcd's keys, history, allowances).
func ClaudeSandboxBlock(abcdHome string) map[string]any {
	denyRead := make([]any, 0, len(credentialFolders)+1)
	for _, p := range credentialFolders {
		denyRead = append(denyRead, p)
	}
	denyRead = append(denyRead, path.Clean(abcdHome))
	return map[string]any{
		"enabled":           true,
		"failIfUnavailable": true,
		"filesystem": map[string]any{
			"denyWrite": []any{core.AbcdDir, ".git"},
			"denyRead":  denyRead,
		},
	}
}

// claudeSettings reads the repository's Claude Code local settings as a JSON object (absent: an
// empty one). A file that is not one JSON object is refused: abcd never rewrites what it cannot read.
func (a *Deps) claudeSettings(verb string) (doc map[string]any, present bool, err error) {
	data, present, err := a.Setup.ReadFile(ClaudeSettingsRel)
	if err != nil || !present {
		return map[string]any{}, present, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil || doc == nil || dec.More() {
		return nil, true, refusal.New(refusal.CodeFileInvalid, "",
			ClaudeSettingsRel+" is not one JSON object, so abcd cannot add its sandbox block beside what it holds; nothing was written",
			"fix or remove the file, then run ", refusal.Run(verb)).On(verb, "")
	}
	return doc, true, nil
}

// sandboxBlockIs says whether got is the block want, read back from JSON.
func sandboxBlockIs(got any, want map[string]any) bool {
	data, err := json.Marshal(want)
	if err != nil {
		return false
	}
	var back any
	if json.Unmarshal(data, &back) != nil {
		return false
	}
	gotData, err := json.Marshal(got)
	if err != nil {
		return false
	}
	var gotBack any
	if json.Unmarshal(gotData, &gotBack) != nil {
		return false
	}
	return reflect.DeepEqual(gotBack, back)
}

// encodeSettings writes the settings object as Claude Code does: two-space indent, a final newline.
func encodeSettings(doc map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// lookHarnessSandbox finds whether the block is there already, refusing a settings file abcd cannot
// read or one whose sandbox block is the person's own (never replaced).
func (st *installation) lookHarnessSandbox() error {
	verb := "ahoy_install"
	if st.sandboxAsked {
		verb = "ahoy_sandbox"
	}
	doc, _, err := st.a.claudeSettings(verb)
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
	case sandboxBlockIs(have, st.sandboxBlock()):
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

func (st *installation) sandboxBlock() map[string]any {
	return ClaudeSandboxBlock(path.Dir(st.a.Setup.MachinePath(core.MachineRouting)))
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
		ok, err := st.a.Prompter.Confirm(ctx, fmt.Sprintf("Turn Claude Code's own sandbox on for this repository (%s: its Bash commands may not write .abcd/ or .git/, nor read your credentials or %s; docs/security.md says what it adds)?",
			ClaudeSettingsRel, path.Dir(st.a.Setup.MachinePath(core.MachineRouting))))
		if err != nil {
			return err
		}
		st.sandboxStatus = map[bool]string{true: "created", false: "declined"}[ok]
	}
	return nil
}

// writeHarnessSandbox adds the sandbox block to the settings, keeping every other member.
func (st *installation) writeHarnessSandbox(context.Context) (AhoyStep, error) {
	step := AhoyStep{Category: HarnessSandboxCategory, Status: st.sandboxStatus, Paths: []string{ClaudeSettingsRel}}
	if st.sandboxStatus != "created" {
		return step, nil
	}
	doc, _, err := st.a.claudeSettings("ahoy_install")
	if err != nil {
		return step, err
	}
	doc["sandbox"] = st.sandboxBlock()
	data, err := encodeSettings(doc)
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
	doc, present, err := a.claudeSettings("ahoy_uninstall")
	if err != nil || !present {
		return err
	}
	have, ok := doc["sandbox"]
	if !ok {
		return nil
	}
	if !sandboxBlockIs(have, ClaudeSandboxBlock(path.Dir(a.Setup.MachinePath(core.MachineRouting)))) {
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
		data, err := encodeSettings(doc)
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
