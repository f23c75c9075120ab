package history_test

import (
	"context"
	"errors"
	"testing"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	historyuc "github.com/abcd-dev/abcd/ports/history"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const recHead = "0123456789abcdef0123456789abcdef01234567"

// A run whose implementer and reviewer were each a harness session: the record names, for each
// step, the captured sessions that served it, found by the brief each session was handed.
func TestImplementRecordNamesTheSessionsBehindEachStep(t *testing.T) {
	w := newHistWorld(t)
	run := "run-20261201120000-0001"
	dir := ".abcd/.work.local/run/" + run + "/lane-1/"
	// Both steps are done, so their awaits are gone: the sessions are captured after the fact, and
	// the implementation and the verdict keep the ids of the awaits they closed.
	st := loop.State{Kind: loop.KindSpec, FixRounds: 1, Run: run, Lanes: []loop.Lane{{ID: "lane-1", Stage: loop.StageDone,
		Implementations: []loop.Implementation{{Round: 0, Commits: []string{recHead}, Head: recHead, Model: "m", Receipt: dir + "implement/receipt.json", Await: "await-1"}},
		Rounds: []loop.Round{{N: 1, Verdicts: []loop.Verdict{{Role: "ruthless-reviewer", Word: "SHIP", Pass: true,
			Return: dir + "validate/round-1/ruthless-reviewer/return.md", Await: "await-2"}}}},
	}}}
	st.SchemaVersion = loop.SchemaVersion
	w.runs.Files[loop.RunDir(run)+"/state.json"] = loop.Encode(st)
	projects := "/home/ada/.claude/projects/-home-ada-proj/"
	w.files.Files[projects+"s1.jsonl"] = []byte(claudeLine("s1", "", "user", "Start a fresh implementer with the brief "+histRoot+"/"+dir+"implement/brief.md"))
	// The reviewer, a sub-agent of another session, was told its return path only.
	w.files.Files[projects+"s2/subagents/agent-r1.jsonl"] = []byte(claudeLine("s2", "r1", "user", "Review; write your return to "+dir+"validate/round-1/ruthless-reviewer/return.md"))
	// A session of another run, and one of no run, are not this run's.
	w.files.Files[projects+"s3.jsonl"] = []byte(claudeLine("s3", "", "user", "the brief .abcd/.work.local/run/run-20261201120000-0002/lane-1/implement/brief.md"))
	w.files.Files[projects+"s4.jsonl"] = []byte(claudeLine("s4", "", "user", "tidy the README"))
	w.files.Found = []ports.TranscriptFile{{Harness: history.Claude, Path: projects + "s1.jsonl"}, {Harness: history.Claude, Path: projects + "s2/subagents/agent-r1.jsonl"},
		{Harness: history.Claude, Path: projects + "s3.jsonl"}, {Harness: history.Claude, Path: projects + "s4.jsonl"}}
	w.a.Transcripts = w.files
	_, err := historyuc.HistoryCapture(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryCaptureInput{All: true})
	assert.NilError(t, err)

	res, err := loopuc.ImplementRecord(context.Background(), app.DepsOf[*loopuc.Deps](context.Background(), w.a), &loopuc.RunInput{Run: loop.RunID(run)})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(res.Implementations, 1))
	assert.Check(t, is.DeepEqual(res.Implementations[0].Sessions, []string{"claude:s1"}))
	assert.Assert(t, is.Len(res.Verdicts, 1))
	assert.Check(t, is.DeepEqual(res.Verdicts[0].Sessions, []string{"claude:s2:r1"}))
	var keys []string
	for _, s := range res.History.Sessions {
		keys = append(keys, s.Key)
	}
	assert.Check(t, is.DeepEqual(keys, []string{"claude:s1", "claude:s2:r1"}))
	assert.Check(t, is.Equal(res.History.Sessions[0].Lineage.Await, "await-1"))
	assert.Check(t, is.Equal(res.History.Sessions[1].Lineage.Await, "await-2"))
	assert.Check(t, is.Equal(res.History.Note, ""))

	// Another run of the same repository has none of them.
	other := loop.State{Kind: loop.KindSpec, FixRounds: 1, Run: "run-20261201120000-0003", Lanes: []loop.Lane{{ID: "lane-1", Stage: loop.StageDone,
		Implementations: []loop.Implementation{{Round: 0, Commits: []string{recHead}, Head: recHead, Receipt: ".abcd/.work.local/run/run-20261201120000-0003/lane-1/implement/receipt.json"}}}}}
	other.SchemaVersion = loop.SchemaVersion
	w.runs.Files[loop.RunDir(other.Run)+"/state.json"] = loop.Encode(other)
	res, err = loopuc.ImplementRecord(context.Background(), app.DepsOf[*loopuc.Deps](context.Background(), w.a), &loopuc.RunInput{Run: loop.RunID(other.Run)})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.History.Sessions, 0))
	assert.Check(t, is.DeepEqual(res.Implementations[0].Sessions, []string{}))
	assert.Check(t, is.Equal(res.History.Note, "no session captured on this machine served this run"))
}

// A history that cannot be read leaves a run's record whole, saying why its sessions are missing.
func TestImplementRecordWithoutHistory(t *testing.T) {
	w := newHistWorld(t)
	run := "run-20261201120000-0001"
	st := loop.State{Kind: loop.KindSpec, FixRounds: 1, Run: run, Lanes: []loop.Lane{{ID: "lane-1", Stage: loop.StageDone,
		Implementations: []loop.Implementation{{Round: 0, Commits: []string{recHead}, Head: recHead, Receipt: ".abcd/.work.local/run/" + run + "/lane-1/implement/receipt.json"}}}}}
	st.SchemaVersion = loop.SchemaVersion
	w.runs.Files[loop.RunDir(run)+"/state.json"] = loop.Encode(st)
	diag := &fake.Diag{}
	w.a.History, w.a.Diag = brokenHistory{}, diag
	res, err := loopuc.ImplementRecord(context.Background(), app.DepsOf[*loopuc.Deps](context.Background(), w.a), &loopuc.RunInput{Run: loop.RunID(run)})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Implementations, 1))
	assert.Check(t, is.Equal(res.History.Note, "the history on this machine could not be read: the helper is not there"))
	assert.Check(t, is.Len(diag.Warnings, 1), "and it is warned")

	w.a.History = nil
	res, err = loopuc.ImplementRecord(context.Background(), app.DepsOf[*loopuc.Deps](context.Background(), w.a), &loopuc.RunInput{Run: loop.RunID(run)})
	assert.NilError(t, err)
	assert.Check(t, is.Contains(res.History.Note, "keeps no history"))
	assert.Check(t, is.DeepEqual(res.History.Sessions, []historyuc.HistorySession{}))
}

// brokenHistory is a store whose every read fails, as when the helper is missing.
type brokenHistory struct{ ports.HistoryStore }

func (brokenHistory) List(context.Context, string, ports.HistoryFilter) ([]history.Record, error) {
	return nil, errors.New("the helper is not there")
}
