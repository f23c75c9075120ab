package setup

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports"
	"gotest.tools/v3/assert"
)

func TestStatusOf(t *testing.T) {
	counts := func(kv map[string]int) map[string]int { return kv }
	cases := []struct {
		name    string
		facts   ports.RepoFacts
		total   int
		present bool
		next    []string
	}{
		{"outside git", ports.RepoFacts{Root: "/x"}, 0, false, []string{"run `git init`"}},
		{"git, no .abcd", ports.RepoFacts{Root: "/x", Git: true}, 0, false, []string{"run ahoy_install"}},
		{"initialized, empty", ports.RepoFacts{Root: "/x", Git: true, Initialized: true}, 0, false, []string{}},
		{"initialized with records", ports.RepoFacts{Root: "/x", Git: true, Initialized: true,
			Records: counts(map[string]int{".abcd/development/intents/drafts": 2, ".abcd/work/issues/closed": 1})}, 3, true, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := statusOf(c.facts)
			assert.Equal(t, st.Record.Total, c.total)
			assert.Equal(t, st.Record.Present, c.present)
			assert.Equal(t, len(st.Record.Folders), len(record.Folders()))
			assert.Equal(t, len(st.Config), 4)
			cmds := []string{}
			for _, n := range st.Next {
				cmds = append(cmds, n.String())
				assert.Assert(t, n.Why != "")
			}
			assert.DeepEqual(t, cmds, c.next)
		})
	}
}
