// Package agentfiles serves the roster from the agent definitions embedded in the binary. The files
// are parsed once, on first use.
package agentfiles

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/domain/roster"
)

// Source implements ports.RosterSource over a folder of <name>.md files.
type Source struct {
	fsys fs.FS
	once sync.Once
	r    roster.Roster
	err  error
}

// New returns a roster source over fsys (agents.Files in the binary).
func New(fsys fs.FS) *Source { return &Source{fsys: fsys} }

// Roster parses every .md file; a malformed one refuses the roster, naming its file and line.
func (s *Source) Roster() (roster.Roster, error) {
	s.once.Do(func() { s.r, s.err = load(s.fsys) })
	return s.r, s.err
}

func load(fsys fs.FS) (roster.Roster, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return roster.Roster{}, fmt.Errorf("agent roster: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var agents []roster.Agent
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return roster.Roster{}, fmt.Errorf("agent roster: %w", err)
		}
		a, err := roster.Parse("agents/"+n, data)
		if err != nil {
			return roster.Roster{}, err
		}
		agents = append(agents, a)
	}
	return roster.New(agents)
}
