package apptest

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/roster"
	"gotest.tools/v3/assert"
)

const (
	RtRepoPath    = "/work/repo/.abcd/config/oracle-routing.json"
	RtMachinePath = "/home/ada/.abcd/oracle-routing.json"
)

var RtRosterAgents = []string{"intent-auditor", "ruthless-reviewer", "security-reviewer"}

func RtRoster(t *testing.T) roster.Roster {
	t.Helper()
	var agents []roster.Agent
	for _, n := range RtRosterAgents {
		agents = append(agents, roster.Agent{FrontMatter: roster.FrontMatter{Name: n}})
	}
	r, err := roster.New(agents)
	assert.NilError(t, err)
	return r
}
