package config

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// Key is one key abcd reads from the configuration files: the one place that says which keys exist,
// which layer may declare them, their bundled default, and the check a winning value must pass.
type Key struct {
	// Pattern is the dotted key; a * segment matches one name (a connection, an agent, a tier).
	Pattern string
	// MachineOnly keys say where a person's own data goes (an address, a provider), so a repository
	// file that declares one is refused.
	MachineOnly bool
	// Why says why a machine-only key is the machine's alone, where a repository's file declaring it
	// would do harm ("" for one that only says where a person's own data goes).
	Why string
	// List keys take a JSON array (a provider's models, the denylist); every other key a scalar.
	List bool
	// Default is the bundled layer's value, or nil when the key has none.
	Default json.RawMessage
	Doc     string
	check   func(v json.RawMessage) error
}

// Keys lists every key in a fixed order. Consumers claim the namespaces they read (oracle, build):
// under a claimed namespace, a key that matches no pattern is refused.
func Keys() []Key {
	return []Key{
		{Pattern: "setup_version", Doc: "the setup abcd ahoy install last ran", check: positiveInt},
		{Pattern: "build.dod", Doc: "the definition-of-done command an implementer runs before handing a lane back", check: stringMax(1024)},
		{Pattern: "build.fix_rounds", Default: json.RawMessage(`3`), Doc: "failed validation rounds a lane may have before it is handed back", check: intRange(1, 10)},
		{Pattern: "build.dod_env", List: true, Doc: "the names of the environment variables the definition of done is given beside a runner's allowlist (PATH, HOME, the locale, the git identity) when abcd runs it on a runner's work: names only, values from your environment", check: envList(32)},
		{Pattern: "build.budget.usd", Doc: "US dollars an implement run may spend in all (0.01 to 100000): before each step, what is spent plus the step's own cap; over it, the run ends budget", check: numberRange(0.01, 100000)},
		{Pattern: "build.budget.tokens", Doc: "tokens (input and output) an implement run may spend in all (1 to 10000000000)", check: intRange(1, 10_000_000_000)},
		{Pattern: "build.budget.minutes", Doc: "minutes of steps' wall time an implement run may spend in all (1 to 100000)", check: intRange(1, 100000)},
		{Pattern: "build.finish", Default: json.RawMessage(`"branch"`), Doc: "how a run whose audit passed ends: branch (its integration branch, for you to merge), merge (the default branch fast-forwarded to it) or pr (the branch pushed to build.remote and a pull request opened with your gh)", check: oneOf(Finishes()...)},
		{Pattern: "build.remote", Default: json.RawMessage(`"origin"`), Doc: "the git remote build.finish pr pushes the integration branch to and opens the pull request on", check: name(64)},
		{Pattern: "build.notify", MachineOnly: true, Why: "a command the repository's file named would run on the machine of everyone who clones it",
			Doc: "the command abcd runs, through the system's shell, with one JSON event (notify_event) on its stdin when an implement run finishes, needs you, stops at its budget or fails: at most 5 s, then its process group is ended; a failing notifier never fails the run (unset: the terminal bell, when stderr is a terminal)", check: stringMax(1024)},
		{Pattern: "build.base", Doc: "the commit a run's lanes start from and a review or audit compares with, when none is given (default: the repository's default branch)", check: revision},
		{Pattern: "history.max_mb", MachineOnly: true, Default: json.RawMessage(`2048`), Doc: "how large, in MiB, this machine's history of one repository may grow before the oldest captured sessions are removed (16 to 1048576)", check: intRange(16, 1<<20)},
		{Pattern: "lock.wait_ms", Default: json.RawMessage(`3000`), Doc: "how long, in milliseconds, a writer waits for another abcd holding the record's or a run's lock before it gives up with exit 3 (0: try once)", check: intRange(0, 60000)},
		{Pattern: "oracle.review", Default: json.RawMessage(`"host"`), Doc: "the route reviews take: host (your harness) or rp (RepoPrompt)", check: oneOf(ReviewRoutes()...)},
		{Pattern: "oracle.rp.url", MachineOnly: true, Doc: "the RepoPrompt MCP server's address: http(s) on a loopback address", check: loopbackURL},
		{Pattern: "oracle.rp.tool", MachineOnly: true, Default: json.RawMessage(`"oracle_send"`), Doc: "the RepoPrompt tool reviews are sent to", check: name(128)},
		{Pattern: "oracle.api.*.base_url", MachineOnly: true, Doc: "an OpenAI-compatible provider's base URL: https, or http on a loopback address", check: providerURL},
		{Pattern: "oracle.api.*.key_env", MachineOnly: true, Doc: "the environment variable that holds the provider's key (never the key itself)", check: envName},
		{Pattern: "oracle.api.*.key_file", MachineOnly: true, Doc: "an absolute path to a file holding the provider's key: yours, mode 0600 (never the key itself)", check: absPath},
		{Pattern: "oracle.api.*.models", MachineOnly: true, List: true, Doc: "the provider's allowlist: a JSON array of 1 to 64 model ids it may be asked for", check: modelList},
		{Pattern: "oracle.api.*.tiers.*", MachineOnly: true, Doc: "the model the provider serves for a tier (local, economy or frontier); it must be on the provider's models", check: modelID},
		{Pattern: "oracle.api.*.defaults.*", MachineOnly: true, Doc: "a setting the provider receives unless the routing row or --route gives another: " + strings.Join(ProviderSettings(), ", "), check: nil},
		{Pattern: "oracle.api.*.billing", MachineOnly: true, Doc: "metered (unset): a step costs what its tokens cost at prices; subscription: a plan's flat fee (or a server of your own), so a step's cost is unmetered", check: oneOf(Billings()...)},
		{Pattern: "oracle.api.*.prices", MachineOnly: true, List: true, Doc: "the provider's price table, to price the tokens it reports: a JSON array of up to 32 \"MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]\" entries in US dollars per million tokens; a model it leaves out costs unknown", check: priceList},
		{Pattern: "oracle.runner.*.cli", MachineOnly: true, Doc: "the coding-agent CLI a runner drives: " + strings.Join(RunnerCLIs(), ", "), check: oneOf(RunnerCLIs()...)},
		{Pattern: "oracle.runner.*.executable", MachineOnly: true, Doc: "the absolute path of the runner's CLI, executed directly (no shell)", check: absPath},
		{Pattern: "oracle.runner.*.args", MachineOnly: true, List: true, Doc: "the arguments an acp runner's executable is started with, before any of abcd's (such as --acp for Gemini CLI): at most 32, each at most 4096 bytes; only an acp runner takes them", check: argList(32)},
		{Pattern: "oracle.runner.*.version", MachineOnly: true, Doc: "the CLI's version abcd ahoy connect checked (major.minor.patch); the version is checked again before each run", check: versionText},
		{Pattern: "oracle.runner.*.tiers.*", MachineOnly: true, Doc: "the model the runner's CLI is asked for at a tier (local, economy or frontier); unset, the CLI's own default", check: modelID},
		{Pattern: "oracle.runner.*.credential_env", MachineOnly: true, List: true, Doc: "the names of the environment variables holding the runner's credentials (never the values): passed to the CLI, and scrubbed from everything it says", check: envList(16)},
		{Pattern: "oracle.runner.*.pass_env", MachineOnly: true, List: true, Doc: "the names of the other environment variables the CLI needs passed through (a base URL, a proxy, a cloud region): names only, values from your environment", check: envList(32)},
		{Pattern: "oracle.runner.*.endpoints", MachineOnly: true, List: true, Doc: "the base URLs the runner's CLI reaches beside its vendor's API that no *_BASE_URL variable names (a gateway or proxy its own configuration sets): https, or http only to a loopback address; inside abcd's sandbox its network is these, the *_BASE_URL variables it is passed, else its vendor's API", check: urlList(8)},
		{Pattern: "oracle.runner.*.sandbox", MachineOnly: true, Doc: "on (unset): every step of the runner, and the definition of done abcd runs on its work, runs inside abcd's sandbox; off runs them unconfined, which every receipt then says", check: oneOf(RunnerSandboxes()...)},
		{Pattern: "oracle.runner.*.concurrency", MachineOnly: true, Doc: "how many steps the runner takes at once (1 to 16; unset, 1)", check: intRange(1, 16)},
		{Pattern: "oracle.runner.*.limits.wall_clock_s", MachineOnly: true, Doc: "seconds a runner's step may take in all (10 to 86400; unset, 3600)", check: intRange(10, 86400)},
		{Pattern: "oracle.runner.*.limits.first_event_s", MachineOnly: true, Doc: "seconds the CLI may take to print its first event (1 to 3600; unset, 120)", check: intRange(1, 3600)},
		{Pattern: "oracle.runner.*.limits.silence_s", MachineOnly: true, Doc: "seconds the CLI may print nothing between two events (1 to 3600; unset, 600)", check: intRange(1, 3600)},
		{Pattern: "oracle.runner.*.limits.turns", MachineOnly: true, Doc: "model turns a step may take (1 to 10000; unset, 200)", check: intRange(1, 10000)},
		{Pattern: "oracle.runner.*.limits.api_retries", MachineOnly: true, Doc: "times the CLI may retry its API within a step before abcd ends it (0 to 10; unset, 2)", check: intRange(0, 10)},
		{Pattern: "oracle.runner.*.limits.budget_usd", MachineOnly: true, Doc: "US dollars a step may spend, for a CLI that reports its cost (claude); unset, no bound", check: numberRange(0.01, 10000)},
		{Pattern: "oracle.runner.*.billing", MachineOnly: true, Doc: "metered (unset): a step costs what the CLI reports, else what its tokens cost at prices; subscription: a plan's flat fee, so a step's cost is unmetered", check: oneOf(Billings()...)},
		{Pattern: "oracle.runner.*.prices", MachineOnly: true, List: true, Doc: "the runner's price table, for a CLI that reports tokens but no cost: a JSON array of up to 32 \"MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]\" entries in US dollars per million tokens", check: priceList},
		{Pattern: "oracle.roles.*.connection", MachineOnly: true, Doc: "the provider this machine points an agent at", check: name(64)},
		{Pattern: "oracle.roles.*.runner", MachineOnly: true, Doc: "the runner this machine sends an agent's steps to (the implementer's too)", check: name(64)},
		{Pattern: "oracle.roles.*.model", MachineOnly: true, Doc: "the model the agent asks its provider or runner for; a provider's must be on its models (default: its tier's model)", check: modelID},
		{Pattern: "oracle.denylist", List: true, Doc: "models no provider may be asked for or answer with: a JSON array of vendor/* prefixes or model ids, unioned across the repository and machine files, matched ignoring case and a :variant suffix", check: denyList},
	}
}

