package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/internal/core"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/verb"
)

// SetupVersion is the setup this abcd's ahoy install lays down.
const SetupVersion = 1

// AhoyInstallInput: Yes accepts the required steps without asking and skips the optional offers.
// (Claude Code's sandbox is among them; ahoy sandbox turns it on without a terminal. This comment's
// first sentence is the published schema's description, which never changes.)
type AhoyInstallInput struct {
	Yes bool `json:"yes,omitempty"`
}

// AhoyInstallResult says what each consent category did.
type AhoyInstallResult struct {
	Root            string     `json:"root"`
	Steps           []AhoyStep `json:"steps"`
	OptionalSkipped []string   `json:"optional_skipped"`
	Written         []string   `json:"written"`
	// Next says what the person does before a first run: commit what install wrote, set the
	// definition of done, write an intent.
	Next []hint.Next `json:"next"`
}

// AhoyStep is one consent category's outcome.
type AhoyStep struct {
	Category string   `json:"category"`
	Required bool     `json:"required"`
	Status   string   `json:"status"`
	Paths    []string `json:"paths"`
}

func repoConfigContent() []byte {
	return []byte(fmt.Sprintf("{\n  \"schema_version\": 1,\n  \"setup_version\": %d\n}\n", SetupVersion))
}

// ProposalFile is the routing file ahoy offers: the bundled proposal, accepted as a table.
func ProposalFile() []byte {
	data, _ := json.MarshalIndent(oracle.RoutingFile{SchemaVersion: 1, Agents: oracle.Proposal()}, "", "  ")
	return append(data, '\n')
}

// ProposalTable renders the proposal for the person to read before the routing question.
func ProposalTable() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  AGENT\tTIER\tFAN-OUT\n")
	p := oracle.Proposal()
	for _, name := range sortedNames(p) {
		fmt.Fprintf(tw, "  %s\t%s\t%d\n", name, p[name].Tier, p[name].FanOut)
	}
	_ = tw.Flush()
	return b.String()
}

func sortedNames(m oracle.RoutingAgents) []string { return slices.Sorted(maps.Keys(m)) }

func recordDirs() []string {
	dirs := []string{core.AbcdDir}
	for _, f := range record.Folders() {
		dirs = append(dirs, f.Dir)
	}
	return dirs
}

func AhoyInstallVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "ahoy_install",
		Path:       []string{"ahoy", "install"},
		Example:    "abcd ahoy install\nabcd ahoy install --yes",
		Summary:    "Set abcd up in this git repository: the record folders, its config and, with consent, the routing table and Claude Code's own sandbox",
		Idempotent: true,
	}, ahoyInstall)
}

func ahoyInstall(ctx context.Context, a *Deps, in *AhoyInstallInput) (AhoyInstallResult, error) {
	root, git := a.Setup.Root()
	if !git {
		return AhoyInstallResult{}, core.NotARepository("ahoy_install", root)
	}
	interactive := a.Prompter != nil && a.Prompter.Interactive()
	if !in.Yes && !interactive {
		return AhoyInstallResult{}, refusal.New(refusal.CodeConsentNeeded, "",
			"nobody can answer its questions here (stdin is not a terminal)",
			refusal.Run("ahoy_install", refusal.With("yes", true)), " to accept the required steps and skip the optional ones, or run it where a person can answer").On("ahoy_install", "")
	}
	// What is already there decides what is asked; everything is asked before anything is written.
	st := &installation{a: a, yes: in.Yes, res: AhoyInstallResult{Root: root, Steps: []AhoyStep{}, OptionalSkipped: []string{}, Written: []string{}, Next: []hint.Next{}}}
	if err := st.look(ctx); err != nil {
		return st.res, err
	}
	if err := st.askRequired(ctx, root); err != nil {
		return st.res, err
	}
	if err := st.askRouting(ctx); err != nil {
		return st.res, err
	}
	if err := st.askHarnessSandbox(ctx); err != nil {
		return st.res, err
	}
	// Writes. .abcd/.gitignore comes first, so every temporary file a later write stages is one git
	// ignores, and .abcd/config.json last: a record without both is an install a kill interrupted,
	// which every writer refuses until ahoy install is run again (App.initialized). The steps are
	// reported in the categories' order.
	var localWritten AhoyInstallResult
	local, err := st.writeLocal(ctx, &localWritten)
	if err != nil {
		return st.res, err
	}
	reportLocal := func(context.Context) (AhoyStep, error) {
		st.res.Written = append(st.res.Written, localWritten.Written...)
		return local, nil
	}
	for _, write := range []func(context.Context) (AhoyStep, error){st.writeRecord, reportLocal, st.writeMachineRouting, st.writeRepoRouting} {
		step, err := write(ctx)
		if err != nil {
			return st.res, err
		}
		if step.Status == "skipped" {
			st.res.OptionalSkipped = append(st.res.OptionalSkipped, step.Category)
		}
		st.res.Steps = append(st.res.Steps, step)
	}
	// Claude Code's sandbox is no step of the published result: what it wrote is in written, and a
	// skipped offer in optional_skipped.
	sandbox, err := st.writeHarnessSandbox(ctx)
	if err != nil {
		return st.res, err
	}
	if sandbox.Status == "skipped" {
		st.res.OptionalSkipped = append(st.res.OptionalSkipped, sandbox.Category)
	}
	st.res.Next = st.next()
	return st.res, nil
}

