package core

import (
	"bytes"
	"context"
	"encoding/json"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// ClaudeSettingsRel is the repository's Claude Code settings file that is the person's own and never
// committed: where ahoy install turns Claude Code's sandbox on, with consent.
const ClaudeSettingsRel = ".claude/settings.local.json"

// ClaudeSettingsDir is the folder holding it.
const ClaudeSettingsDir = ".claude"

// credentialFolders are the person's credential files and folders under HOME that a sandboxed
// command may not read: the same list abcd's own sandbox hides from a runner.
var credentialFolders = []string{
	"~/.ssh", "~/.aws", "~/.config/gcloud", "~/.netrc", "~/.docker", "~/.kube", "~/.gnupg", "~/.config/gh",
	"~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.password-store", "~/.local/share/keyrings", "~/.azure",
	"~/.vault-token", "~/.terraform.d", "~/.config/hub",
}

// maxSandboxNames bounds each folder listing the block is built from: a folder holding more is not
// one abcd made, and is refused rather than listed in part.
const maxSandboxNames = 4096

// ClaudeSandboxBlock is the settings' sandbox block for a machine whose $ABCD_HOME is abcdHome
// (absolute) and whose writes are denied in denyWrite (SandboxDenyWrite). Relative paths are the
// project's (Claude Code resolves them against the folder holding .claude/).
func ClaudeSandboxBlock(abcdHome string, denyWrite []string) map[string]any {
	denyRead := make([]any, 0, len(credentialFolders)+1)
	for _, p := range credentialFolders {
		denyRead = append(denyRead, p)
	}
	denyRead = append(denyRead, path.Clean(abcdHome))
	deny := make([]any, 0, len(denyWrite))
	for _, p := range denyWrite {
		deny = append(deny, p)
	}
	return map[string]any{
		"enabled":           true,
		"failIfUnavailable": true,
		"filesystem": map[string]any{
			"denyWrite": deny,
			"denyRead":  denyRead,
		},
	}
}

// SandboxDenyWrite is what a Bash command in Claude Code's sandbox may not write in this repository,
// as it stands now: .git, .claude, .abcd whole (the record, the configuration, guard.json, every
// run's state, briefs and returns, the journal; a new name anywhere under it too), the lanes' folder's
// .gitignore and each lane's .git file in it. The lanes' worktrees live beside .abcd/ (layout.Lanes),
// so they stay writable: Claude Code's Linux sandbox (bubblewrap) mounts each denied path read-only
// and cannot open a folder again inside a denied one, nor read a pattern.
//
// A lane's .git file names the folder git keeps the lane in: rewritten, the next git abcd runs there
// (outside any sandbox) would take its hooks and configuration from the agent's folder. It is denied
// for every lane a run's state names, before abcd makes the worktree (Claude Code's sandbox refuses to
// create a denied path that is absent, measured on 2.1.332); that list is why a save of a run's state
// writes the block again when a run or a lane is new (RefreshHarnessSandbox). A run an earlier abcd
// started keeps its worktrees inside .abcd/, read-only to the sandbox.
func (a *Core) SandboxDenyWrite() ([]string, error) {
	deny := []string{".git", ClaudeSettingsDir, layout.Root, layout.LanesIgnore}
	runs, err := a.Setup.Names(layout.Runs, maxSandboxNames)
	if err != nil {
		return nil, err
	}
	var gits []string
	for _, run := range runs {
		if !strings.HasPrefix(run, "run-") || path.Base(run) != run {
			continue // not a run's folder abcd made: nothing of it has a worktree
		}
		lanes, err := a.runLanes(run)
		if err != nil {
			return nil, err
		}
		for _, l := range lanes {
			if path.Base(l) == l && l != "." && l != ".." && !strings.ContainsAny(l, "\\") {
				gits = append(gits, layout.LanesDir(run)+"/"+l+"/.git")
			}
		}
	}
	slices.Sort(gits)
	return append(deny, slices.Compact(gits)...), nil
}

// runLanes are the ids of a run's lanes, as its state names them (none when it has no state yet).
func (a *Core) runLanes(run string) ([]string, error) {
	if a.Runs == nil {
		return nil, nil
	}
	names, err := a.Setup.Names(layout.RunDir(run), maxSandboxNames)
	if err != nil || !slices.Contains(names, "state.json") {
		return nil, err
	}
	data, err := a.Runs.Read(context.Background(), StatePath(run), loop.MaxStateBytes)
	if err != nil {
		return nil, err
	}
	var s struct {
		Lanes []struct {
			ID string `json:"id"`
		} `json:"lanes"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		// A state abcd cannot decode is one whose run takes no step (each refuses it), so no lane of it
		// makes a folder: what stands in its folder, listed, is denied all the same, and another run's
		// save is not stopped by it.
		return nil, nil //nolint:nilerr // a broken run's state names no lane to deny ahead
	}
	ids := make([]string, 0, len(s.Lanes))
	for _, l := range s.Lanes {
		if l.ID != "" {
			ids = append(ids, l.ID)
		}
	}
	return ids, nil
}

// IsAbcdSandboxBlock says whether got is a block abcd wrote: the block it writes now but for its
// denyWrite list, which is abcd's when it names only .git, .claude, .abcd and paths under .abcd/ or
// the lanes' folder (abcd's earlier blocks, which listed each entry of .abcd/ on the way to the
// worktrees, and one whose runs have come and gone since, included: ahoy sandbox and the next save of
// a run write them as they are now).
func IsAbcdSandboxBlock(got any, abcdHome string) bool {
	back, ok := jsonBack(got).(map[string]any)
	if !ok {
		return false
	}
	fsys, ok := back["filesystem"].(map[string]any)
	if !ok {
		return false
	}
	deny, ok := fsys["denyWrite"].([]any)
	if !ok || len(deny) == 0 {
		return false
	}
	var names []string
	for _, d := range deny {
		s, ok := d.(string)
		if !ok || !abcdDeny(s) {
			return false
		}
		names = append(names, s)
	}
	return reflect.DeepEqual(back, jsonBack(ClaudeSandboxBlock(abcdHome, names)))
}

// abcdDeny is a denyWrite entry abcd writes: .git, .claude, .abcd, or a clean path under .abcd/ (its
// earlier blocks') or the lanes' folder.
func abcdDeny(p string) bool {
	switch p {
	case ".git", ClaudeSettingsDir, layout.Root:
		return true
	}
	under := strings.HasPrefix(p, layout.Root+"/") || strings.HasPrefix(p, layout.Lanes+"/")
	return under && path.Clean(p) == p && !slices.Contains(strings.Split(p, "/"), "..")
}

// jsonBack is v as it reads back from JSON (nil when it does not encode).
func jsonBack(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var back any
	if json.Unmarshal(data, &back) != nil {
		return nil
	}
	return back
}

// ReadClaudeSettings reads the repository's Claude Code local settings as a JSON object (absent: an
// empty one). A file that is not one JSON object is refused: abcd never rewrites what it cannot read.
func (a *Core) ReadClaudeSettings(verb string) (doc map[string]any, present bool, err error) {
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

// EncodeClaudeSettings writes the settings object as Claude Code does: two-space indent, a final
// newline.
func EncodeClaudeSettings(doc map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// SandboxHome is $ABCD_HOME, as the block denies reading it.
func (a *Core) SandboxHome() string { return path.Dir(a.Setup.MachinePath(MachineRouting)) }

// RefreshHarnessSandbox writes abcd's sandbox block again for the runs and lanes the states name now,
// when the settings hold abcd's block (and only then: a person's own block, a file abcd cannot read,
// or none at all is left as it is) and it differs: each save of a run's state calls it, so a new
// lane's .git file is denied before its worktree stands. The write is atomic.
func (a *Core) RefreshHarnessSandbox(context.Context) error {
	if a.Setup == nil {
		return nil // a core wired without the repository's files (the loop's own tests) has no settings
	}
	doc, present, err := a.ReadClaudeSettings("ahoy_sandbox")
	if _, isRefusal := refusal.As(err); isRefusal || !present {
		return nil // not abcd's to write: ahoy sandbox says why when asked
	}
	if err != nil {
		return err
	}
	have, ok := doc["sandbox"]
	if !ok || !IsAbcdSandboxBlock(have, a.SandboxHome()) {
		return nil
	}
	deny, err := a.SandboxDenyWrite()
	if err != nil {
		return err
	}
	want := ClaudeSandboxBlock(a.SandboxHome(), deny)
	if reflect.DeepEqual(jsonBack(have), jsonBack(want)) {
		return nil
	}
	doc["sandbox"] = want
	data, err := EncodeClaudeSettings(doc)
	if err != nil {
		return err
	}
	return a.Setup.ReplaceFile(ClaudeSettingsRel, data)
}
