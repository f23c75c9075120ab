package runner

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxRunners bounds the runners one machine configures.
const MaxRunners = 16

// Runner is one configured runner, checked: a headless coding-agent CLI abcd starts in a lane's
// worktree.
type Runner struct {
	Name string
	CLI  Kind
	// Executable is the CLI's absolute path, executed directly (no shell, no PATH lookup).
	Executable string
	// Args are the arguments an ACP agent's executable is started with (Gemini CLI's --acp); nil for
	// every other CLI, whose command line is abcd's alone.
	Args []string
	// Version is the version abcd ahoy connect checked; the CLI's --version is checked again before a
	// run, against Kind.Known.
	Version string
	// Tiers maps a tier to the model the CLI is asked for; a tier it does not map leaves the model to
	// the CLI's own default.
	Tiers map[oracle.Tier]string
	// CredentialEnv names the variables holding the CLI's credentials: passed to it, and their values
	// scrubbed from everything it says. PassEnv names the others it needs (a base URL, a proxy, a
	// region). Names only: the values come from the person's environment at run time.
	CredentialEnv []string
	PassEnv       []string
	// Concurrency is how many steps the runner takes at once.
	Concurrency int
	Limits      Limits
	// SandboxOff runs the runner's steps outside abcd's sandbox (its block's "sandbox": "off"); every
	// receipt says so.
	SandboxOff bool
	// Endpoints are the destinations its block names beside its vendor's API (a base URL its CLI's
	// own configuration sets): inside the sandbox its network is these, the *_BASE_URL variables it
	// is passed, else its vendor's API.
	Endpoints []Endpoint
	// Billing is how its steps are paid for (its block's billing and prices): what fixes a receipt's
	// cost when the CLI reports none, or reports an estimate a subscription never bills.
	Billing Billing
}

// Limits bound one step on a runner. Each one ends the step with its own cause.
type Limits struct {
	// WallClock bounds the whole step; FirstEvent the wait for the CLI's first event; Silence the wait
	// between two events.
	WallClock, FirstEvent, Silence time.Duration
	// Turns bounds the model turns the CLI takes (counted from its events; also passed to a CLI that
	// takes a bound of its own).
	Turns int
	// APIRetries bounds the API retries the CLI reports (passed to its retry setting where it has one).
	APIRetries int
	// BudgetUSD bounds what a step may spend, for a CLI that enforces it (0: no bound).
	BudgetUSD float64
}

// Or fills the bounds l leaves unset (a zero duration or turn count) from d; the API retries are
// taken as given, since 0 is a bound of its own.
func (l Limits) Or(d Limits) Limits {
	if l.WallClock <= 0 {
		l.WallClock = d.WallClock
	}
	if l.FirstEvent <= 0 {
		l.FirstEvent = d.FirstEvent
	}
	if l.Silence <= 0 {
		l.Silence = d.Silence
	}
	if l.Turns <= 0 {
		l.Turns = d.Turns
	}
	return l
}

// DefaultLimits are a runner's limits when its block sets none.
func DefaultLimits() Limits {
	return Limits{WallClock: time.Hour, FirstEvent: 2 * time.Minute, Silence: 10 * time.Minute, Turns: 200, APIRetries: 2}
}

// Bounds of what a step's CLI says, the same for every CLI.
const (
	// MaxLineBytes bounds one line of the CLI's event stream.
	MaxLineBytes = 8 << 20
	// MaxStreamBytes bounds the whole stream.
	MaxStreamBytes = 64 << 20
	// MaxStderrBytes is how much of the CLI's stderr is kept (the last bytes): for a detail, scrubbed.
	MaxStderrBytes = 64 << 10
	// MaxPromptBytes bounds the prompt file handed to the CLI on stdin.
	MaxPromptBytes = 16 << 20
	// Drain is how long abcd reads on after the terminal event before it ends the process group.
	Drain = 2 * time.Second
	// Grace is how long a process group has between SIGTERM and SIGKILL.
	Grace = 2 * time.Second
)

// ModelFor is the model a step asks the CLI for: the agent's own (oracle.roles.<agent>.model) when
// set, else the runner's model for the tier, else "" (the CLI's default).
func (r Runner) ModelFor(agentModel string, t oracle.Tier) string {
	if agentModel != "" {
		return agentModel
	}
	return r.Tiers[t]
}

// Role is what the machine says about an agent sent to a runner.
type Role struct {
	Runner string
	Model  string // "" for the runner's model for the step's tier
}

// Machine is the runners this machine configures and the agents it sends to them, checked.
type Machine struct {
	runners map[string]Runner
	names   []string
	roles   map[string]Role
}