// next is what a first run needs that install cannot do: the record committed (a run's lanes branch
// from a commit and read the record there, so implement start refuses an uncommitted one) and a
// definition of done (a runner's implementer is refused without one).
func (st *installation) next() []hint.Next {
	var next []hint.Next
	if len(st.res.Written) > 0 {
		next = append(next, hint.Say("commit what install wrote, so every run's lanes find the record at their base: run `git add .abcd .gitattributes && git commit -m 'Set abcd up'`"))
	}
	if !st.dodSet {
		next = append(next, hint.Say(`set the definition of done every implementer runs and abcd checks each lane with: add "build": {"dod": "<your test command>"} to `,
			hint.At(core.RepoConfigRel, "build.dod"), " (and commit it)"))
	}
	return append(next, hint.Say("write your first intent: ", hint.Do("intent_new", hint.Hole("title", "title"))))
}

// installation is one ahoy install: what it found, what the person answered, and what it did.
type installation struct {
	a   *Deps
	yes bool
	res AhoyInstallResult

	recordMissing, localMissing, driverMissing bool
	// abcdCreated says the install made .abcd/ itself (with .gitignore, first).
	abcdCreated               bool
	machineHas, repoHas       bool
	machineStatus, repoStatus string
	// dodSet says build.dod is set in a configuration layer.
	dodSet bool
	// sandboxAsked: ahoy sandbox; sandboxHas: the settings hold the block (or the person's own).
	sandboxAsked, sandboxHas, sandboxUnreadable bool
	sandboxStatus                               string
}

// look finds what is already set up.
func (st *installation) look(ctx context.Context) error {
	a := st.a
	var err error
	if st.recordMissing, err = a.anyMissing(append(append(recordDirs(), recorduc.KeepFiles()...), core.RepoConfigRel)...); err != nil {
		return err
	}
	if st.localMissing, err = a.anyMissing(core.GitignoreRel); err != nil {
		return err
	}
	if st.driverMissing, err = a.Record.MergeDriverMissing(ctx); err != nil {
		return err
	}
	if st.machineHas, err = a.Setup.MachineExists(core.MachineRouting); err != nil {
		return err
	}
	if st.repoHas, err = a.Setup.Exists(core.RepoRoutingRel); err != nil {
		return err
	}
	// Read before anything is written: a configuration file abcd cannot read refuses the install.
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return err
	}
	dod, err := config.Get[string](stack, "build.dod")
	if err != nil {
		return core.ConfigRefusal(err)
	}
	st.dodSet = dod.V != ""
	return st.lookHarnessSandbox()
}

func (st *installation) ask(ctx context.Context, q string) (bool, error) {
	if st.yes {
		return true, nil
	}
	return st.a.Prompter.Confirm(ctx, q)
}

// askRequired asks each required step that is missing; a no refuses the whole install.
func (st *installation) askRequired(ctx context.Context, root string) error {
	// The merge driver belongs to the record: asked with it, or alone in a clone that has the record
	// but not yet the driver (a collaborator's).
	driver := fmt.Sprintf("abcd's merge driver, so two branches' records merge like code (lines in %s, committed, and merge.%s in this clone's git config)", recorduc.GitattributesRel, recorduc.MergeDriverName)
	questions := []struct {
		missing  bool
		q        string
		category string
	}{
		{st.recordMissing, fmt.Sprintf("Create abcd's record folders and %s in %s, with %s?", core.RepoConfigRel, root, driver), "record"},
		{!st.recordMissing && st.driverMissing, fmt.Sprintf("Merge the record's files with %s?", driver), "record"},
		{st.localMissing, fmt.Sprintf("Keep abcd's local run state (%s/) out of git with %s?", layout.Local, core.GitignoreRel), "local-work"},
	}
	for _, q := range questions {
		if !q.missing {
			continue
		}
		ok, err := st.ask(ctx, q.q)
		if err != nil {
			return err
		}
		if !ok {
			return declinedRequired(q.category)
		}
	}
	return nil
}

