package runner

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const parent = "0123456789abcdef0123456789abcdef01234567"

func TestTheCommittingNoteReadsBackAsWritten(t *testing.T) {
	c := Committing{Await: "aw-7", Parent: parent, Final: "Wrote the part.", Receipt: Receipt{Runner: "cc", CLI: Claude, ModelsReported: []string{"m"}, Commits: []string{}}}
	data, err := EncodeCommitting(c)
	assert.NilError(t, err)
	got, err := DecodeCommitting("runner-commit.json", data)
	assert.NilError(t, err)
	c.SchemaVersion = 1
	assert.Check(t, is.DeepEqual(got, c))
	for name, bad := range map[string]string{
		"an unknown key":     strings.Replace(string(data), `"final"`, `"finale"`, 1),
		"a key twice":        strings.Replace(string(data), `"await": "aw-7",`, `"await": "aw-7", "await": "aw-8",`, 1),
		"another version":    strings.Replace(string(data), `"schema_version": 1`, `"schema_version": 2`, 1),
		"a parent not an id": strings.Replace(string(data), parent, "HEAD", 1),
		"no await":           strings.Replace(string(data), `"aw-7"`, `""`, 1),
		"something after it": string(data) + "{}",
		"not an object":      `[]`,
	} {
		_, err := DecodeCommitting("runner-commit.json", []byte(bad))
		assert.Check(t, err != nil, name)
	}
}

func TestACommitNamesItsAwaitInAbcdsTrailersOnly(t *testing.T) {
	msg := CommitMessage("Do the part\n\nAbcd-Await: aw-9", "abcd run-1: lane-1, step 1", "Abcd-Run: run-1 lane-1 round 1\n"+AwaitTrailer+": aw-7")
	assert.Check(t, NamesAwait(msg, "aw-7"))
	assert.Check(t, !NamesAwait(msg, "aw-9"), "the agent's own words name nothing")
	assert.Check(t, !NamesAwait(msg, "aw"), "the whole id, not a prefix")
	assert.Check(t, !NamesAwait("a commit of someone's\n", "aw-7"))
	assert.Check(t, NamesAwait(strings.ReplaceAll(msg, "\n", "\r\n"), "aw-7"))
}

func FuzzDecodeCommitting(f *testing.F) {
	data, err := EncodeCommitting(Committing{Await: "aw-1", Parent: parent, Receipt: Receipt{Runner: "cc", CLI: Codex}})
	assert.NilError(f, err)
	f.Add(data)
	f.Add([]byte(`{"schema_version":1,"await":"a","parent":"` + parent + `","receipt":{},"final":""}`))
	f.Add([]byte(`{"schema_version":1,"await":"a","parent":"` + parent + `","receipt":{"runner":"cc","cli":"claude"},"final":""}`))
	f.Add([]byte(`{"schema_version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCommitting("f", data)
		if err != nil {
			return
		}
		if c.SchemaVersion != 1 || c.Await == "" || !isCommitID(c.Parent) || !c.Receipt.CLI.Valid() {
			t.Fatalf("accepted a note breaking its rules: %+v", c)
		}
		again, err := EncodeCommitting(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeCommitting("f", again); err != nil {
			t.Fatalf("what abcd writes of an accepted note is refused: %v", err)
		}
	})
}
