package record

import (
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// A symlinked record is named as a link, with its own code and the store's remedy, not as malformed.
func TestLintNamesASymlinkedRecord(t *testing.T) {
	link := refusal.New("record_symlink", "f.md", "is a symbolic link", "replace the link with the file")
	got := Lint([]Loaded{
		{Family: Issues, Lifecycle: "open", File: "f.md", Err: link},
		{Family: Issues, Lifecycle: "open", File: "g.md", Err: refusal.New("record_too_large", "g.md", "is large", "split")},
	})
	if len(got) != 2 || got[0].Code != "record_symlink" || got[0].Level != LevelError ||
		got[0].Message != "is a symbolic link" || got[0].Remedy != "replace the link with the file" {
		t.Fatalf("the link: %+v", got)
	}
	if got[1].Code != "malformed" {
		t.Fatalf("another unreadable file stays malformed: %+v", got[1])
	}
}

// Stray temps join the findings in Lint's order: an error where git sees one, a warning where the
// next write removes it.
func TestLintTemps(t *testing.T) {
	findings := []Finding{{Level: LevelError, Code: "malformed", File: ".abcd/work/issues/open/iss-1.md", Message: "m", Remedy: "r"}}
	got := LintTemps(findings, []StrayTemp{
		{File: ".abcd/.work.local/tmp/.abcd-tmp-9-1", Ignored: true},
		{File: ".abcd/work/issues/open/.abcd-tmp-9-2"},
	})
	want := []struct{ file, code, level string }{
		{".abcd/.work.local/tmp/.abcd-tmp-9-1", "stray_temp", LevelWarning},
		{".abcd/work/issues/open/.abcd-tmp-9-2", "stray_temp", LevelError},
		{".abcd/work/issues/open/iss-1.md", "malformed", LevelError},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].File != w.file || got[i].Code != w.code || got[i].Level != w.level || got[i].Remedy == "" || got[i].Message == "" {
			t.Errorf("finding %d: got %+v, want %+v", i, got[i], w)
		}
	}
	if none := LintTemps([]Finding{}, nil); len(none) != 0 {
		t.Errorf("no temps, no findings: %+v", none)
	}
}

// A killed merge driver's temps join the findings in Lint's order: a warning in the git folder, an
// error at the top of the work tree, where git would commit it.
func TestLintMergeTemps(t *testing.T) {
	findings := []Finding{{Level: LevelError, Code: "malformed", File: ".abcd/work/issues/open/iss-1.md", Message: "m", Remedy: "r"}}
	got := LintMergeTemps(findings, []StrayTemp{
		{File: ".git/abcd-tmp/.abcd-tmp-9-1", Ignored: true},
		{File: ".abcd-tmp-9-2"},
	})
	want := []struct{ file, level, says string }{
		{".abcd-tmp-9-2", LevelError, "git would commit it"},
		{".abcd/work/issues/open/iss-1.md", LevelError, "m"},
		{".git/abcd-tmp/.abcd-tmp-9-1", LevelWarning, "git never lists"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].File != w.file || got[i].Level != w.level || !strings.Contains(got[i].Message, w.says) || got[i].Remedy == "" {
			t.Errorf("finding %d: got %+v, want %+v", i, got[i], w)
		}
	}
}
