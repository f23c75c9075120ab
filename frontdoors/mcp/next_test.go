package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/ports/fake"
)

// Over MCP a next step names the tool to call and its arguments, never a command line: the step
// capture suggests is issue_close with the ref and a why to fill in, and calling the tool
// it names, with the why filled in, closes the issue.
func TestANextStepNamesTheToolAndItsArguments(t *testing.T) {
	a := testApp(t)
	recs, runs := fake.NewRecords(), fake.NewRuns()
	a.Records, a.Runs, a.Journal = recs, runs, fake.NewJournal(recs, runs)
	a.Clock, a.Random = fake.Clock{T: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}, &fake.Random{}
	s, _ := newServer(t, a)

	replies := exchange(t, s, initializeLine(0, Legacy20251125), callLine(1, "capture", map[string]any{"text": "It flickers on resize"}))
	tr := decodeToolResult(t, byID(t, replies, "1"))
	assert.Assert(t, !tr.IsError, string(tr.StructuredContent))
	var got struct {
		Record struct{ ID string }
		Next   hint.Next
	}
	assert.NilError(t, json.Unmarshal(tr.StructuredContent, &got))
	id := got.Record.ID
	assert.Check(t, is.DeepEqual(got.Next.Run, &hint.Run{Verb: "issue_close", Args: map[string]string{"ref": id, "why": "<why>"}, Fill: []string{"why"}}))
	assert.Check(t, is.Equal(got.Next.Text, `close it when it is dealt with: call issue_close with {"ref":"`+id+`","why":"<why>"}`))
	assert.Check(t, !strings.Contains(got.Next.Text, "abcd") && !strings.Contains(got.Next.Text, "--"), got.Next.Text)

	args := map[string]any{}
	for k, v := range got.Next.Run.Args {
		args[k] = v
	}
	args["why"] = "fixed"
	replies = exchange(t, s, initializeLine(0, Legacy20251125), callLine(2, got.Next.Run.Verb, args))
	closed := decodeToolResult(t, byID(t, replies, "2"))
	assert.Assert(t, !closed.IsError, string(closed.StructuredContent))
	assert.Check(t, is.Contains(string(closed.StructuredContent), `"lifecycle":"closed"`))
}
