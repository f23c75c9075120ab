package guard

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/runner"
)

// resolveTo is a links port that sends one path elsewhere.
type resolveTo map[string]string

func (r resolveTo) Resolve(abs string) string {
	if to, ok := r[abs]; ok {
		return to
	}
	return abs
}

// Every kind of change a runner's step leaves is read as the write it is, and a path a link on its
// way makes another is read as that one too.
func TestAChangeIsReadAsTheWriteItIs(t *testing.T) {
	a := &Deps{}
	for _, c := range []struct {
		e    runner.Entry
		want []string
	}{
		{runner.Entry{Path: "a b/c.txt", Kind: runner.EntryFile}, []string{": > 'a b/c.txt'"}},
		{runner.Entry{Path: "it's", Kind: runner.EntryFile}, []string{`: > 'it'\''s'`}},
		{runner.Entry{Path: ".abcd/guard.json", Kind: runner.EntryDeleted}, []string{"rm -- '.abcd/guard.json'"}},
		{runner.Entry{Path: "g", Kind: runner.EntryLink, Link: ".abcd"}, []string{": > 'g'", "ln -s -- '.abcd' 'g'"}},
		{runner.Entry{Path: "vendor/x/", Kind: runner.EntryRepo}, []string{": > 'vendor/x'"}},
		{runner.Entry{Path: "pipe", Kind: runner.EntryOther}, []string{": > 'pipe'"}},
	} {
		assert.Check(t, is.DeepEqual(a.WriteLines("/w", writeOf(c.e)), c.want), c.e.Path)
	}
	a.Links = resolveTo{"/w/l/guard.json": "/w/.abcd/guard.json"}
	assert.Check(t, is.DeepEqual(a.WriteLines("/w", writeOf(runner.Entry{Path: "l/guard.json", Kind: runner.EntryFile})),
		[]string{": > 'l/guard.json'", ": > '/w/.abcd/guard.json'"}))
	// A relative path with no folder to read it in is read as written.
	assert.Check(t, is.DeepEqual(a.WriteLines("", guard.Write{Path: "l/guard.json"}), []string{": > 'l/guard.json'"}))
}