// Claimed namespaces: a key under one of these must match a pattern. "" is the top level.
var claimed = map[string]bool{"": true, "build": true, "history": true, "lock": true, "oracle": true}

// Match finds the key that governs a dotted key, and checks pattern-bound segments (a tier name).
func Match(key string) (Key, bool) {
	for _, k := range Keys() {
		if matches(k.Pattern, key) {
			if (k.Pattern == "oracle.api.*.tiers.*" || k.Pattern == "oracle.runner.*.tiers.*") && !isServedTier(lastSegment(key)) {
				return Key{}, false
			}
			if k.Pattern == "oracle.api.*.defaults.*" {
				setting := lastSegment(key)
				if !isProviderSetting(setting) {
					return Key{}, false
				}
				k.check = func(v json.RawMessage) error { return CheckProviderSetting(setting, v) }
			}
			return k, true
		}
	}
	return Key{}, false
}

func matches(pattern, key string) bool {
	ps, ks := strings.Split(pattern, "."), strings.Split(key, ".")
	if len(ps) != len(ks) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != ks[i] {
			return false
		}
	}
	return true
}

func lastSegment(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }

func isServedTier(t string) bool { return t == "local" || t == "economy" || t == "frontier" }

func namespaceOf(key string) string {
	ns, _, found := strings.Cut(key, ".")
	if !found {
		return ""
	}
	return ns
}

