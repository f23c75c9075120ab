package setup

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// machineConfig is the machine configuration file's name under $ABCD_HOME.
const machineConfig = "config.json"

// AhoyConnectInput names a provider, where it is, the model it is verified with, and where its key
// is; or, with runner, a coding-agent CLI to run steps on, and the variables it is given.
type AhoyConnectInput struct {
	// Name is the provider's name; a runner is named by runner instead.
	Name    provider.Name    `json:"name,omitempty"`
	BaseURL provider.BaseURL `json:"base_url,omitempty"`
	// Model is the model the verification (or the runner's proving) call asks for: a provider's first
	// model, required for a provider; for a runner, unset asks for the CLI's default.
	Model   provider.Model       `json:"model,omitempty"`
	Tiers   []provider.TierModel `json:"tiers,omitempty" jsonschema:"maxItems=3"`
	KeyEnv  provider.KeyEnv      `json:"key_env,omitempty"`
	KeyFile provider.KeyFile     `json:"key_file,omitempty"`
	// Runner names the runner to connect; CLI is the coding-agent CLI it drives, and Executable the
	// CLI's absolute path (unset: its command on PATH).
	Runner     runner.Name       `json:"runner,omitempty"`
	CLI        runner.Kind       `json:"cli,omitempty"`
	Executable runner.Executable `json:"executable,omitempty"`
	// Args are the arguments an acp runner's executable is started with (--acp for Gemini CLI); no
	// other CLI takes any, since abcd owns its command line.
	Args []runner.Arg `json:"args,omitempty" jsonschema:"maxItems=32"`
	// CredentialEnv and PassEnv name the variables the runner's CLI is given: those holding its
	// credentials (scrubbed from all it says), and the others it needs (a base URL, a proxy, a region).
	CredentialEnv []runner.EnvName `json:"credential_env,omitempty" jsonschema:"maxItems=16"`
	PassEnv       []runner.EnvName `json:"pass_env,omitempty" jsonschema:"maxItems=32"`
	// Roles are the agents whose steps the runner takes: each is written as
	// oracle.roles.<agent>.runner in the same write as the runner's block.
	Roles []runner.Agent `json:"roles,omitempty" jsonschema:"maxItems=4"`
	// Endpoints are the base URLs the runner's CLI reaches beside its vendor's API that no *_BASE_URL
	// variable names (a gateway or proxy its own configuration sets): inside abcd's sandbox its network
	// is these, the *_BASE_URL variables it is passed, else its vendor's API.
	Endpoints []provider.BaseURL `json:"endpoints,omitempty" jsonschema:"maxItems=8"`
	// Prices is the block's price table, one "MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]" entry a
	// model, and Billing how its steps are paid for: a provider's or a runner's.
	Prices  []provider.PriceEntry `json:"prices,omitempty" jsonschema:"maxItems=32"`
	Billing provider.BillingMode  `json:"billing,omitempty"`
	// Sandbox off runs the runner's steps, and its proving call, outside abcd's sandbox (written as the
	// block's "sandbox": "off"); unset or on, they run inside it, and the proving call proves it.
	Sandbox runner.SandboxMode `json:"sandbox,omitempty"`
}

// AhoyConnectResult is the block written and what the verification call found.
type AhoyConnectResult struct {
	Name string `json:"name"`
	// File is the machine configuration file the block was written to.
	File string `json:"file"`
	// Models is the allowlist written: the model, then each tier's model.
	Models []string `json:"models"`
	// Tiers are the tiers the provider serves, in order, as tier=model.
	Tiers []string `json:"tiers"`
	// Credential says where the key is read at call time: key_env, key_file, or none.
	Credential    string    `json:"credential"`
	ModelReported string    `json:"model_reported"`
	Next          hint.Next `json:"next"`
	// Routed are the agents whose steps now go to the provider (each with its tier) or to the
	// runner (the agents the machine file sends to it), as a step would route them; Skipped
	// names what abcd offered and did not write (the routing table, without the person's consent).
	Routed  []string `json:"routed"`
	Skipped []string `json:"skipped"`
	// Runner is what abcd checked of a runner's CLI; absent for a provider.
	Runner *RunnerConnected `json:"runner,omitempty"`
}