// Load reads the runners (oracle.runner.*) and the agents sent to them (oracle.roles.<agent>.runner)
// from the stack, beside the providers m already loaded (a runner may not take a provider's name:
// both are routes a --route or a receipt names). Every value must pass its key's check, and across
// keys: at most 16 runners, each named as a provider is (and not a reserved name), with a cli, an
// executable, no variable named twice across credential_env and pass_env and none abcd refuses to
// pass (EnvProblem), and a budget only for a CLI that enforces one; a role's runner is configured.
// A fault is a *config.ValueError naming the key and the machine file.
func Load(s *config.Stack, providers []string) (*Machine, error) {
	m := &Machine{runners: map[string]Runner{}, roles: map[string]Role{}}
	names := s.Members("oracle.runner")
	if len(names) > MaxRunners {
		return nil, fault(s, "oracle.runner."+names[MaxRunners]+".cli", fmt.Sprintf("is one of %d runners, over the limit of %d: remove some", len(names), MaxRunners))
	}
	for _, name := range names {
		r, err := loadRunner(s, name, providers)
		if err != nil {
			return nil, err
		}
		m.runners[name] = r
		m.names = append(m.names, name)
	}
	for _, agent := range s.Members("oracle.roles") {
		base := "oracle.roles." + agent
		name, err := config.Get[string](s, base+".runner")
		if err != nil {
			return nil, err
		}
		if !name.Set {
			continue
		}
		if !oracle.ValidAgentName(agent) {
			return nil, fault(s, base+".runner", fmt.Sprintf("agent %q is not an agent's name: name a roster agent", text.Clip(agent)))
		}
		if _, ok := m.runners[name.V]; !ok {
			return nil, fault(s, base+".runner", fmt.Sprintf("names %s, which is not a configured runner: connect it with abcd ahoy connect --runner %s, or name one of %s",
				text.Clip(name.V), keyName(name.V), m.list()))
		}
		model, err := config.Get[string](s, base+".model")
		if err != nil {
			return nil, err
		}
		m.roles[agent] = Role{Runner: name.V, Model: model.V}
	}
	return m, nil
}

func loadRunner(s *config.Stack, name string, providers []string) (Runner, error) {
	base := "oracle.runner." + name
	if !provider.ValidName(name) {
		return Runner{}, fault(s, base+".cli", fmt.Sprintf("runner name %q is not a runner's name: use 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit, and not %s",
			text.Clip(name), strings.Join(provider.Reserved(), ", ")))
	}
	if slices.Contains(providers, name) {
		return Runner{}, fault(s, base+".cli", fmt.Sprintf("names runner %s, which is also a provider's name (oracle.api.%s): a route's name says one route; rename one", name, name))
	}
	r := Runner{Name: name, Tiers: map[oracle.Tier]string{}, Concurrency: 1, Limits: DefaultLimits()}
	cli, err := config.Get[string](s, base+".cli")
	if err != nil {
		return Runner{}, err
	}
	if !cli.Set {
		return Runner{}, fault(s, base+".cli", "is missing: name the CLI the runner drives, one of "+strings.Join(config.RunnerCLIs(), ", "))
	}
	r.CLI = Kind(cli.V)
	exe, err := config.Get[string](s, base+".executable")
	if err != nil {
		return Runner{}, err
	}
	if !exe.Set {
		return Runner{}, fault(s, base+".executable", "is missing: give the CLI's absolute path (abcd ahoy connect --runner writes it)")
	}
	r.Executable = exe.V
	args, err := s.Union(base + ".args")
	if err != nil {
		return Runner{}, err
	}
	if len(args) > 0 && r.CLI != ACP {
		return Runner{}, fault(s, base+".args", fmt.Sprintf("is set for a %s runner, whose command line is abcd's alone: remove it (only an acp runner takes arguments)", r.CLI))
	}
	r.Args = args
	ver, err := config.Get[string](s, base+".version")
	if err != nil {
		return Runner{}, err
	}
	r.Version = ver.V
	for _, t := range provider.ServedTiers() {
		model, err := config.Get[string](s, base+".tiers."+string(t))
		if err != nil {
			return Runner{}, err
		}
		if model.Set {
			r.Tiers[t] = model.V
		}
	}
	seen := map[string]string{}
	for _, list := range []struct {
		key string
		out *[]string
	}{{base + ".credential_env", &r.CredentialEnv}, {base + ".pass_env", &r.PassEnv}} {
		names, err := s.Union(list.key)
		if err != nil {
			return Runner{}, err
		}
		for _, n := range names {
			if why := EnvProblem(n); why != "" {
				return Runner{}, fault(s, list.key, fmt.Sprintf("names %s, %s", n, why))
			}
			if other, twice := seen[n]; twice {
				return Runner{}, fault(s, list.key, fmt.Sprintf("names %s, which %s names too: name each variable once", n, other))
			}
			seen[n] = list.key
		}
		*list.out = names
	}
	if err := loadLimits(s, base, &r); err != nil {
		return Runner{}, err
	}
	if err := loadFence(s, base, &r); err != nil {
		return Runner{}, err
	}
	if r.Billing, err = config.ReadBilling(s, base); err != nil {
		return Runner{}, err
	}
	return r, nil
}