// Claimed returns the patterns a namespace takes, for a refusal to list.
func Claimed(namespace string) []string {
	var out []string
	for _, k := range Keys() {
		if namespaceOf(k.Pattern) == namespace {
			out = append(out, k.Pattern)
		}
	}
	sort.Strings(out)
	return out
}

// Validate refuses a source that declares a key its namespace does not take, or a machine-only key
// in the repository file (naming machineFile, where it belongs). It does not check values: only a
// winning value is checked, when it is read.
func Validate(src Source, machineFile string) error {
	keys := make([]string, 0, len(src.Values))
	for k := range src.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		k, ok := Match(key)
		ns := namespaceOf(key)
		if !ok {
			if !claimed[ns] {
				continue
			}
			where := "the top level takes"
			if ns != "" {
				where = "the " + ns + " namespace takes"
			}
			return &FileError{src.Origin, fmt.Sprintf("unknown key %q: %s %s", text.Clip(key), where, strings.Join(Claimed(ns), ", "))}
		}
		if k.MachineOnly && src.Layer != LayerMachine {
			why := ""
			if k.Why != "" {
				why = " (" + k.Why + ")"
			}
			return &FileError{src.Origin, fmt.Sprintf("declares %s, which only the machine file may declare%s: move it to %s", text.Clip(key), why, machineFile)}
		}
	}
	return nil
}

