package runner

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	c1 = "1111111111111111111111111111111111111111"
	c2 = "2222222222222222222222222222222222222222"
	c3 = "3333333333333333333333333333333333333333"
)

func snap() Snapshot {
	return Snapshot{HeadRef: "refs/heads/abcd/run-1/lane-1", Head: c1, Config: "cfg", Hooks: "hooks", Info: "info",
		Refs: map[string]string{"refs/heads/main": c2, "refs/heads/abcd/run-1/lane-1": c1, "refs/heads/abcd/run-1/lane-2": c2, "refs/tags/v1": c3}}
}

func TestCheckWorkTakesOnlyAWorktreesChanges(t *testing.T) {
	lane := "refs/heads/abcd/run-1/lane-1"
	files := []Entry{{Path: "a.go", Kind: EntryFile}, {Path: "gone.txt", Kind: EntryDeleted}, {Path: "docs/link", Kind: EntryLink, Link: "../README.md"}}
	cases := []struct {
		name    string
		after   func(*Snapshot)
		changes []Entry
		guarded []GuardedWrite
		cause   Cause
		detail  string
	}{
		{"a worktree's changes", func(*Snapshot) {}, files, nil, "", ""},
		{"abcd's own branches move meanwhile", func(s *Snapshot) {
			s.Refs["refs/heads/abcd/run-1/lane-2"] = c3
			s.Refs["refs/heads/abcd/run-1/lane-3"] = c3
			s.Refs["refs/heads/abcd/run-2/lane-1"] = c3
		}, files, nil, "", ""},
		{"the CLI committed itself", func(s *Snapshot) { s.Head, s.Refs[lane] = c3, c3 }, files, nil, CauseRefsMoved, "the CLI committed itself"},
		{"HEAD switched branch", func(s *Snapshot) { s.HeadRef = "refs/heads/main" }, files, nil, CauseRefsMoved, "is now refs/heads/main"},
		{"HEAD detached", func(s *Snapshot) { s.HeadRef = "" }, files, nil, CauseRefsMoved, "is now detached"},
		{"the lane's branch moved under a HEAD that says the same", func(s *Snapshot) { s.Refs[lane] = c2 }, files, nil, CauseRefsMoved, "lane-1 moved"},
		{"main moved", func(s *Snapshot) { s.Refs["refs/heads/main"] = c3 }, files, nil, CauseRefsMoved, "refs/heads/main moved from 222222222222 to 333333333333"},
		{"a tag deleted", func(s *Snapshot) { delete(s.Refs, "refs/tags/v1") }, files, nil, CauseRefsMoved, "refs/tags/v1 was deleted"},
		{"a branch created", func(s *Snapshot) { s.Refs["refs/heads/evil"] = c3 }, files, nil, CauseRefsMoved, "refs/heads/evil was created"},
		{"a hook written", func(s *Snapshot) { s.Hooks = "other" }, files, nil, CauseHooksChanged, "git's hooks changed"},
		{"the config changed", func(s *Snapshot) { s.Config = "other" }, files, nil, CauseHooksChanged, "git's configuration changed"},
		{"info/attributes changed", func(s *Snapshot) { s.Info = "other" }, files, nil, CauseHooksChanged, "info folder"},
		{"refs before hooks", func(s *Snapshot) { s.Hooks, s.Refs["refs/heads/main"] = "x", c1 }, files, nil, CauseRefsMoved, ""},
		{"a link out", func(*Snapshot) {}, append(files, Entry{Path: "x", Kind: EntryLink, Link: "../../etc/passwd"}), nil, CausePathEscape, `"x" is a symbolic link that points outside`},
		{"an absolute link", func(*Snapshot) {}, []Entry{{Path: "d/x", Kind: EntryLink, Link: "/etc/passwd"}}, nil, CausePathEscape, "absolute path"},
		{"a link into .git", func(*Snapshot) {}, []Entry{{Path: "x", Kind: EntryLink, Link: "../.git/hooks/pre-commit"}}, nil, CausePathEscape, "outside"},
		{"a link to a sibling .git", func(*Snapshot) {}, []Entry{{Path: "x", Kind: EntryLink, Link: ".git/config"}}, nil, CausePathEscape, "into a .git folder"},
		{"a nested repository", func(*Snapshot) {}, []Entry{{Path: "vendor/x/", Kind: EntryRepo}}, nil, CausePathEscape, "nested repository"},
		{"a fifo", func(*Snapshot) {}, []Entry{{Path: "pipe", Kind: EntryOther}}, nil, CausePathEscape, "not a regular file"},
		{"a path through .git", func(*Snapshot) {}, []Entry{{Path: "sub/.git/config", Kind: EntryFile}}, nil, CausePathEscape, "inside a .git folder"},
		{"a climbing path", func(*Snapshot) {}, []Entry{{Path: "../x", Kind: EntryFile}}, nil, CausePathEscape, "not a path inside"},
		{"nothing changed", func(*Snapshot) {}, nil, nil, CauseNoChanges, "no change"},
		{"a guarded path changed", func(*Snapshot) {}, files, []GuardedWrite{{Path: ".abcd/guard.json", Rule: "guard-file-write", Why: "writes the guard file"}},
			CauseGuardedPath, `".abcd/guard.json", which the guard's rule guard-file-write blocks as a write: writes the guard file`},
		{"several guarded paths", func(*Snapshot) {}, files, []GuardedWrite{{Path: ".claude/settings.json", Rule: "harness-settings-write", Why: "w"}, {Path: ".abcd/guard.json", Rule: "guard-file-write", Why: "w"}, {Path: "x", Rule: "r", Why: "w"}},
			CauseGuardedPath, `".claude/settings.json" (and 2 other guarded paths)`},
		{"an escape before a guarded path", func(*Snapshot) {}, []Entry{{Path: "x", Kind: EntryLink, Link: "/etc"}}, []GuardedWrite{{Path: "x", Rule: "r", Why: "w"}}, CausePathEscape, "absolute"},
		{"moved refs before a guarded path", func(s *Snapshot) { s.Refs["refs/heads/main"] = c3 }, files, []GuardedWrite{{Path: "x", Rule: "r", Why: "w"}}, CauseRefsMoved, ""},
		{"a guarded path is a change, not nothing", func(*Snapshot) {}, nil, []GuardedWrite{{Path: "x", Rule: "r", Why: "w"}}, CauseGuardedPath, `"x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := snap()
			c.after(&after)
			f := CheckWork(snap(), after, lane, c.changes, c.guarded)
			if c.cause == "" {
				assert.Check(t, f == nil, "%v", f)
				return
			}
			assert.Assert(t, f != nil)
			assert.Check(t, is.Equal(f.Cause, c.cause))
			assert.Check(t, is.Contains(f.Detail, c.detail))
			assert.Check(t, is.Equal(Plain(f.Detail), f.Detail), "a detail is one plain line")
		})
	}
}

func TestCheckWorkBoundsWhatItNames(t *testing.T) {
	after := snap()
	for i := 0; i < 9; i++ {
		after.Refs["refs/heads/x"+strings.Repeat("y", i)] = c3
	}
	f := CheckWork(snap(), after, "refs/heads/abcd/run-1/lane-1", []Entry{{Path: "a", Kind: EntryFile}}, nil)
	assert.Assert(t, f != nil)
	assert.Check(t, is.Contains(f.Detail, "and 6 more"))
	many := make([]Entry, MaxEntries+1)
	f = CheckWork(snap(), snap(), "refs/heads/abcd/run-1/lane-1", many, nil)
	assert.Assert(t, f != nil)
	assert.Check(t, is.Equal(f.Cause, CausePathEscape))
}

func TestALinkInsideTheWorktreeStays(t *testing.T) {
	for _, l := range []Entry{
		{Path: "a", Kind: EntryLink, Link: "b"},
		{Path: "d/e/a", Kind: EntryLink, Link: "../../b"},
		{Path: "d/a", Kind: EntryLink, Link: "./x/../y"},
	} {
		assert.Check(t, is.Equal(Escapes(l), ""), l.Path)
	}
	assert.Check(t, Escapes(Entry{Path: "d/a", Kind: EntryLink, Link: "../../b"}) != "")
	assert.Check(t, Escapes(Entry{Path: "a", Kind: EntryLink}) != "", "a link with no target")
}

func TestCommitMessageIsTheSummary(t *testing.T) {
	msg := CommitMessage("## Added the parser\n\nIt reads lines.\r\nAnd bounds them.\x1b[31m\u200b", "abcd run-1: lane-1", "Abcd-Run: run-1 lane-1")
	assert.Check(t, is.Equal(msg, "Added the parser\n\nIt reads lines.\nAnd bounds them.[31m\n\nAbcd-Run: run-1 lane-1\n"))
	msg = CommitMessage("  \n", "abcd run-1: lane-1", "T")
	assert.Check(t, is.Equal(msg, "abcd run-1: lane-1\n\nT\n"))
	long := CommitMessage(strings.Repeat("word ", 40)+"\n"+strings.Repeat("b", 20<<10), "s", "T")
	subject, _, _ := strings.Cut(long, "\n")
	assert.Check(t, is.Equal(len([]rune(subject)), 72))
	assert.Check(t, len(long) < 17<<10)
	assert.Check(t, is.Contains(long, "[cut]"))
}