// RunnerConnected is a connected runner's CLI as abcd checked it.
type RunnerConnected struct {
	CLI        runner.Kind `json:"cli"`
	Executable string      `json:"executable"`
	Version    string      `json:"version"`
	// Flags are the flags abcd passes that the CLI's --help was checked for.
	Flags         []string `json:"flags"`
	CredentialEnv []string `json:"credential_env"`
	PassEnv       []string `json:"pass_env"`
	// Sandbox is what the proving call ran in: linux (abcd's sandbox, proven by the call) or off.
	Sandbox runner.SandboxKind `json:"sandbox"`
}

// AhoyDisconnectInput names the provider or runner to remove.
type AhoyDisconnectInput struct {
	Name provider.Name `json:"name"`
}

// AhoyDisconnectResult says what was removed: the provider's or runner's block (Removed is false
// when the machine file held none) and the roles that pointed at it.
type AhoyDisconnectResult struct {
	Name         string   `json:"name"`
	File         string   `json:"file"`
	Removed      bool     `json:"removed"`
	RolesRemoved []string `json:"roles_removed"`
}

func ConnectVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "ahoy_connect", Path: []string{"ahoy", "connect"}, Example: "abcd ahoy connect local --base-url http://127.0.0.1:11434/v1 --model qwen3-coder\nabcd ahoy connect --runner cc --cli claude --credential-env ANTHROPIC_API_KEY --role implementer",
			Summary:   "Connect an OpenAI-compatible provider (one verification call) or a coding-agent CLI as a runner (its version, flags and one proving call), then its block in the machine file",
			OpenWorld: true}, ahoyConnect),
		verb.Declare(verb.Verb{Name: "ahoy_disconnect", Path: []string{"ahoy", "disconnect"}, Example: "abcd ahoy disconnect local",
			Summary:     "Remove a provider's or a runner's block, and the roles pointing at it, from the machine file",
			Destructive: true, Idempotent: true}, ahoyDisconnect),
	}
}

// ahoyConnect verifies the provider with one small call, then adds its block to the machine file.
// Refused before anything is written: a broken configuration, a name already configured (the
// remedy is ahoy disconnect), a 17th provider, a tier named twice, a denied model, a verification
// call that did not answer.
func ahoyConnect(ctx context.Context, a *Deps, in *AhoyConnectInput) (AhoyConnectResult, error) {
	const verb = "ahoy_connect"
	if err := connectTarget(verb, in, a.Setup.MachinePath(machineConfig)); err != nil {
		return AhoyConnectResult{}, err
	}
	if in.Runner != "" {
		return connectRunner(ctx, a, in)
	}
	files, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	m, runners, err := core.MachineRoutes(stack)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	name := string(in.Name)
	block, res, err := connectBlock(verb, in, m)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	if err := connectRefusal(verb, name, m.Names()); err != nil {
		return AhoyConnectResult{}, err
	}
	if err := nameTaken(verb, "name", name, runners.Names(), "runner"); err != nil {
		return AhoyConnectResult{}, err
	}
	if a.Providers == nil {
		return AhoyConnectResult{}, refusal.New(refusal.CodeProviderUnavailable, "", "this build of abcd has no provider adapter", "use a release build of abcd").On(verb, "")
	}
	deny := m.Denylist()
	check, err := a.Providers.Verify(ctx, ports.ProviderCall{Name: name, BaseURL: string(in.BaseURL), KeyEnv: string(in.KeyEnv),
		KeyFile: string(in.KeyFile), Model: string(in.Model), Denied: deny.Denies})
	if err != nil {
		return AhoyConnectResult{}, err
	}
	sc := a.Scrubber(ctx, ports.ProviderCall{KeyEnv: string(in.KeyEnv), KeyFile: string(in.KeyFile)})
	check.ModelReported, check.Detail = sc.Scrub(check.ModelReported), sc.Scrub(check.Detail)
	if check.FallbackReason != "" {
		return AhoyConnectResult{}, refusal.New(refusal.CodeProviderUnverified, "",
			fmt.Sprintf("the verification call did not answer: %s (%s); nothing was written", review.FallbackReason(check.FallbackReason).Sentence(), check.Detail),
			"check the base URL, the model and the key, then ", refusal.Run(verb, refusal.With("name", name), refusal.Hole("base_url", "url"), refusal.Hole("model", "id"))).On(verb, "")
	}
	res.ModelReported = check.ModelReported
	path := a.Setup.MachinePath(machineConfig)
	res.File = path
	repo := repoLayer(files)
	err = a.UpdateMachineFile(ctx, machineConfig, func(old []byte, present bool) ([]byte, error) {
		doc, err := machineDoc(path, old, present)
		if err != nil {
			return nil, err
		}
		api := child(child(doc, "oracle"), "api")
		// Checked again under the lock: another abcd may have connected meanwhile.
		if err := connectRefusal(verb, name, members(api)); err != nil {
			return nil, err
		}
		if err := nameTaken(verb, "name", name, members(child(child(doc, "oracle"), "runner")), "runner"); err != nil {
			return nil, err
		}
		api[name] = block
		return checkedMachineFile(path, doc, repo)
	})
	if err != nil {
		return AhoyConnectResult{}, err
	}
	if err := a.connectRouting(ctx, name, &res); err != nil {
		return res, err
	}
	return res, nil
}

