package files

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

const (
	jOpen   = ".abcd/work/issues/open/iss-2611300000000001-a.md"
	jClosed = ".abcd/work/issues/closed/iss-2611300000000001-a.md"
	jSpec   = ".abcd/development/specs/open/spc-2611300000000002-a.md"
	jState  = runRoot + "/run-2611300000001234/state.json"
)

// journalRepo is a repository with one open issue, and the change that closes it, makes a spec and
// writes a run's state: every kind of file a change touches.
func journalRepo(t *testing.T) (string, ports.Change) {
	t.Helper()
	dir := recordRepo(t).Path()
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(jOpen)), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, jOpen), []byte("lifecycle: open\n"), 0o644))
	return dir, ports.Change{Verb: "issue_close", Record: "iss-2611300000000001", Files: []ports.FileChange{
		{Path: jClosed, Data: []byte("lifecycle: closed\n")},
		{Path: jOpen, Remove: true},
		{Path: jSpec, Data: []byte("a spec\n")},
		{Path: jState, Data: []byte(`{"state":1}` + "\n")},
	}}
}

// tree is every file and folder under .abcd/ with its mode and content, but the staging folder,
// whose temps the next writer sweeps.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, ".abcd")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".abcd", stagingRel) {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		entry := info.Mode().String()
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entry += " " + string(data)
		}
		out[filepath.ToSlash(rel)] = entry
		return nil
	})
	assert.NilError(t, err)
	return out
}

func TestCommitCarriesTheWholeChangeOutAndLeavesNoJournal(t *testing.T) {
	dir, c := journalRepo(t)
	j := Journal{Dir: dir}
	assert.NilError(t, j.Commit(context.Background(), c))
	got := tree(t, dir)
	assert.Equal(t, got[jClosed], "-rw-r--r-- lifecycle: closed\n")
	assert.Equal(t, got[jSpec], "-rw-r--r-- a spec\n")
	assert.Equal(t, got[jState], "-rw------- "+`{"state":1}`+"\n", "a run's file is the person's alone")
	assert.Equal(t, got[filepath.ToSlash(filepath.Dir(jState))], "drwx------")
	_, open := got[jOpen]
	assert.Assert(t, !open, "the moved record is gone from its old folder")
	_, journal := got[journalRel]
	assert.Assert(t, !journal, "the journal is removed once the change is made")
	pending, err := j.Pending(context.Background())
	assert.NilError(t, err)
	assert.Assert(t, !pending)
}

// TestAKillAtAnyPointIsFinishedByTheNextWriter stops the change after the journal is written and
// each number of its files is carried out (what a kill -9 there leaves), then lets the next writer
// finish it: the tree is the one an uninterrupted commit leaves, every time, and finishing again
// changes nothing.
func TestAKillAtAnyPointIsFinishedByTheNextWriter(t *testing.T) {
	ctx := context.Background()
	whole, c := journalRepo(t)
	assert.NilError(t, Journal{Dir: whole}.Commit(ctx, c))
	want := tree(t, whole)
	for done := 0; done <= len(c.Files); done++ {
		dir, c := journalRepo(t)
		j := Journal{Dir: dir}
		data, err := encodeJournal(journalEntry{change: c, version: journalVersion})
		assert.NilError(t, err)
		jf, err := j.folder(true)
		assert.NilError(t, err)
		_, err = stagedWrite(dir, journalRel, jf, "journal.json", data, 0o600, true)
		jf.Close()
		assert.NilError(t, err)
		for _, f := range c.Files[:done] {
			assert.NilError(t, j.apply(f))
		}
		pending, err := j.Pending(ctx)
		assert.NilError(t, err)
		assert.Assert(t, pending, "after %d files", done)
		finished, err := j.Finish(ctx)
		assert.NilError(t, err)
		assert.DeepEqual(t, finished, c)
		assert.DeepEqual(t, tree(t, dir), want)
		again, err := j.Finish(ctx)
		assert.NilError(t, err)
		assert.Equal(t, again.Verb, "", "nothing is left to finish")
		assert.DeepEqual(t, tree(t, dir), want)
	}
}

func TestFinishWithNoJournalWritesNothing(t *testing.T) {
	dir, _ := journalRepo(t)
	before := tree(t, dir)
	c, err := Journal{Dir: dir}.Finish(context.Background())
	assert.NilError(t, err)
	assert.Equal(t, c.Verb, "")
	assert.DeepEqual(t, tree(t, dir), before)
}

