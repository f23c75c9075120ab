package agentfiles

import (
	"testing"
	"testing/fstest"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/agents"
)

func TestTheShippedRosterParses(t *testing.T) {
	r, err := New(agents.Files).Roster()
	assert.NilError(t, err)
	assert.DeepEqual(t, r.Names(), []string{"intent-auditor", "ruthless-reviewer", "security-reviewer"})
}

func TestAMalformedAgentRefusesTheRosterWithItsFileAndLine(t *testing.T) {
	fsys := fstest.MapFS{
		"good.md":   {Data: []byte("---\nname: good\ndescription: d\nprompt_version: 1\nreads_untrusted_input: true\ncapability_scope: read-only\ntools: Read\nmodel: inherit\n---\nbody\n")},
		"bad.md":    {Data: []byte("---\nname: bad\ncolour: blue\n---\nbody\n")},
		"notes.txt": {Data: []byte("ignored")},
	}
	_, err := New(fsys).Roster()
	assert.ErrorContains(t, err, "agents/bad.md:3:")
}