// connectRouting says exactly what the new provider takes, as a step would route it (the status
// board's resolution). When no routing table is accepted, nothing goes to it: abcd offers the
// machine table install offers, with the person's consent, and names it as skipped where it cannot
// ask (no terminal, MCP).
func (a *Deps) connectRouting(ctx context.Context, name string, res *AhoyConnectResult) error {
	path := a.Setup.MachinePath(machineConfig)
	routed := func() {
		res.Routed = []string{}
		for _, ag := range a.Loop.OracleBoard(ctx).Agents {
			if ag.Route == name {
				res.Routed = append(res.Routed, fmt.Sprintf("%s (%s)", ag.Agent, ag.Tier))
			}
		}
	}
	routed()
	res.Skipped = []string{}
	board := a.Loop.OracleBoard(ctx)
	if len(res.Routed) == 0 && len(res.Tiers) > 0 && board.Readable && !board.Accepted {
		table := a.Setup.MachinePath(core.MachineRouting)
		if a.Prompter != nil && a.Prompter.Interactive() {
			a.Prompter.Show("No routing table is accepted, so every agent goes to the harness and none to " + name + ".\nabcd proposes a model tier and a fan-out bound for each agent it dispatches:\n" + ProposalTable())
			ok, err := a.Prompter.Confirm(ctx, fmt.Sprintf("Accept this routing table for your machine (%s), so the steps whose tier %s serves go to it?", table, name))
			if err != nil {
				return err
			}
			if ok {
				if _, err := a.Setup.CreateMachineFile(core.MachineRouting, ProposalFile()); err != nil {
					return err
				}
				routed()
			} else {
				res.Skipped = append(res.Skipped, table+" (declined)")
			}
		} else {
			res.Skipped = append(res.Skipped, table+" (abcd's proposed routing table: written only with your consent, in a terminal)")
		}
	}
	switch {
	case len(res.Routed) > 0:
		res.Next = hint.Say(fmt.Sprintf("steps of %s now go to %s; to see the route each agent takes, ", strings.Join(res.Routed, ", "), name), hint.Do("status"))
	case len(res.Tiers) == 0:
		res.Next = hint.Say("no tier maps to "+name+" yet, so no step goes to it: point an agent at it with oracle.roles.<agent>.connection in ", hint.At(path, "oracle.roles.<agent>.connection"),
			", or route one step with ", refusal.Field("implement_step", "routes"), " <agent>=<tier>@"+name)
	case !board.Accepted:
		res.Next = hint.Say("no routing table is accepted, so every agent goes to the harness and no step goes to "+name+": accept abcd's proposal in a terminal (", hint.Do("ahoy_install"),
			"), or write your own rows in ", hint.At(a.Setup.MachinePath(core.MachineRouting), "agents.<agent>.tier"))
	default:
		res.Next = hint.Say(fmt.Sprintf("no agent's tier in the routing table is one %s serves (%s), so no step goes to it: set an agent's tier in ", name, strings.Join(res.Tiers, ", ")),
			hint.At(a.Setup.MachinePath(core.MachineRouting), "agents.<agent>.tier"), ", or route one step with ", refusal.Field("implement_step", "routes"), " <agent>=<tier>@"+name)
	}
	return nil
}

