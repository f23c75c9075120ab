package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/hint"
)

// A next step is data the command line spells as the command to type, in both --json and text: the
// step capture suggests is the issue close command, and typing it (with the why filled in) works.
func TestANextStepIsTheCommandToType(t *testing.T) {
	a := newApp(factsInitialized)
	res := run(t, a, "capture", "It flickers on resize", "--json")
	assert.Equal(t, res.code, 0, res.stderr)
	var got struct {
		Record struct{ ID string }
		Next   hint.Next
	}
	assert.NilError(t, json.Unmarshal([]byte(res.stdout), &got))
	id := got.Record.ID
	assert.Check(t, is.DeepEqual(got.Next.Run, &hint.Run{Verb: "issue_close", Args: map[string]string{"ref": id, "why": "<why>"}, Fill: []string{"why"}}))
	assert.Check(t, is.Equal(got.Next.Text, "close it when it is dealt with: run `abcd issue close "+id+" --why <why>`"))

	text := run(t, a, "capture", "It flickers again")
	assert.Equal(t, text.code, 0, text.stderr)
	assert.Check(t, is.Contains(text.stdout, "next: close it when it is dealt with: run `abcd issue close iss-"), text.stdout)

	// The command it names runs, with the why filled in.
	cmd := strings.TrimSuffix(strings.TrimPrefix(got.Next.Text, "close it when it is dealt with: run `abcd "), "`")
	words := strings.Fields(strings.Replace(cmd, "<why>", "fixed", 1))
	closed := run(t, a, append(words, "--json")...)
	assert.Equal(t, closed.code, 0, closed.stderr)
	assert.Check(t, is.Contains(closed.stdout, `"lifecycle":"closed"`))
}

// A run's next steps name the receipt command with the return path, and the await's own step says
// the same.
func TestARunsNextStepsAreCommands(t *testing.T) {
	res := run(t, newApp(factsInitialized), "implement", "step", "--json")
	assert.Equal(t, res.code, 0, res.stderr)
	var got struct {
		Run struct {
			Awaits []struct {
				Return string
				Next   hint.Next
			}
		}
		Next []hint.Next
	}
	assert.NilError(t, json.Unmarshal([]byte(res.stdout), &got))
	assert.Assert(t, is.Len(got.Next, 1))
	assert.Assert(t, is.Len(got.Run.Awaits, 1))
	aw := got.Run.Awaits[0]
	assert.Check(t, is.DeepEqual(got.Next[0], aw.Next))
	assert.Check(t, is.DeepEqual(aw.Next.Run, &hint.Run{Verb: "implement_receipt", Args: map[string]string{"path": aw.Return}, Fill: []string{}}))
	assert.Check(t, strings.HasSuffix(aw.Next.Text, ": run `abcd implement receipt "+aw.Return+"`"), aw.Next.Text)
}
