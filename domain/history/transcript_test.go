package history

import (
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func readHarness(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/harness/" + name)
	assert.NilError(t, err)
	return data
}

// Files the real harnesses wrote (testdata/harness/README.md).
func TestParseTheHarnessesOwnFiles(t *testing.T) {
	main, err := Parse(Claude, readHarness(t, "claude-session.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(main.Session, "d3270867-c4f3-4be1-b218-4d97aa877406"))
	assert.Check(t, is.Equal(main.Agent, ""))
	assert.Check(t, is.Equal(main.Cwd, "/home/ada/proj"))
	assert.Check(t, is.Equal(main.Title(), "SPAWN a helper please"))
	assert.Check(t, main.Started != "" && main.Ended >= main.Started)
	assert.Check(t, is.Equal(main.Model, "claude-opus-5-5"))
	var tools []string
	for _, m := range main.Messages {
		if m.Role == "tool" {
			tools = append(tools, m.Text)
		}
	}
	assert.Assert(t, len(tools) >= 2)
	assert.Check(t, strings.HasPrefix(tools[0], `→ Agent {"description":"look around"`), tools[0])

	sub, err := Parse(Claude, readHarness(t, "claude-subagent.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(sub.Session, main.Session))
	assert.Check(t, is.Equal(sub.Agent, "a75c5ce5ff216f0db"))
	assert.Check(t, is.Equal(sub.Parent, main.Session), "a sub-agent links to its parent session")
	assert.Check(t, sub.Key() != main.Key())
	assert.Check(t, is.Equal(sub.Title(), "SUBTASK: look around the repository"))

	codex, err := Parse(Codex, readHarness(t, "codex-rollout.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(codex.Session, "01a2322f-6d9a-7a50-aac6-a67161ff79cf"))
	assert.Check(t, is.Equal(codex.Cwd, "/home/ada/proj"))
	assert.Check(t, is.Equal(codex.Model, "gpt-5"))
	assert.Check(t, is.Equal(codex.Title(), "say hello"))
	last := codex.Messages[len(codex.Messages)-1]
	assert.Check(t, is.DeepEqual(last.Role, "assistant"))
	assert.Check(t, is.Equal(last.Text, "Hello from the codex mock."))

	gem, err := Parse(Gemini, readHarness(t, "gemini-chat.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(gem.Session, "977a645d-cda3-4afd-b2f0-2f1e770230bf"))
	assert.Check(t, is.Equal(gem.Title(), "say hello again"))
	assert.Check(t, is.Equal(gem.Messages[len(gem.Messages)-1].Text, "Hello from the gemini mock."))
	assert.Check(t, is.Equal(gem.Cwd, ""), "a Gemini chat does not say where it ran")
}

func TestParseRefusesWhatIsNotATranscript(t *testing.T) {
	for _, c := range []struct {
		h    Harness
		data string
		want string
	}{
		{Claude, "not json\n", "line 1 is not a JSON object"},
		{Claude, `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n", "names no session"},
		{Codex, `{"type":"session_meta","payload":{"id":"../../etc"}}` + "\n", "not an id"},
		{Gemini, `[]`, "not a JSON object"},
		{Harness("cursor"), `{}`, "not a harness"},
	} {
		_, err := Parse(c.h, []byte(c.data))
		assert.Check(t, is.ErrorContains(err, c.want), "%s %q", c.h, c.data)
	}
	_, err := Parse(Claude, make([]byte, MaxTranscriptBytes+1))
	assert.Check(t, is.ErrorContains(err, "over the"))
}

func TestLineageFromABrief(t *testing.T) {
	tr := Transcript{Messages: []Message{
		{Role: "user", Text: "hello"},
		{Role: "user", Text: "start a fresh implementer agent with the brief /repo/.abcd/.work.local/run/run-20261201120000-1234/lane-2/implement/brief.md; when it has written /repo/.abcd/.work.local/run/run-20261201120000-1234/lane-2/implement/receipt.json, run `abcd implement receipt ...`"},
	}}
	l := FindLineage(tr)
	assert.Check(t, is.DeepEqual(l, Lineage{Run: "run-20261201120000-1234", Lane: "lane-2", Step: "implement",
		Brief: ".abcd/.work.local/run/run-20261201120000-1234/lane-2/implement/brief.md", Return: ".abcd/.work.local/run/run-20261201120000-1234/lane-2/implement/receipt.json"}))
	rev := FindLineage(Transcript{Messages: []Message{{Role: "user", Text: "Read /r/.abcd/.work.local/run/run-7/lane-1/validate/round-2/security-reviewer/brief.md and follow it"}}})
	assert.Check(t, is.Equal(rev.Step, "validate/round-2/security-reviewer"))
	assert.Check(t, is.Equal(rev.Return, ".abcd/.work.local/run/run-7/lane-1/validate/round-2/security-reviewer/return.md"))
	assert.Check(t, FindLineage(Transcript{Messages: []Message{{Role: "user", Text: "look at .abcd/.work.local/run/"}}}).Empty())
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"claude-session.jsonl", "codex-rollout.jsonl", "gemini-chat.jsonl"} {
		data, err := os.ReadFile("testdata/harness/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(name[0]), data)
	}
	f.Fuzz(func(t *testing.T, which string, data []byte) {
		h := Claude
		switch which {
		case "o", "c2":
			h = Codex
		case "g":
			h = Gemini
		}
		tr, err := Parse(h, data)
		if err != nil {
			return
		}
		_ = tr.Title()
		_ = FindLineage(tr)
	})
}
