package setup

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	loopuc "github.com/abcd-dev/abcd/ports/loop"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// connectTarget refuses an input that names no route, names both a provider and a runner, or gives a
// provider's value to a runner (or a runner's to a provider).
func connectTarget(verb string, in *AhoyConnectInput, machineFile string) error {
	switch {
	case in.Name == "" && in.Runner == "":
		return refusal.New(refusal.CodeConnectTarget, "", "names neither a provider nor a runner",
			"name a provider and its address (", refusal.Run(verb, refusal.Hole("name", "provider"), refusal.Hole("base_url", "url"), refusal.Hole("model", "id")),
			"), or a runner and its CLI (", refusal.Run(verb, refusal.Hole("runner", "name"), refusal.Hole("cli", "claude")), ")").On(verb, "")
	case in.Name != "" && in.Runner != "":
		return refusal.New(refusal.CodeConnectTarget, "", "names both a provider and a runner", "connect one at a time").On(verb, "")
	case in.Runner != "":
		for field, given := range map[string]bool{"base_url": in.BaseURL != "", "key_env": in.KeyEnv != "", "key_file": in.KeyFile != ""} {
			if given {
				return refusal.New(refusal.CodeConnectMixed, "", "a runner takes no "+field+": its CLI reaches its vendor itself",
					"name the variables the CLI reads with ", refusal.Field(verb, "credential_env"), " and ", refusal.Field(verb, "pass_env")).On(verb, field)
			}
		}
		if in.CLI == "" {
			return refusal.New(refusal.CodeCLIMissing, "", "names a runner but not the CLI it drives", "give ", refusal.Field(verb, "cli"), ": claude, codex, gemini or acp").On(verb, "cli")
		}
		if len(in.Args) > 0 && in.CLI != runner.ACP {
			return refusal.New(refusal.CodeArgsNotACP, "", fmt.Sprintf("a %s runner takes no arguments: abcd owns its command line", in.CLI),
				"leave out ", refusal.Field(verb, "args"), ", or connect an ACP agent with ", refusal.Field(verb, "cli"), " acp").On(verb, "args")
		}
	default:
		if len(in.Roles) > 0 {
			return refusal.New(refusal.CodeConnectMixed, "", "a provider takes no roles: ahoy connect sends agents to a runner",
				"point an agent at a provider with oracle.roles.<agent>.connection in "+machineFile).On(verb, "roles")
		}
		for field, given := range map[string]bool{"cli": in.CLI != "", "executable": in.Executable != "", "args": len(in.Args) > 0, "credential_env": len(in.CredentialEnv) > 0, "pass_env": len(in.PassEnv) > 0} {
			if given {
				return refusal.New(refusal.CodeConnectMixed, "", "a provider takes no "+field+"; a runner does",
					"connect a runner with ", refusal.Run(verb, refusal.Hole("runner", "name"), refusal.Hole("cli", "claude"))).On(verb, field)
			}
		}
		if in.BaseURL == "" || in.Model == "" {
			return refusal.New(refusal.CodeProviderIncomplete, "", "a provider needs its base URL and a model to verify it with",
				"give ", refusal.Field(verb, "base_url"), " and ", refusal.Field(verb, "model")).On(verb, "")
		}
	}
	return nil
}

// nameTaken refuses a name another kind of route already has.
func nameTaken(verb, field, name string, names []string, kind string) error {
	if slices.Contains(names, name) {
		return refusal.New(refusal.CodeNameTaken, "", fmt.Sprintf("%s is already a %s's name, and a route's name says one route", name, kind),
			"choose another name, or ", refusal.Run("ahoy_disconnect", refusal.With("name", name)), " first").On(verb, field)
	}
	return nil
}

// members lists an object's keys, sorted.
func members(obj map[string]any) []string { return slices.Sorted(maps.Keys(obj)) }

