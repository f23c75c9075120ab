// Package config holds the configuration files' shapes. The layered resolver that reads them lives
// beside these types and stays pure: it is handed bytes, never paths.
package config

import (
	"encoding/json"

	"github.com/abcd-dev/abcd/domain/contract"
)

// File is the shape of both configuration files: .abcd/config.json in the repository and
// config.json under $ABCD_HOME on the machine. Namespaces are claimed by the consumers that read them.
type File struct {
	SchemaVersion int     `json:"schema_version"`
	SetupVersion  int     `json:"setup_version,omitempty" jsonschema:"minimum=1"`
	Oracle        *Oracle `json:"oracle,omitempty"`
	Build         *Build  `json:"build,omitempty"`
	Lock          *Lock   `json:"lock,omitempty"`
	// History is this machine's history of the agents' sessions; only the machine file may declare it.
	History *History `json:"history,omitempty"`
}

// History is the history namespace.
type History struct {
	// MaxMB bounds one repository's history on this machine, in MiB: past it, the oldest captured
	// sessions are removed. Unset, it is 2048.
	MaxMB *int `json:"max_mb,omitempty" jsonschema:"minimum=16,maximum=1048576"`
}

// Oracle is the oracle namespace: which route reviews take, where the RepoPrompt server is, the
// OpenAI-compatible providers this machine has, and which agent a provider takes.
type Oracle struct {
	Review string              `json:"review,omitempty"`
	RP     *RP                 `json:"rp,omitempty"`
	API    map[string]Provider `json:"api,omitempty" jsonschema:"maxProperties=16"`
	// Runner holds the headless coding-agent CLIs this machine runs steps on.
	Runner map[string]Runner `json:"runner,omitempty" jsonschema:"maxProperties=16"`
	Roles  map[string]Role   `json:"roles,omitempty"`
	// Denylist holds vendor/* prefixes and model ids no provider may be asked for or answer with. The
	// repository's and the machine's lists are unioned; no provider's models override it.
	Denylist []string `json:"denylist,omitempty" jsonschema:"maxItems=256"`
}

// Provider is an OpenAI-compatible provider block. Only the machine file may declare it.
type Provider struct {
	BaseURL string `json:"base_url,omitempty" jsonschema:"maxLength=2048"`
	// KeyEnv names the environment variable holding the key; the key itself is never in a file.
	KeyEnv string `json:"key_env,omitempty" jsonschema:"pattern=^[A-Z_][A-Z0-9_]*$,maxLength=128"`
	// KeyFile is an absolute path to a file holding the key, the person's own and mode 0600. A
	// keyless local server names neither.
	KeyFile string `json:"key_file,omitempty" jsonschema:"maxLength=4096"`
	// Models is the allowlist: the only models this provider is ever asked for.
	Models []string `json:"models,omitempty" jsonschema:"minItems=1,maxItems=64,uniqueItems=true"`
	// Tiers maps a tier (local, economy, frontier) to the model on Models the provider serves for it.
	Tiers ProviderTiers `json:"tiers,omitempty"`
	// Defaults are settings the provider receives unless a routing row or a --route flag gives another.
	Defaults ProviderDefaults `json:"defaults,omitempty"`
	// Billing is metered (unset) or subscription: a subscription's steps cost is unmetered.
	Billing string `json:"billing,omitempty"`
	// Prices is the provider's price table, "MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]" in US
	// dollars per million tokens: the tokens a step reports are priced for the model that answered.
	Prices []string `json:"prices,omitempty" jsonschema:"maxItems=32,uniqueItems=true"`
}

// ProviderTiers maps a tier to a model name.
type ProviderTiers map[string]string

// ProviderDefaults maps a setting a provider accepts to its value, kept as its JSON text.
type ProviderDefaults map[string]json.RawMessage

// Role is what the machine says about one agent.
type Role struct {
	// Connection is the provider this machine points the agent at.
	Connection string `json:"connection,omitempty" jsonschema:"maxLength=64"`
	// Runner is the runner this machine sends the agent's steps to; an agent names a connection or a
	// runner, never both.
	Runner string `json:"runner,omitempty" jsonschema:"maxLength=64"`
	// Model is the model the agent asks its provider or runner for; a provider's must be on its models.
	Model string `json:"model,omitempty" jsonschema:"maxLength=200"`
}

// Runner is a headless coding-agent CLI block. Only the machine file may declare it; abcd ahoy
// connect --runner writes it after checking the CLI.
type Runner struct {
	// CLI is the coding-agent CLI: claude, codex, gemini, acp, qoder or opencode.
	CLI string `json:"cli,omitempty"`
	// Executable is the CLI's absolute path, executed directly.
	Executable string `json:"executable,omitempty" jsonschema:"maxLength=4096"`
	// Args are the arguments an acp runner's executable is started with (--acp for Gemini CLI).
	Args []string `json:"args,omitempty" jsonschema:"maxItems=32"`
	// Version is the CLI's version when it was connected.
	Version string `json:"version,omitempty" jsonschema:"maxLength=20,pattern=^[0-9]+\\.[0-9]+\\.[0-9]+$"`
	// Tiers maps a tier (local, economy, frontier) to the model the CLI is asked for.
	Tiers ProviderTiers `json:"tiers,omitempty"`
	// CredentialEnv names the environment variables holding the CLI's credentials (never the values).
	CredentialEnv []string `json:"credential_env,omitempty" jsonschema:"maxItems=16,uniqueItems=true"`
	// PassEnv names the other environment variables the CLI needs (a base URL, a proxy, a region).
	PassEnv []string `json:"pass_env,omitempty" jsonschema:"maxItems=32,uniqueItems=true"`
	// Concurrency is how many steps the runner takes at once.
	Concurrency int `json:"concurrency,omitempty" jsonschema:"minimum=1,maximum=16"`
	// Endpoints are the base URLs the CLI reaches beside its vendor's API that no *_BASE_URL variable
	// names (a gateway or proxy its own configuration sets).
	Endpoints []string `json:"endpoints,omitempty" jsonschema:"maxItems=8,uniqueItems=true"`
	// Sandbox is on (unset) or off: off runs the runner's steps outside abcd's sandbox.
	Sandbox string        `json:"sandbox,omitempty"`
	Limits  *RunnerLimits `json:"limits,omitempty"`
	// Billing is metered (unset) or subscription: a subscription's steps cost is unmetered.
	Billing string `json:"billing,omitempty"`
	// Prices is the runner's price table, "MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]" in US dollars
	// per million tokens, for a CLI that reports tokens but no cost.
	Prices []string `json:"prices,omitempty" jsonschema:"maxItems=32,uniqueItems=true"`
}