// loadLimits reads a runner's bounds (its concurrency and each step's limits) into r.
func loadLimits(s *config.Stack, base string, r *Runner) error {
	ints := []struct {
		key string
		set func(int)
	}{
		{".concurrency", func(n int) { r.Concurrency = n }},
		{".limits.wall_clock_s", func(n int) { r.Limits.WallClock = time.Duration(n) * time.Second }},
		{".limits.first_event_s", func(n int) { r.Limits.FirstEvent = time.Duration(n) * time.Second }},
		{".limits.silence_s", func(n int) { r.Limits.Silence = time.Duration(n) * time.Second }},
		{".limits.turns", func(n int) { r.Limits.Turns = n }},
		{".limits.api_retries", func(n int) { r.Limits.APIRetries = n }},
	}
	for _, i := range ints {
		v, err := config.Get[int](s, base+i.key)
		if err != nil {
			return err
		}
		if v.Set {
			i.set(v.V)
		}
	}
	budget, err := config.Get[float64](s, base+".limits.budget_usd")
	if err != nil {
		return err
	}
	if budget.Set {
		if !r.CLI.EnforcesBudget() {
			return fault(s, base+".limits.budget_usd", fmt.Sprintf("is set for a %s runner, which cannot bound what a step spends: remove it", r.CLI))
		}
		r.Limits.BudgetUSD = budget.V
	}
	return nil
}

// loadFence reads what a runner's steps may reach inside abcd's sandbox (the endpoints its block
// declares) and whether the sandbox is on, into r.
func loadFence(s *config.Stack, base string, r *Runner) error {
	urls, err := s.Union(base + ".endpoints")
	if err != nil {
		return err
	}
	for _, u := range urls {
		e, err := EndpointOf(u)
		if err != nil {
			return fault(s, base+".endpoints", fmt.Sprintf("names %s, which is %s", text.Clip(u), err))
		}
		r.Endpoints = append(r.Endpoints, e)
	}
	fence, err := config.Get[string](s, base+".sandbox")
	if err != nil {
		return err
	}
	r.SandboxOff = fence.Set && fence.V == "off"
	return nil
}

// EnforcesBudget reports whether the CLI bounds a step's spending itself.
func (k Kind) EnforcesBudget() bool { return k == Claude }

// fault is a value error on key at the layer that sets it; for a key no layer sets, the file that
// declares the block it belongs to (the runner's, or the agent's).
func fault(s *config.Stack, key, msg string) error {
	e := &config.ValueError{Key: key, Layer: config.LayerMachine, Msg: msg}
	if found := s.Lookup(key); len(found) > 0 {
		e.Layer, e.Origin = found[0].Layer, found[0].Origin
		return e
	}
	parts := strings.SplitN(key, ".", 4) // oracle.runner.<name>.rest, oracle.roles.<agent>.rest
	if len(parts) < 3 {
		return e
	}
	block := strings.Join(parts[:3], ".") + "."
	for _, k := range s.InForce() {
		if found := s.Lookup(k); strings.HasPrefix(k, block) && len(found) > 0 {
			e.Layer, e.Origin = found[0].Layer, found[0].Origin
			break
		}
	}
	return e
}

// keyName is name when it may stand in a command, else a placeholder.
func keyName(name string) string {
	if provider.ValidName(name) {
		return name
	}
	return "<name>"
}

func (m *Machine) list() string {
	if len(m.names) == 0 {
		return "none (no runner is configured)"
	}
	return strings.Join(m.names, ", ")
}

// Names lists the configured runners, sorted.
func (m *Machine) Names() []string { return slices.Clone(m.names) }

// Runner returns a configured runner.
func (m *Machine) Runner(name string) (Runner, bool) {
	r, ok := m.runners[name]
	return r, ok
}

// Agents lists the agents oracle.roles.<agent>.runner sends to a runner, sorted.
func (m *Machine) Agents() []string { return slices.Sorted(maps.Keys(m.roles)) }

// Sent returns the runner oracle.roles.<agent>.runner sends the agent to, and the agent's model.
func (m *Machine) Sent(agent string) (Role, bool) {
	r, ok := m.roles[agent]
	return r, ok
}
