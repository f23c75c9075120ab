package roster

import (
	"fmt"
	"slices"
	"strings"
)

// Roster is a set of agents with distinct names, kept sorted by name. The
// zero Roster is empty and usable.
type Roster struct {
	agents []Agent
}

// DuplicateNameError refuses two agents with one name; it names both files.
type DuplicateNameError struct {
	Name         string
	First, Again string
}

func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("agent %q is defined twice, in %s and %s: rename or remove one", e.Name, e.First, e.Again)
}

// New builds a roster. It refuses two agents with the same name and any agent
// whose name is malformed (which Parse never returns). An empty roster is fine.
func New(agents []Agent) (Roster, error) {
	files := make(map[string]string, len(agents))
	out := make([]Agent, 0, len(agents))
	for _, a := range agents {
		if !ValidName(a.Name) {
			return Roster{}, fmt.Errorf("agent in %s has malformed name %q: parse agent files with roster.Parse", a.File, a.Name)
		}
		if first, dup := files[a.Name]; dup {
			return Roster{}, &DuplicateNameError{Name: a.Name, First: first, Again: a.File}
		}
		files[a.Name] = a.File
		out = append(out, clone(a))
	}
	slices.SortFunc(out, func(x, y Agent) int { return strings.Compare(x.Name, y.Name) })
	return Roster{agents: out}, nil
}

// Names returns the agent names in sorted order; never nil.
func (r Roster) Names() []string {
	names := make([]string, 0, len(r.agents))
	for _, a := range r.agents {
		names = append(names, a.Name)
	}
	return names
}

// Agents returns copies of the agents sorted by name; never nil.
func (r Roster) Agents() []Agent {
	out := make([]Agent, 0, len(r.agents))
	for _, a := range r.agents {
		out = append(out, clone(a))
	}
	return out
}

// Get returns a copy of the named agent.
func (r Roster) Get(name string) (Agent, bool) {
	i, ok := slices.BinarySearchFunc(r.agents, name, func(a Agent, n string) int { return strings.Compare(a.Name, n) })
	if !ok {
		return Agent{}, false
	}
	return clone(r.agents[i]), true
}

// clone copies the Tools slice so callers cannot change a roster's agents.
func clone(a Agent) Agent {
	a.Tools = slices.Clone(a.Tools)
	return a
}