func TestAChangeAbcdWouldNeverMakeIsRefusedBeforeAnythingIsWritten(t *testing.T) {
	for name, files := range map[string][]ports.FileChange{
		"outside .abcd":    {{Path: "src/main.go", Data: []byte("x")}},
		"climbing out":     {{Path: ".abcd/../x", Data: []byte("x")}},
		"the journal":      {{Path: journalRel, Data: []byte("x")}},
		"a staged temp":    {{Path: ".abcd/" + stagingRel + "/x", Data: []byte("x")}},
		"abcd's gitignore": {{Path: ".abcd/.gitignore", Data: []byte("")}},
		"the config":       {{Path: ".abcd/config.json", Data: []byte("{}")}},
		"below a folder":   {{Path: ".abcd/work/issues/open/sub/x.md", Data: []byte("x")}},
		"named twice":      {{Path: jSpec, Data: []byte("x")}, {Path: jSpec, Remove: true}},
		"removed and data": {{Path: jSpec, Data: []byte("x"), Remove: true}},
		"no file":          {},
	} {
		t.Run(name, func(t *testing.T) {
			dir, _ := journalRepo(t)
			before := tree(t, dir)
			err := Journal{Dir: dir}.Commit(context.Background(), ports.Change{Verb: "v", Record: "r", Files: files})
			assert.Assert(t, err != nil)
			assert.DeepEqual(t, tree(t, dir), before)
		})
	}
}