// connectRunner checks the runner's CLI (executable, version, flags, one proving call with its
// credentials) and only then adds its block to the machine file. Refused before anything is
// written: a broken configuration, a name taken, a 17th runner, a CLI abcd cannot drive, a variable
// named twice, a check that failed (its words say which flag or version drifted).
func connectRunner(ctx context.Context, a *Deps, in *AhoyConnectInput) (AhoyConnectResult, error) {
	const verb = "ahoy_connect"
	files, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	providers, runners, err := core.MachineRoutes(stack)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	name := string(in.Runner)
	if err := runnerRefusal(verb, name, runners.Names()); err != nil {
		return AhoyConnectResult{}, err
	}
	if err := nameTaken(verb, "runner", name, providers.Names(), "provider"); err != nil {
		return AhoyConnectResult{}, err
	}
	if why := in.CLI.Unsupported(); why != "" {
		return AhoyConnectResult{}, refusal.New(refusal.CodeRunnerUnsupported, "", fmt.Sprintf("abcd cannot drive %s: %s", in.CLI.Name(), why),
			"connect claude, codex, gemini or acp").On(verb, "cli")
	}
	r, tiers, err := runnerOfInput(verb, name, in)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	res := AhoyConnectResult{Name: name, Models: []string{}, Tiers: []string{}, Credential: credentialNone, Routed: []string{}, Skipped: []string{}}
	for _, t := range provider.ServedTiers() {
		if model, ok := r.Tiers[t]; ok {
			res.Tiers = append(res.Tiers, string(t)+"="+model)
			if !slices.Contains(res.Models, model) {
				res.Models = append(res.Models, model)
			}
		}
	}
	agents, path := connectAgents(in.Roles), a.Setup.MachinePath(machineConfig)
	if err := rolesRefusal(verb, name, path, agents, routeInMachine(providers, runners)); err != nil {
		return AhoyConnectResult{}, err
	}
	if a.Runners == nil {
		return AhoyConnectResult{}, refusal.New(refusal.CodeRunnerUnavailable, "", "this build of abcd drives no runner", "use a release build of abcd").On(verb, "")
	}
	r.SandboxOff = in.Sandbox == runner.SandboxModeOff
	billing, err := billingOf(verb, in)
	if err != nil {
		return AhoyConnectResult{}, err
	}
	rep, err := a.Runners.Check(ctx, ports.RunnerCheck{Runner: r, Prove: true, Model: string(in.Model), Sandbox: a.Loop.FenceFor(r, ports.SandboxRoleConnect, "")})
	if err != nil {
		return AhoyConnectResult{}, err
	}
	creds := make([]ports.ProviderCall, len(r.CredentialEnv))
	for i, env := range r.CredentialEnv {
		creds[i] = ports.ProviderCall{KeyEnv: env}
	}
	rep = core.ScrubReport(a.Scrubber(ctx, creds...), rep)
	if rep.Failure != nil {
		return AhoyConnectResult{}, loopuc.CheckRefusal(verb, name, in.CLI, rep, "; nothing was written", refusal.Run(verb, connectAgain(in, r, agents)...))
	}
	r.Executable = rep.Executable
	block := runnerBlock(in, r, rep, tiers)
	maps.Copy(block, billing)
	if len(r.CredentialEnv) > 0 {
		res.Credential = CredentialEnv
	}
	res.File, res.ModelReported = path, rep.ModelReported
	res.Runner = &RunnerConnected{CLI: in.CLI, Executable: rep.Executable, Version: rep.Version, Flags: core.NonNil(rep.Flags),
		CredentialEnv: core.NonNil(r.CredentialEnv), PassEnv: core.NonNil(r.PassEnv), Sandbox: runner.SandboxOff}
	if rep.Sandbox != nil {
		res.Runner.Sandbox = rep.Sandbox.Kind
	}
	repo := repoLayer(files)
	err = a.UpdateMachineFile(ctx, machineConfig, func(old []byte, present bool) ([]byte, error) {
		doc, err := machineDoc(path, old, present)
		if err != nil {
			return nil, err
		}
		oracleNS := child(doc, "oracle")
		block0 := child(oracleNS, "runner")
		// Checked again under the lock: another abcd may have connected meanwhile.
		if err := runnerRefusal(verb, name, members(block0)); err != nil {
			return nil, err
		}
		if err := nameTaken(verb, "runner", name, members(child(oracleNS, "api")), "provider"); err != nil {
			return nil, err
		}
		roles, _ := oracleNS["roles"].(map[string]any)
		if err := rolesRefusal(verb, name, path, agents, routeInDoc(roles)); err != nil {
			return nil, err
		}
		block0[name] = block
		res.Routed = sendAgents(oracleNS, name, agents)
		prune(oracleNS, "api")
		return checkedMachineFile(path, doc, repo)
	})
	if err != nil {
		return AhoyConnectResult{}, err
	}
	if len(res.Routed) > 0 {
		res.Next = hint.Say(fmt.Sprintf("steps of %s now go to %s; to drive a spec's steps through it, ", strings.Join(res.Routed, ", "), name),
			hint.Do("implement_run", hint.Hole("spec", "spec")))
		return res, nil
	}
	res.Next = hint.Say("send an agent's steps to "+name+" with ", refusal.Field(verb, "roles"), " when you connect it, or with oracle.roles.<agent>.runner in ", hint.At(path, "oracle.roles.<agent>.runner"),
		"; then ", hint.Do("implement_run"), " to drive a spec's steps through it")
	return res, nil
}