// askRouting offers the routing tables that are missing; --yes skips both.
func (st *installation) askRouting(ctx context.Context) error {
	a := st.a
	st.machineStatus, st.repoStatus = "present", "present"
	answer := func(has bool, show func(), q string) (string, error) {
		if has {
			return "present", nil
		}
		if st.yes {
			return "skipped", nil
		}
		show()
		ok, err := a.Prompter.Confirm(ctx, q)
		return map[bool]string{true: "created", false: "declined"}[ok], err
	}
	var err error
	st.machineStatus, err = answer(st.machineHas, func() {
		a.Prompter.Show("abcd proposes a model tier and a fan-out bound for each agent it dispatches:\n" + ProposalTable())
	}, fmt.Sprintf("Accept this routing table for your machine (%s)?", a.Setup.MachinePath(core.MachineRouting)))
	if err != nil {
		return err
	}
	st.repoStatus, err = answer(st.repoHas, func() {}, fmt.Sprintf("Also commit it for everyone working in this repository (%s)?", core.RepoRoutingRel))
	return err
}

// writeRecord lays down the record's folders with their keep files, its config and its merge driver.
func (st *installation) writeRecord(ctx context.Context) (AhoyStep, error) {
	step := AhoyStep{Category: "record", Required: true, Status: "present", Paths: []string{}}
	for _, d := range recordDirs() {
		created, err := st.a.Setup.MkdirAll(d)
		if err != nil {
			return step, err
		}
		if created || (d == core.AbcdDir && st.abcdCreated) {
			st.wrote(&step, d+"/")
		}
	}
	for _, keep := range recorduc.KeepFiles() {
		if err := st.a.create(&step, &st.res, keep, nil); err != nil {
			return step, err
		}
	}
	if err := st.writeMergeDriver(ctx, &step); err != nil {
		return step, err
	}
	// create fills step in: it is called before step is read for the return (Go leaves the order
	// of the two in one return statement unspecified).
	err := st.a.create(&step, &st.res, core.RepoConfigRel, repoConfigContent())
	return step, err
}

// writeLocal writes .abcd/.gitignore, making .abcd/ first when it is missing (the record's step
// reports the folder); what it wrote goes to written.
func (st *installation) writeLocal(_ context.Context, written *AhoyInstallResult) (AhoyStep, error) {
	step := AhoyStep{Category: "local-work", Required: true, Status: "present", Paths: []string{}}
	created, err := st.a.Setup.MkdirAll(core.AbcdDir)
	if err != nil {
		return step, err
	}
	st.abcdCreated = created
	err = st.a.create(&step, written, core.GitignoreRel, []byte(core.GitignoreContent)) // fills step in, so before it is returned
	return step, err
}

func (st *installation) writeMachineRouting(context.Context) (AhoyStep, error) {
	a := st.a
	step := AhoyStep{Category: "oracle-routing-machine", Status: st.machineStatus, Paths: []string{a.Setup.MachinePath(core.MachineRouting)}}
	if st.machineStatus != "created" {
		return step, nil
	}
	created, err := a.Setup.CreateMachineFile(core.MachineRouting, ProposalFile())
	if err != nil {
		return step, err
	}
	if created {
		st.res.Written = append(st.res.Written, a.Setup.MachinePath(core.MachineRouting))
	} else {
		step.Status = "present"
	}
	return step, nil
}

func (st *installation) writeRepoRouting(context.Context) (AhoyStep, error) {
	a := st.a
	step := AhoyStep{Category: "oracle-routing-repository", Status: st.repoStatus, Paths: []string{core.RepoRoutingRel}}
	if st.repoStatus != "created" {
		return step, nil
	}
	if _, err := a.Setup.MkdirAll(core.RepoRoutingDir); err != nil {
		return step, err
	}
	created, err := a.Setup.CreateFile(core.RepoRoutingRel, ProposalFile())
	if err != nil {
		return step, err
	}
	if created {
		st.res.Written = append(st.res.Written, core.RepoRoutingRel)
	} else {
		step.Status = "present"
	}
	return step, nil
}

// wrote notes a path a step created.
func (st *installation) wrote(step *AhoyStep, p string) {
	step.Status, step.Paths, st.res.Written = "created", append(step.Paths, p), append(st.res.Written, p)
}

func (a *Deps) anyMissing(rels ...string) (bool, error) {
	for _, rel := range rels {
		ok, err := a.Setup.Exists(rel)
		if err != nil {
			return false, err
		}
		if !ok {
			return true, nil
		}
	}
	return false, nil
}

func (a *Deps) create(step *AhoyStep, res *AhoyInstallResult, rel string, data []byte) error {
	created, err := a.Setup.CreateFile(rel, data)
	if err != nil {
		return err
	}
	if created {
		step.Status = "created"
		step.Paths = append(step.Paths, rel)
		res.Written = append(res.Written, rel)
	}
	return nil
}

func declinedRequired(category string) error {
	return refusal.New(refusal.CodeConsentDeclined, "",
		fmt.Sprintf("the %s step is required and was declined; nothing was written", category),
		refusal.Run("ahoy_install"), " again and accept it when you are ready").On("ahoy_install", "")
}