func TestAJournalAbcdDidNotWriteIsRefusedNamingTheRemedy(t *testing.T) {
	_, c := journalRepo(t)
	c.Moves = []ports.Move{{From: jOpen, To: jClosed}}
	good, err := encodeJournal(journalEntry{change: c, version: journalVersion})
	assert.NilError(t, err)
	made, err := encodeJournal(journalEntry{change: c, made: true, version: journalVersion})
	assert.NilError(t, err)
	for name, data := range map[string]string{
		"not json":               "{",
		"unknown key":            strings.Replace(string(good), `"verb"`, `"verbs"`, 1),
		"other version":          strings.Replace(string(good), `"version":2`, `"version":3`, 1),
		"moves in version 1":     strings.Replace(string(good), `"version":2`, `"version":1`, 1),
		"made in version 1":      strings.Replace(strings.Replace(string(made), `"version":2`, `"version":1`, 1), `,"moves":[{"from":"`+jOpen+`","to":"`+jClosed+`"}]`, "", 1),
		"made with no move":      strings.Replace(string(made), `,"moves":[{"from":"`+jOpen+`","to":"`+jClosed+`"}]`, "", 1),
		"a move not removed":     strings.Replace(string(good), `"from":"`+jOpen+`"`, `"from":"`+jSpec+`"`, 1),
		"a move to nothing made": strings.Replace(string(good), `"to":"`+jClosed+`"`, `"to":".abcd/work/issues/closed/iss-2611300000000009-b.md"`, 1),
		"a move of a run file":   strings.Replace(string(good), `"to":"`+jClosed+`"`, `"to":"`+jState+`"`, 1),
		"made, hand formatted":   strings.Replace(string(made), `,"made":true`, `,"made": true`, 1),
		"made false written":     strings.Replace(string(good), `}]}`, `}],"made":false}`, 1),
		"hand formatted":         strings.Replace(string(good), `,"record"`, `, "record"`, 1),
		"path outside":           strings.Replace(string(good), jSpec, "src/x.go", 1),
		"two objects":            string(good) + string(good),
		"a key twice":            strings.Replace(string(good), `"verb":"issue_close"`, `"verb":"issue_close","verb":"x"`, 1),
		"multi-line verb":        strings.Replace(string(good), `"verb":"issue_close"`, `"verb":"a\nb"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			dir, _ := journalRepo(t)
			assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".abcd", ".work.local"), 0o700))
			assert.NilError(t, os.WriteFile(filepath.Join(dir, journalRel), []byte(data), 0o600))
			before := tree(t, dir)
			_, err := Journal{Dir: dir}.Finish(context.Background())
			r, ok := refusal.As(err)
			assert.Assert(t, ok, "%v", err)
			assert.Equal(t, r.Code, refusal.CodeJournalInvalid)
			assert.Assert(t, is.Contains(r.Error(), "delete "+journalRel))
			assert.DeepEqual(t, tree(t, dir), before)
		})
	}
}

func TestALinkedJournalIsRefused(t *testing.T) {
	dir, _ := journalRepo(t)
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".abcd", ".work.local"), 0o700))
	assert.NilError(t, os.Symlink("/etc/passwd", filepath.Join(dir, journalRel)))
	_, err := Journal{Dir: dir}.Finish(context.Background())
	assert.Assert(t, err != nil)
	target, _ := os.Readlink(filepath.Join(dir, journalRel))
	assert.Equal(t, target, "/etc/passwd", "the link is left for the person")
}

func TestAChangePastTheJournalsBoundIsRefused(t *testing.T) {
	dir, _ := journalRepo(t)
	before := tree(t, dir)
	big := ports.Change{Verb: "v", Record: "r", Files: []ports.FileChange{{Path: jSpec, Data: make([]byte, maxJournalBytes)}}}
	err := Journal{Dir: dir}.Commit(context.Background(), big)
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodeChangeTooLarge)
	assert.DeepEqual(t, tree(t, dir), before)
}

func FuzzJournal(f *testing.F) {
	c := ports.Change{Verb: "issue_close", Record: "iss-1", Files: []ports.FileChange{
		{Path: jClosed, Data: []byte("closed\n")}, {Path: jOpen, Remove: true}, {Path: jState, Data: []byte{0, 1, 2}}}}
	for _, e := range []journalEntry{{change: c, version: 1}, {change: c, version: journalVersion}} {
		good, _ := encodeJournal(e)
		f.Add(good)
	}
	c.Moves = []ports.Move{{From: jOpen, To: jClosed}}
	for _, made := range []bool{false, true} {
		good, _ := encodeJournal(journalEntry{change: c, made: made, version: journalVersion})
		f.Add(good)
	}
	f.Add([]byte(`{"version":1,"verb":"","record":"","files":[{"path":".abcd/x","remove":true}]}` + "\n"))
	f.Add([]byte(`{"version":2,"verb":"v","record":"r","files":[{"path":"` + jOpen + `","remove":true}],"moves":[{"from":"` + jOpen + `"}],"made":true}` + "\n"))
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeJournal(data)
		if err != nil {
			return
		}
		// What is accepted is exactly what abcd writes for it, and names only files a change may write;
		// every move is of a record file the change removes, to one it writes.
		again, err := encodeJournal(got)
		assert.NilError(t, err)
		assert.DeepEqual(t, again, data)
		removed, written := map[string]bool{}, map[string]bool{}
		for _, f := range got.change.Files {
			assert.Assert(t, strings.HasPrefix(f.Path, ".abcd/"))
			removed[f.Path], written[f.Path] = f.Remove, !f.Remove
		}
		for _, m := range got.change.Moves {
			assert.Assert(t, removed[m.From] && (m.To == "" || written[m.To]), "%+v", m)
		}
		assert.Assert(t, !got.made || len(got.change.Moves) > 0)
		assert.Assert(t, got.version == journalVersion || (len(got.change.Moves) == 0 && !got.made))
	})
}

// A change the next writer cannot carry out (a folder on its way is a link) is named, with the
// journal and the remedy, rather than failing every writer with a bare error.
func TestAJournalThatCannotBeFinishedIsNamed(t *testing.T) {
	dir, c := journalRepo(t)
	j := Journal{Dir: dir}
	data, err := encodeJournal(journalEntry{change: c, version: journalVersion})
	assert.NilError(t, err)
	jf, err := j.folder(true)
	assert.NilError(t, err)
	_, err = stagedWrite(dir, journalRel, jf, "journal.json", data, 0o600, true)
	jf.Close()
	assert.NilError(t, err)
	closed := filepath.Join(dir, filepath.Dir(jClosed))
	assert.NilError(t, os.MkdirAll(filepath.Dir(closed), 0o755))
	assert.NilError(t, os.Symlink(t.TempDir(), closed))
	_, err = j.Finish(context.Background())
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodeJournalStuck)
	assert.Assert(t, is.Contains(r.Error(), journalRel))
}

// Sweep removes a dead writer's temp from the staging folder and keeps a live one's, taking no lock.
func TestSweepRemovesADeadWritersTemp(t *testing.T) {
	dir, _ := journalRepo(t)
	stage := filepath.Join(dir, ".abcd", filepath.FromSlash(stagingRel))
	assert.NilError(t, os.MkdirAll(stage, 0o700))
	dead := filepath.Join(stage, tempPrefix+"999999999-00000000000000aa")
	live := filepath.Join(stage, tempName())
	for _, p := range []string{dead, live} {
		assert.NilError(t, os.WriteFile(p, []byte("part of a record"), 0o600))
	}
	assert.NilError(t, Journal{Dir: dir}.Sweep(context.Background()))
	_, err := os.Stat(dead)
	assert.Assert(t, os.IsNotExist(err), "the dead writer's temp is gone")
	_, err = os.Stat(live)
	assert.NilError(t, err, "a live writer's temp stays")
	fresh, _ := journalRepo(t)
	assert.NilError(t, Journal{Dir: fresh}.Sweep(context.Background()), "no staging folder is not an error")
}