// runnerBlock is the runner's block connect writes: what was checked (the CLI, its executable and
// version), the tiers, the variables named, the endpoints declared and a sandbox turned off.
func runnerBlock(in *AhoyConnectInput, r runner.Runner, rep ports.RunnerReport, tiers map[string]any) map[string]any {
	block := map[string]any{"cli": string(in.CLI), "executable": rep.Executable, "version": rep.Version}
	if len(r.Args) > 0 {
		block["args"] = anyList(r.Args)
	}
	if len(tiers) > 0 {
		block["tiers"] = tiers
	}
	if len(r.CredentialEnv) > 0 {
		block["credential_env"] = anyList(r.CredentialEnv)
	}
	if len(r.PassEnv) > 0 {
		block["pass_env"] = anyList(r.PassEnv)
	}
	if len(in.Endpoints) > 0 {
		block["endpoints"] = anyList(core.Strs(in.Endpoints...))
	}
	if r.SandboxOff {
		block["sandbox"] = string(runner.SandboxModeOff)
	}
	return block
}

// runnerOfInput is the runner a connect names, before its CLI is checked: its variables (each named
// once) and its tiers (each given once), with the tiers as the machine file's block writes them.
func runnerOfInput(verb, name string, in *AhoyConnectInput) (runner.Runner, map[string]any, error) {
	r := runner.Runner{Name: name, CLI: in.CLI, Executable: string(in.Executable), Args: core.Strs(in.Args...), Tiers: map[oracle.Tier]string{}, Concurrency: 1, Limits: runner.DefaultLimits()}
	seen := map[runner.EnvName]string{}
	for _, list := range []struct {
		field string
		names []runner.EnvName
		out   *[]string
	}{{"credential_env", in.CredentialEnv, &r.CredentialEnv}, {"pass_env", in.PassEnv, &r.PassEnv}} {
		for _, n := range list.names {
			if other, twice := seen[n]; twice {
				return r, nil, refusal.New(refusal.CodeEnvTwice, "", fmt.Sprintf("%s is named twice (in %s and %s)", n, other, list.field), "name each variable once").On(verb, list.field)
			}
			seen[n] = list.field
			*list.out = append(*list.out, string(n))
		}
	}
	seenURL := map[provider.BaseURL]bool{}
	for _, u := range in.Endpoints {
		e, err := runner.EndpointOf(string(u))
		if err != nil {
			return r, nil, refusal.New(refusal.CodeBaseURLInvalid, "", fmt.Sprintf("%s is not an address a runner can reach: %s", text.Clip(string(u)), err),
				"give its base URL: https, or http to a loopback address").On(verb, "endpoints")
		}
		if seenURL[u] {
			return r, nil, refusal.New(refusal.CodeInputInvalid, "", fmt.Sprintf("%s is given twice", text.Clip(string(u))), "give each address once").On(verb, "endpoints")
		}
		seenURL[u] = true
		r.Endpoints = append(r.Endpoints, e)
	}
	tiers := map[string]any{}
	for _, tm := range in.Tiers {
		tier, model := tm.Split()
		if _, twice := r.Tiers[tier]; twice {
			return r, nil, refusal.New(refusal.CodeTierTwice, "", fmt.Sprintf("tier %s is given twice", tier), "give each tier once").On(verb, "tiers")
		}
		r.Tiers[tier], tiers[string(tier)] = model, model
	}
	return r, tiers, nil
}

// connectAgain is the command a failed check's remedy gives: the one the person ran, whole, so
// following it connects the same runner.
func connectAgain(in *AhoyConnectInput, r runner.Runner, agents []string) []refusal.Arg {
	again := []refusal.Arg{refusal.With("runner", r.Name), refusal.With("cli", string(in.CLI))}
	if in.Executable != "" {
		again = append(again, refusal.With("executable", string(in.Executable)))
	}
	if len(r.Args) > 0 {
		again = append(again, refusal.With("args", r.Args))
	}
	if len(r.CredentialEnv) > 0 {
		again = append(again, refusal.With("credential_env", r.CredentialEnv))
	}
	if len(r.PassEnv) > 0 {
		again = append(again, refusal.With("pass_env", r.PassEnv))
	}
	if in.Model != "" {
		again = append(again, refusal.With("model", string(in.Model)))
	}
	if len(in.Tiers) > 0 {
		again = append(again, refusal.With("tiers", core.Strs(in.Tiers...)))
	}
	if len(agents) > 0 {
		again = append(again, refusal.With("roles", agents))
	}
	if len(in.Endpoints) > 0 {
		again = append(again, refusal.With("endpoints", core.Strs(in.Endpoints...)))
	}
	if in.Sandbox != "" {
		again = append(again, refusal.With("sandbox", string(in.Sandbox)))
	}
	return again
}

// runnerRefusal refuses a runner already configured (never replaced silently) or one past the limit.
func runnerRefusal(verb, name string, names []string) error {
	return existsRefusal(verb, "runner", "runner", name, names, runner.MaxRunners, refusal.CodeRunnerExists, refusal.CodeRunnerLimit)
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