// connectBlock is the provider's block and the result it implies.
func connectBlock(verb string, in *AhoyConnectInput, m *provider.Machine) (map[string]any, AhoyConnectResult, error) {
	res := AhoyConnectResult{Name: string(in.Name), Models: []string{string(in.Model)}, Tiers: []string{}, Credential: credentialNone, Routed: []string{}, Skipped: []string{}}
	tiers := map[string]any{}
	given := map[oracle.Tier]string{}
	for _, tm := range in.Tiers {
		tier, model := tm.Split()
		if _, twice := given[tier]; twice {
			return nil, res, refusal.New(refusal.CodeTierTwice, "", fmt.Sprintf("tier %s is given twice", tier), "give each tier once").On(verb, "tiers")
		}
		given[tier] = model
		tiers[string(tier)] = model
		if !slices.Contains(res.Models, model) {
			res.Models = append(res.Models, model)
		}
	}
	for _, t := range provider.ServedTiers() {
		if model, ok := given[t]; ok {
			res.Tiers = append(res.Tiers, string(t)+"="+model)
		}
	}
	deny := m.Denylist()
	for _, id := range res.Models {
		if entry, denied := deny.Denies(id); denied {
			return nil, res, refusal.New(refusal.CodeModelDenied, "", fmt.Sprintf("model %s is denied by the denylist entry %s, and no provider's models override the denylist", id, entry),
				"choose another model").On(verb, "model")
		}
	}
	if in.KeyEnv != "" && in.KeyFile != "" {
		return nil, res, refusal.New(refusal.CodeKeyTwice, "", "names both an environment variable and a file for the key", "give one: ", refusal.Field(verb, "key_env"), " or ", refusal.Field(verb, "key_file")).On(verb, "")
	}
	models := make([]any, len(res.Models))
	for i, id := range res.Models {
		models[i] = id
	}
	block := map[string]any{"base_url": string(in.BaseURL), "models": models}
	if len(tiers) > 0 {
		block["tiers"] = tiers
	}
	switch {
	case in.KeyEnv != "":
		block["key_env"], res.Credential = string(in.KeyEnv), CredentialEnv
	case in.KeyFile != "":
		block["key_file"], res.Credential = string(in.KeyFile), credentialFile
	}
	billing, err := billingOf(verb, in)
	if err != nil {
		return nil, res, err
	}
	maps.Copy(block, billing)
	return block, res, nil
}

// billingOf is a provider's or a runner's billing and price table as its block holds them: each
// model priced once, checked by the one parser the configuration's reader uses.
func billingOf(verb string, in *AhoyConnectInput) (map[string]any, error) {
	entries := core.Strs(in.Prices...)
	if _, err := config.ParsePrices(entries); err != nil {
		return nil, refusal.New(refusal.CodeConfigValueInvalid, "", "the prices "+err.Error(), `give --price "MODEL INPUT OUTPUT" once per model`).On(verb, "prices")
	}
	out := map[string]any{}
	if len(entries) > 0 {
		out["prices"] = anyList(entries)
	}
	if in.Billing != "" {
		out["billing"] = string(in.Billing)
	}
	return out, nil
}

// connectRefusal refuses a provider already configured (never replaced silently) or one past the
// limit.
func connectRefusal(verb, name string, names []string) error {
	return existsRefusal(verb, "name", "provider", name, names, provider.MaxProviders, refusal.CodeProviderExists, refusal.CodeProviderLimit)
}

// existsRefusal refuses a route of this kind (provider, runner) whose name is configured already
// (exists), or one past the limit (limit).
func existsRefusal(verb, field, kind, name string, names []string, max int, exists, limit refusal.Code) error {
	if slices.Contains(names, name) {
		return refusal.New(exists, "", fmt.Sprintf("%s %s is already configured, and abcd never replaces a %s's block silently", kind, name, kind),
			refusal.Run("ahoy_disconnect", refusal.With("name", name)), " first, then connect it again").On(verb, field)
	}
	if len(names) >= max {
		return refusal.New(limit, "", fmt.Sprintf("this machine configures %d %ss, the most it may", len(names), kind),
			"remove one with ", refusal.Run("ahoy_disconnect", refusal.Hole("name", kind))).On(verb, field)
	}
	return nil
}