func positiveInt(v json.RawMessage) error {
	var n int
	if err := json.Unmarshal(v, &n); err != nil || n < 1 {
		return fmt.Errorf("takes a positive whole number")
	}
	return nil
}

func intRange(lo, hi int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < lo || n > hi {
			return fmt.Errorf("takes a whole number from %d to %d", lo, hi)
		}
		return nil
	}
}

func stringOf(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("takes a string")
	}
	return s, nil
}

func stringMax(n int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		s, err := stringOf(v)
		if err != nil {
			return err
		}
		if s == "" || len(s) > n {
			return fmt.Errorf("takes a string of 1 to %d bytes", n)
		}
		return nil
	}
}

func oneOf(choices ...string) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		s, err := stringOf(v)
		if err == nil {
			for _, c := range choices {
				if s == c {
					return nil
				}
			}
		}
		return fmt.Errorf("takes one of %s", strings.Join(choices, " | "))
	}
}

func name(max int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		s, err := stringOf(v)
		if err != nil {
			return err
		}
		if s == "" || len(s) > max || !validSegment(strings.ReplaceAll(s, ".", "_")) {
			return fmt.Errorf("takes a name of letters, digits, _, - and . (at most %d bytes)", max)
		}
		return nil
	}
}

func envName(v json.RawMessage) error {
	s, err := stringOf(v)
	if err != nil {
		return err
	}
	for i, c := range s {
		if !(c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return fmt.Errorf("takes an environment variable's name, such as OPENAI_API_KEY")
		}
	}
	if s == "" || len(s) > 128 {
		return fmt.Errorf("takes an environment variable's name, such as OPENAI_API_KEY")
	}
	return nil
}

// RunnerCLIs are the coding-agent CLIs a runner block may name (runner.Kinds holds the same set).
// RunnerSandboxes are oracle.runner.*.sandbox's values.
func RunnerSandboxes() []string { return []string{"on", "off"} }

func RunnerCLIs() []string { return []string{"claude", "codex", "gemini", "acp", "qoder", "opencode"} }

// envList admits a JSON array of at most max distinct environment variable names.
func envList(max int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		names, err := DecodeList(v)
		if err != nil {
			return err
		}
		if len(names) > max {
			return fmt.Errorf("names %d variables, over the limit of %d", len(names), max)
		}
		seen := map[string]bool{}
		for i, n := range names {
			data, _ := json.Marshal(n)
			if envName(data) != nil {
				return fmt.Errorf("item %d is not an environment variable's name (such as ANTHROPIC_API_KEY): name the variable, never its value", i)
			}
			if seen[n] {
				return fmt.Errorf("item %d repeats %s: name each variable once", i, n)
			}
			seen[n] = true
		}
		return nil
	}
}