// RunnerLimits bound each of a runner's steps.
type RunnerLimits struct {
	WallClockS  int     `json:"wall_clock_s,omitempty" jsonschema:"minimum=10,maximum=86400"`
	FirstEventS int     `json:"first_event_s,omitempty" jsonschema:"minimum=1,maximum=3600"`
	SilenceS    int     `json:"silence_s,omitempty" jsonschema:"minimum=1,maximum=3600"`
	Turns       int     `json:"turns,omitempty" jsonschema:"minimum=1,maximum=10000"`
	APIRetries  *int    `json:"api_retries,omitempty" jsonschema:"minimum=0,maximum=10"`
	BudgetUSD   float64 `json:"budget_usd,omitempty" jsonschema:"minimum=0.01,maximum=10000"`
}

// RP names the person's RepoPrompt MCP server. Only the machine file may declare it.
type RP struct {
	URL  string `json:"url,omitempty" jsonschema:"maxLength=2048"`
	Tool string `json:"tool,omitempty" jsonschema:"pattern=^[A-Za-z0-9_.-]+$,maxLength=128"`
}

// Build is the build loop's namespace.
type Build struct {
	// DoD is the definition-of-done command an implementer runs before handing a lane back.
	DoD string `json:"dod,omitempty" jsonschema:"maxLength=1024"`
	// DoDEnv names the environment variables the definition of done is given, beside a runner's
	// allowlist, when abcd runs it on a runner's work (names only).
	DoDEnv []string `json:"dod_env,omitempty" jsonschema:"maxItems=32,uniqueItems=true"`
	// FixRounds is how many failed validation rounds a lane may have before it is handed back.
	FixRounds int `json:"fix_rounds,omitempty" jsonschema:"minimum=1,maximum=10"`
	// Base is the commit a run starts from, and a review or audit compares with, when none is given:
	// a branch, a tag or a commit. Unset, it is the repository's default branch.
	Base string `json:"base,omitempty" jsonschema:"minLength=1,maxLength=255"`
	// Notify is the command abcd runs with one JSON event on its stdin when an implement run ends in
	// a way the person wants to hear of; only the machine file may declare it.
	Notify string `json:"notify,omitempty" jsonschema:"minLength=1,maxLength=1024"`
	// Budget bounds what an implement run may spend in all; --budget-usd, --budget-tokens and
	// --budget-minutes set one for one invocation.
	Budget *Budget `json:"budget,omitempty"`
	// Finish is how a run whose audit passed ends: branch (its integration branch), merge (the
	// default branch fast-forwarded to it) or pr (pushed to Remote, a pull request opened with gh).
	Finish string `json:"finish,omitempty"`
	// Remote is the git remote build.finish pr pushes to and opens the pull request on (origin).
	Remote string `json:"remote,omitempty" jsonschema:"pattern=^[A-Za-z0-9_.-]+$,maxLength=64"`
}

// Budget bounds an implement run's spending: US dollars, tokens (input and output) and minutes of
// its steps' wall time. Each unset bound is no bound.
type Budget struct {
	USD     float64 `json:"usd,omitempty" jsonschema:"minimum=0.01,maximum=100000"`
	Tokens  int64   `json:"tokens,omitempty" jsonschema:"minimum=1,maximum=10000000000"`
	Minutes int     `json:"minutes,omitempty" jsonschema:"minimum=1,maximum=100000"`
}

// Lock is the locks' namespace.
type Lock struct {
	// WaitMS is how long, in milliseconds, a writer waits for another abcd holding the record's or a
	// run's lock before it gives up with exit 3 (0: it tries once). Unset, it is 3000.
	WaitMS *int `json:"wait_ms,omitempty" jsonschema:"minimum=0,maximum=60000"`
}

// FileVersion is the schema_version of both configuration files.
const FileVersion = 1

// ReviewRoutes are oracle.review's values: host (the person's harness) or rp (RepoPrompt).
func ReviewRoutes() []string { return []string{"host", "rp"} }

func (File) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(FileVersion)}
}

func (Oracle) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"review": contract.Enum(ReviewRoutes()...)}
}

// Finishes are build.finish's values (domain/loop's Finish, which this package cannot import).
func Finishes() []string { return []string{"branch", "merge", "pr"} }

func (Build) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"finish": contract.Enum(Finishes()...)}
}

func (Runner) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"cli": contract.Enum(RunnerCLIs()...), "sandbox": contract.Enum(RunnerSandboxes()...), "billing": contract.Enum(Billings()...)}
}

func (Provider) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"billing": contract.Enum(Billings()...)}
}