// ahoyDisconnect removes a provider's or a runner's block, and every oracle.roles.<agent> pointing at
// it (a role pointing at a route that is gone would refuse every later read). A name the file does
// not configure removes nothing and writes nothing.
func ahoyDisconnect(ctx context.Context, a *Deps, in *AhoyDisconnectInput) (AhoyDisconnectResult, error) {
	files, _, err := a.LoadConfig(ctx)
	if err != nil {
		return AhoyDisconnectResult{}, err
	}
	name := string(in.Name)
	path := a.Setup.MachinePath(machineConfig)
	res := AhoyDisconnectResult{Name: name, File: path, RolesRemoved: []string{}}
	repo := repoLayer(files)
	err = a.UpdateMachineFile(ctx, machineConfig, func(old []byte, present bool) ([]byte, error) {
		res.Removed, res.RolesRemoved = false, []string{}
		if !present {
			return nil, nil
		}
		doc, err := machineDoc(path, old, present)
		if err != nil {
			return nil, err
		}
		oracleNS := child(doc, "oracle")
		// A name is a provider's or a runner's, never both; the roles that point at it go with it.
		key := "connection"
		block := child(oracleNS, "api")
		if _, ok := block[name]; !ok {
			key, block = "runner", child(oracleNS, "runner")
		}
		if _, ok := block[name]; !ok {
			return nil, nil
		}
		delete(block, name)
		res.Removed = true
		roles := child(oracleNS, "roles")
		for agent, raw := range roles {
			if role, ok := raw.(map[string]any); ok && role[key] == name {
				delete(roles, agent)
				res.RolesRemoved = append(res.RolesRemoved, agent)
			}
		}
		sort.Strings(res.RolesRemoved)
		prune(oracleNS, "api")
		prune(oracleNS, "runner")
		prune(oracleNS, "roles")
		prune(doc, "oracle")
		return checkedMachineFile(path, doc, repo)
	})
	if err != nil {
		return AhoyDisconnectResult{}, err
	}
	return res, nil
}

// machineDoc reads the machine file as a JSON object, keeping numbers as written; an absent file
// is a new one.
func machineDoc(path string, old []byte, present bool) (map[string]any, error) {
	if !present {
		return map[string]any{"schema_version": json.Number("1")}, nil
	}
	if err := config.CheckStrict(path, old); err != nil {
		return nil, core.ConfigRefusal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(old))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, core.ConfigRefusal(&config.FileError{File: path, Msg: "is not a JSON object"})
	}
	return doc, nil
}

// child is the object under key, made when absent. A member of another type is replaced only if the
// checks after refuse nothing, which they would: a non-object oracle or api fails the parse.
func child(obj map[string]any, key string) map[string]any {
	if c, ok := obj[key].(map[string]any); ok {
		return c
	}
	c := map[string]any{}
	if _, taken := obj[key]; !taken {
		obj[key] = c
	}
	return c
}

// prune removes an empty object member.
func prune(obj map[string]any, key string) {
	if c, ok := obj[key].(map[string]any); ok && len(c) == 0 {
		delete(obj, key)
	}
}

// checkedMachineFile writes doc as the machine file and checks it as every later read will: parsed,
// validated, and its providers loaded beside the repository's layer. A file abcd would refuse is never
// written.
func checkedMachineFile(path string, doc map[string]any, repo *config.Source) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	src, err := config.ParseConfig(config.LayerMachine, path, b.Bytes())
	if err == nil {
		err = config.Validate(src, path)
	}
	if err != nil {
		return nil, core.ConfigRefusal(err)
	}
	if _, _, err := core.MachineRoutes(config.NewStack(nil, repo, &src)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// repoLayer is the repository's configuration layer, for checking a machine file beside it (its
// denylist applies); nil when there is none or it does not parse (loadConfig refused that already).
func repoLayer(files ports.ConfigFiles) *config.Source {
	if !files.RepoConfig.Present {
		return nil
	}
	src, err := config.ParseConfig(config.LayerRepo, files.RepoConfig.Path, files.RepoConfig.Data)
	if err != nil {
		return nil
	}
	return &src
}