// argList admits a JSON array of at most max arguments, each a non-empty line of at most 4096 bytes.
func argList(max int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		args, err := DecodeList(v)
		if err != nil {
			return err
		}
		if len(args) > max {
			return fmt.Errorf("gives %d arguments, over the limit of %d", len(args), max)
		}
		for i, a := range args {
			if a == "" || len(a) > 4096 || strings.ContainsAny(a, "\x00\n\r") {
				return fmt.Errorf("item %d is empty, longer than 4096 bytes, or holds a NUL or a line break", i)
			}
		}
		return nil
	}
}

// versionText admits major.minor.patch.
func versionText(v json.RawMessage) error {
	s, err := stringOf(v)
	if err != nil {
		return err
	}
	parts := strings.Split(s, ".")
	ok := len(parts) == 3
	for _, p := range parts {
		ok = ok && p != "" && len(p) <= 6 && strings.Trim(p, "0123456789") == ""
	}
	if !ok {
		return fmt.Errorf("takes a version, major.minor.patch (such as 2.1.332)")
	}
	return nil
}

func numberRange(lo, hi float64) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || strings.HasPrefix(strings.TrimSpace(string(v)), `"`) || f < lo || f > hi {
			return fmt.Errorf("takes a number from %g to %g", lo, hi)
		}
		return nil
	}
}

// loopbackURL admits http or https to localhost or a loopback address, with no credentials, query or
// fragment. Its refusals never quote the address.
func loopbackURL(v json.RawMessage) error {
	u, err := parseURL(v)
	if err != nil {
		return err
	}
	if !IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("takes an address on this machine (localhost or a loopback address)")
	}
	return nil
}

// urlList is a JSON array of at most max distinct provider URLs (providerURL).
func urlList(max int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		items, err := DecodeList(v)
		if err != nil {
			return err
		}
		if len(items) > max {
			return fmt.Errorf("names %d addresses, over the limit of %d", len(items), max)
		}
		seen := map[string]bool{}
		for i, it := range items {
			data, err := json.Marshal(it)
			if err != nil {
				return err
			}
			if err := providerURL(data); err != nil {
				return fmt.Errorf("item %d %w", i, err)
			}
			if seen[it] {
				return fmt.Errorf("names %s twice", it)
			}
			seen[it] = true
		}
		return nil
	}
}

// providerURL admits https anywhere, or http only to a loopback address.
func providerURL(v json.RawMessage) error {
	u, err := parseURL(v)
	if err != nil {
		return err
	}
	if u.Scheme == "http" && !IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("takes https, or http only to a loopback address")
	}
	return nil
}

func parseURL(v json.RawMessage) (*url.URL, error) {
	s, err := stringOf(v)
	if err != nil {
		return nil, err
	}
	const form = "takes an http or https URL with a host and no credentials, query or fragment"
	if len(s) > 2048 {
		return nil, fmt.Errorf("%s", form)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("%s", form)
	}
	return u, nil
}

// IsLoopbackHost is true for localhost and loopback IP addresses.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// KeyName is a configuration key a person asks about: it checks it is a key abcd reads.
type KeyName string

// UnmarshalText refuses a key abcd does not read (config_key_unknown).
func (k *KeyName) UnmarshalText(b []byte) error {
	if _, ok := Match(string(b)); !ok {
		return refusal.New(refusal.CodeConfigKeyUnknown, "", fmt.Sprintf("%q is not a key abcd reads", text.Clip(string(b))),
			refusal.Run("config_show"), " to list every key with its default, or see docs/configuration.md")
	}
	*k = KeyName(b)
	return nil
}

func (KeyName) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a configuration key, such as build.dod or oracle.review", MinLength: 1, MaxLength: 256}
}

// revision takes a name git can resolve to one commit and never reads as an option or a range.
func revision(v json.RawMessage) error {
	s, err := stringOf(v)
	if err != nil {
		return err
	}
	switch {
	case s == "" || len(s) > 255:
		return fmt.Errorf("takes a string of 1 to 255 bytes: a branch, a tag or a commit")
	case strings.HasPrefix(s, "-"), strings.Contains(s, ".."), strings.ContainsAny(s, " \t\n\r\x00"):
		return fmt.Errorf("takes one commit's name: no leading dash, no .., no white space")
	}
	return nil
}
