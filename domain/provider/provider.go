// Package provider turns the machine's configuration into the connections routing asks about
// (oracle.Configured) and the facts one call to an OpenAI-compatible provider needs: its address,
// its credential reference, the model for a step, its default settings, and the denylist every
// model is held to. It is pure: it is handed a configuration stack, never a file or a network.
package provider

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxProviders bounds the providers one machine configures.
const MaxProviders = 16

// namePattern is a provider's name: a config key segment, safe in a refusal and a receipt.
var namePattern = pattern.New(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// NamePattern is the provider name's rule, for a schema.
const NamePattern = `^[a-z0-9][a-z0-9_-]{0,31}$`

// Reserved are the names a provider may not take: the harness (and the name receipts give it) and
// the RepoPrompt route, so a receipt's route always says which kind of route ran.
func Reserved() []string { return []string{"harness", oracle.HarnessName, "rp"} }

// ValidName reports whether s may name a provider.
func ValidName(s string) bool { return namePattern.MatchString(s) && !slices.Contains(Reserved(), s) }

// ServedTiers are the tiers a provider maps to a model, in order.
func ServedTiers() []oracle.Tier { return []oracle.Tier{oracle.Local, oracle.Economy, oracle.Frontier} }

// Provider is one configured provider, checked.
type Provider struct {
	Name    string
	BaseURL string // https, or http to a loopback address; with its version path (/v1)
	// KeyEnv or KeyFile is where the key is read at call time; both empty for a keyless local server.
	KeyEnv  string
	KeyFile string
	Models  []string // the allowlist, as configured
	Tiers   map[oracle.Tier]string
	// Defaults are its settings, under the routing row's and the flag's.
	Defaults oracle.Settings
	// Billing is how its calls are paid for (its block's billing and prices): what prices the tokens
	// a call reports.
	Billing config.Billing
}

// Role is what the machine says about one agent: the provider it is pointed at, and the model it
// asks that provider for ("" for the tier's model).
type Role struct {
	Connection string
	Model      string
}

// Machine is the machine's providers and roles, checked, with the denylist in force. It is the
// machine's connections routing reads (the ports.Connections port).
type Machine struct {
	providers map[string]Provider
	names     []string // sorted, so Serves is deterministic
	roles     map[string]Role
	deny      Denylist
	origin    string // the machine file, for refusals
}

// Load reads the providers (oracle.api.*), the roles (oracle.roles.*) and the denylist (the union of
// the repository's and the machine's oracle.denylist) from the stack. Every value must pass its
// key's check, and, across keys: at most 16 providers, each with a name of ^[a-z0-9][a-z0-9_-]{0,31}$
// that is not reserved, a base_url, models, at most one of key_env and key_file, and tiers naming
// models on its models; a role's connection names a configured provider and its model is on that
// provider's models; no configured model is denied. A fault is a *config.ValueError naming the key.
func Load(s *config.Stack) (*Machine, error) {
	deny, err := s.Union("oracle.denylist")
	if err != nil {
		return nil, err
	}
	m := &Machine{providers: map[string]Provider{}, roles: map[string]Role{}, deny: NewDenylist(deny)}
	names := s.Members("oracle.api")
	if len(names) > MaxProviders {
		return nil, m.fault(s, "oracle.api."+names[MaxProviders]+".base_url",
			fmt.Sprintf("is one of %d providers, over the limit of %d: remove some", len(names), MaxProviders))
	}
	for _, name := range names {
		p, err := m.loadProvider(s, name)
		if err != nil {
			return nil, err
		}
		m.providers[name] = p
		m.names = append(m.names, name)
	}
	for _, agent := range s.Members("oracle.roles") {
		r, err := m.loadRole(s, agent)
		if err != nil {
			return nil, err
		}
		if r.Connection != "" {
			m.roles[agent] = r
		}
	}
	return m, nil
}

// fault is a value error on key, at the layer that sets it (the machine file for provider keys).
func (m *Machine) fault(s *config.Stack, key, msg string) error {
	e := &config.ValueError{Key: key, Layer: config.LayerMachine, Msg: msg}
	if found := s.Lookup(key); len(found) > 0 {
		e.Layer, e.Origin = found[0].Layer, found[0].Origin
	} else {
		for _, f := range s.Lookup(key[:strings.LastIndexByte(key, '.')] + ".models") {
			e.Origin = f.Origin
		}
	}
	if e.Origin == "" {
		e.Origin = m.origin
	}
	return e
}

func get(s *config.Stack, key string) (string, bool, error) {
	v, err := config.Get[string](s, key)
	return v.V, v.Set, err
}

func (m *Machine) loadProvider(s *config.Stack, name string) (Provider, error) {
	base := "oracle.api." + name
	if m.origin == "" {
		for _, f := range s.Lookup(base + ".base_url") {
			m.origin = f.Origin
		}
	}
	if !ValidName(name) {
		return Provider{}, m.fault(s, base+".base_url", fmt.Sprintf("provider name %q is not a provider's name: use 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit, and not %s",
			text.Clip(name), strings.Join(Reserved(), ", ")))
	}
	p := Provider{Name: name, Tiers: map[oracle.Tier]string{}, Defaults: oracle.Settings{}}
	var set bool
	var err error
	if p.BaseURL, set, err = get(s, base+".base_url"); err != nil {
		return Provider{}, err
	} else if !set {
		return Provider{}, m.fault(s, base+".base_url", "is missing: every provider needs its base URL, with its version path (https://api.example.com/v1)")
	}
	if p.KeyEnv, _, err = get(s, base+".key_env"); err != nil {
		return Provider{}, err
	}
	if p.KeyFile, _, err = get(s, base+".key_file"); err != nil {
		return Provider{}, err
	}
	if p.KeyEnv != "" && p.KeyFile != "" {
		return Provider{}, m.fault(s, base+".key_file", "is set beside key_env: name one place for the key, or neither for a keyless local server")
	}
	w, set, err := s.Winner(base + ".models")
	if err != nil {
		return Provider{}, err
	}
	if !set {
		return Provider{}, m.fault(s, base+".models", "is missing: list the models this provider may be asked for, as a JSON array")
	}
	if p.Models, err = config.DecodeList(w.Raw); err != nil {
		return Provider{}, m.fault(s, base+".models", err.Error())
	}
	for _, id := range p.Models {
		if entry, denied := m.deny.Denies(id); denied {
			return Provider{}, m.fault(s, base+".models", fmt.Sprintf("lists %s, which the denylist entry %s denies: no allowlist overrides the denylist; remove it", id, entry))
		}
	}
	for _, t := range ServedTiers() {
		key := base + ".tiers." + string(t)
		id, set, err := get(s, key)
		if err != nil {
			return Provider{}, err
		}
		if !set {
			continue
		}
		if !slices.Contains(p.Models, id) {
			return Provider{}, m.fault(s, key, fmt.Sprintf("names %s, which is not on %s.models: add it there, or map the tier to a listed model", id, base))
		}
		p.Tiers[t] = id
	}
	for _, setting := range config.ProviderSettings() {
		w, set, err := s.Winner(base + ".defaults." + setting)
		if err != nil {
			return Provider{}, err
		}
		if set {
			p.Defaults[setting] = oracle.Scalar(w.Raw)
		}
	}
	if p.Billing, err = config.ReadBilling(s, base); err != nil {
		return Provider{}, err
	}
	return p, nil
}

func (m *Machine) loadRole(s *config.Stack, agent string) (Role, error) {
	base := "oracle.roles." + agent
	var r Role
	var err error
	if r.Connection, _, err = get(s, base+".connection"); err != nil {
		return Role{}, err
	}
	if r.Model, _, err = get(s, base+".model"); err != nil {
		return Role{}, err
	}
	_, sent, err := get(s, base+".runner")
	if err != nil {
		return Role{}, err
	}
	if !oracle.ValidAgentName(agent) {
		key := base + ".connection"
		if sent {
			key = base + ".runner"
		}
		return Role{}, m.fault(s, key, fmt.Sprintf("agent %q is not an agent's name: name a roster agent", text.Clip(agent)))
	}
	if sent && r.Connection != "" {
		return Role{}, m.fault(s, base+".runner", fmt.Sprintf("is set beside %s.connection (%s): an agent takes one route; keep the provider or the runner", base, text.Clip(r.Connection)))
	}
	if sent {
		return Role{}, nil // sent to a runner: domain/runner reads the role, and its model

	}
	if r.Connection == "" {
		if r.Model != "" {
			return Role{}, m.fault(s, base+".model", "is set without "+base+".connection or "+base+".runner: point the agent at a provider or a runner too, or remove the model")
		}
		return r, nil
	}
	p, ok := m.providers[r.Connection]
	if !ok {
		return Role{}, m.fault(s, base+".connection", fmt.Sprintf("names %s, which is not a configured provider: configure oracle.api.%s, or point the agent at one of %s",
			text.Clip(r.Connection), providerKey(r.Connection), m.list()))
	}
	if r.Model != "" && !slices.Contains(p.Models, r.Model) {
		return Role{}, m.fault(s, base+".model", fmt.Sprintf("names %s, which is not on oracle.api.%s.models: add it there, or name a listed model", r.Model, p.Name))
	}
	return r, nil
}

// providerKey is name when it may stand in a config key, else a placeholder.
func providerKey(name string) string {
	if namePattern.MatchString(name) {
		return name
	}
	return "<name>"
}

func (m *Machine) list() string {
	if len(m.names) == 0 {
		return "none (no provider is configured)"
	}
	return strings.Join(m.names, ", ")
}

// Names lists the configured providers, sorted.
func (m *Machine) Names() []string { return slices.Clone(m.names) }

// Provider returns a configured provider.
func (m *Machine) Provider(name string) (Provider, bool) {
	p, ok := m.providers[name]
	return p, ok
}

// Denylist is the denylist in force.
func (m *Machine) Denylist() Denylist { return m.deny }

// Serves returns the first provider, by name, that maps the tier to a model on its allowlist that the
// denylist does not deny.
func (m *Machine) Serves(t oracle.Tier) (oracle.Connection, bool) {
	for _, name := range m.names {
		p := m.providers[name]
		id, ok := p.Tiers[t]
		if !ok || !slices.Contains(p.Models, id) {
			continue
		}
		if _, denied := m.deny.Denies(id); denied {
			continue
		}
		return oracle.Connection{Name: name}, true
	}
	return oracle.Connection{}, false
}

// Configured is the machine's connections as oracle.Resolve reads them: every provider, the one
// that serves each tier (Serves), and the one each agent is pointed at (Pointed).
func (m *Machine) Configured() oracle.Configured {
	c := oracle.Configured{Names: slices.Clone(m.names), Serving: map[oracle.Tier]oracle.Connection{}, Pointed: map[string]oracle.Connection{}}
	for _, t := range ServedTiers() {
		if conn, ok := m.Serves(t); ok {
			c.Serving[t] = conn
		}
	}
	for agent, r := range m.roles {
		c.Pointed[agent] = oracle.Connection{Name: r.Connection}
	}
	return c
}

// Named returns the configured provider of that name.
func (m *Machine) Named(name string) (oracle.Connection, bool) {
	if _, ok := m.providers[name]; !ok {
		return oracle.Connection{}, false
	}
	return oracle.Connection{Name: name}, true
}

// Pointed returns the provider oracle.roles.<agent>.connection points the agent at.
func (m *Machine) Pointed(agent string) (oracle.Connection, bool) {
	r, ok := m.roles[agent]
	if !ok {
		return oracle.Connection{}, false
	}
	return oracle.Connection{Name: r.Connection}, true
}

// Defaults returns a connection's default settings (a copy), for oracle.Resolve's merge; the harness
// and an unknown name have none.
func (m *Machine) Defaults(c oracle.Connection) oracle.Settings {
	if p, ok := m.providers[c.Name]; ok && !c.Harness {
		return maps.Clone(p.Defaults)
	}
	return nil
}

// Call is everything one call to a provider needs, decided before anything is dialled.
type Call struct {
	Provider Provider
	// Model is the model asked for: on the allowlist and not denied.
	Model string
	// Settings are the settings sent: the provider's defaults under the step's own.
	Settings oracle.Settings
}

// CallFor decides the call an agent's step at a tier makes to the connection conn with the step's
// merged settings. The model is, first that applies: the agent's oracle.roles.<agent>.model when the
// agent is pointed at conn; the model conn maps the tier to; conn's only model when it lists one.
// Refused: conn not configured, no model found, a model off the allowlist or denied, a setting the
// provider does not accept or out of its range. The refusal says which and the remedy, in words
// that hold no address or key.
func (m *Machine) CallFor(conn, agent string, tier oracle.Tier, settings oracle.Settings) (Call, error) {
	p, ok := m.providers[conn]
	if !ok {
		return Call{}, fmt.Errorf("connection %s is not a configured provider", text.Clip(conn))
	}
	model := ""
	if r, ok := m.roles[agent]; ok && r.Connection == conn && r.Model != "" {
		model = r.Model
	} else if id, ok := p.Tiers[tier]; ok {
		model = id
	} else if len(p.Models) == 1 {
		model = p.Models[0]
	}
	switch {
	case model == "":
		return Call{}, fmt.Errorf("provider %s maps no model to tier %s: map one with oracle.api.%s.tiers.%s, or name one with oracle.roles.%s.model",
			conn, text.Clip(string(tier)), conn, text.Clip(string(tier)), text.Clip(agent))
	case !slices.Contains(p.Models, model):
		return Call{}, fmt.Errorf("model %s is not on provider %s's models", model, conn)
	}
	if entry, denied := m.deny.Denies(model); denied {
		return Call{}, fmt.Errorf("model %s is denied by the denylist entry %s", model, entry)
	}
	merged := Merge(p.Defaults, settings)
	if err := CheckSettings(merged); err != nil {
		return Call{}, err
	}
	return Call{Provider: p, Model: model, Settings: merged}, nil
}

// Merge lays over on defaults: the step's settings win. Neither is changed; the result is never nil.
func Merge(defaults, over oracle.Settings) oracle.Settings {
	out := oracle.Settings{}
	maps.Copy(out, defaults)
	maps.Copy(out, over)
	return out
}

// CheckSettings refuses a setting a provider does not accept, or a value outside its range, in
// sorted order so the first fault is stable. Nothing is dropped: a refused setting refuses the call.
func CheckSettings(s oracle.Settings) error {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := config.CheckProviderSetting(k, []byte(s[k])); err != nil {
			return fmt.Errorf("setting %s %w", text.Clip(k), err)
		}
	}
	return nil
}
