package core

import (
	"context"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// LoadConnections reads the configuration (loadConfig) and returns the machine's providers as the
// connections routing resolves against: per tier, a provider mapping it to an allowed model the
// denylist does not deny; every configured provider; per agent, oracle.roles.<agent>.connection.
// A configuration that breaks a rule refuses, naming the key and the file.
func (a *Core) LoadConnections(ctx context.Context) (ports.Connections, error) {
	if a.Connections != nil {
		return a.Connections, nil
	}
	p, r, err := a.LoadRoutes(ctx)
	if err != nil {
		return nil, err
	}
	return MachineConns{Providers: p, Runners: r}, nil
}

// MachineConns are the machine's routes as routing reads them: its providers, and its runners with
// the agents it sends to each (oracle.roles.<agent>.runner), which Resolve puts before every
// connection but a --route flag's.
type MachineConns struct {
	Providers *provider.Machine
	Runners   *runner.Machine
}

func (m MachineConns) Configured() oracle.Configured {
	c := m.Providers.Configured()
	c.RunnerNames = m.Runners.Names()
	c.Runners = map[string]oracle.Connection{}
	for _, agent := range m.Runners.Agents() {
		role, _ := m.Runners.Sent(agent)
		c.Runners[agent] = oracle.Connection{Name: role.Runner, Runner: true}
	}
	return c
}

// Defaults are a provider's default settings; a runner takes none.
func (m MachineConns) Defaults(c oracle.Connection) oracle.Settings {
	if c.Runner {
		return nil
	}
	return m.Providers.Defaults(c)
}

func (a *Core) LoadMachine(ctx context.Context) (*provider.Machine, error) {
	m, _, err := a.LoadRoutes(ctx)
	return m, err
}

// LoadRoutes reads the machine's providers and its runners, each checked beside the other (a runner
// may not take a provider's name; an agent is sent to one of them, not both). A runner block that
// breaks a rule refuses as a provider's does, so no routed step reads a machine file abcd would
// refuse.
func (a *Core) LoadRoutes(ctx context.Context) (*provider.Machine, *runner.Machine, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return nil, nil, err
	}
	return MachineRoutes(stack)
}

func MachineRoutes(stack *config.Stack) (*provider.Machine, *runner.Machine, error) {
	m, err := provider.Load(stack)
	if err != nil {
		return nil, nil, ConfigRefusal(err)
	}
	r, err := runner.Load(stack, m.Names())
	if err != nil {
		return nil, nil, ConfigRefusal(err)
	}
	return m, r, nil
}

// The machine's providers are the connections routing reads.
var _ ports.Connections = (*provider.Machine)(nil)
