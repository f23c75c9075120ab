package loop

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func TestParseRemoteReadsAForgesRepositoryFromARemotesAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"https://github.com/team/repo.git":          "github.com/team/repo",
		"https://github.com/team/repo":              "github.com/team/repo",
		"https://github.com/team/repo/":             "github.com/team/repo",
		"https://127.0.0.1:8443/team/repo.git":      "127.0.0.1:8443/team/repo",
		"https://GHE.example.com/Team/my.repo.git":  "ghe.example.com/Team/my.repo",
		"git@github.com:team/repo.git":              "github.com/team/repo",
		"github.com:team/repo":                      "github.com/team/repo",
		"ssh://git@github.com/team/repo.git":        "github.com/team/repo",
		"ssh://git@ghe.example.com:2222/team/r.git": "ghe.example.com/team/r",
	} {
		got, ok := ParseRemote(addr)
		assert.Check(t, ok, addr)
		assert.Check(t, is.Equal(got.String(), want), addr)
	}
	for _, bad := range []string{"", "/srv/git/repo.git", "file:///srv/git/repo.git", "../repo", "https://github.com/team",
		"https://github.com/team/repo/tree/main", "https://github.com/team/repo?x=1", "git@github.com:repo.git",
		"https://github.com/-team/repo", "https://github.com/team/..", "ftp://github.com/team/repo", "a b:team/repo",
		"C:\\repos\\team\\repo", "https://github.com/team/re$po", "ext::sh -c touch% /tmp/x"} {
		_, ok := ParseRemote(bad)
		assert.Check(t, !ok, bad)
	}
}

func TestPRURLIsTheLastAddressGHPrinted(t *testing.T) {
	assert.Check(t, is.Equal(PRURL("Creating pull request\nhttps://github.com/team/repo/pull/7\n"), "https://github.com/team/repo/pull/7"))
	assert.Check(t, is.Equal(PRURL("no address here\n"), ""))
	assert.Check(t, is.Equal(PRURL("https://user:pw@github.com/x\n"), ""), "an address with credentials is none")
	assert.Check(t, is.Equal(PRURL(""), ""))
}

func TestFinishValuesCheckThemselves(t *testing.T) {
	var f Finish
	for _, ok := range Finishes() {
		assert.Check(t, f.UnmarshalText([]byte(ok)), ok)
		assert.Check(t, is.Equal(string(f), ok))
	}
	err := f.UnmarshalText([]byte("squash"))
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeInputInvalid))
	assert.Check(t, is.Contains(r.Remedy.Render(refusal.Plain), "branch, merge or pr"))

	good := Finished{As: FinishPR, Branch: "abcd/run-1/integration", Head: strings.Repeat("a", 40), Remote: "origin", URL: "https://github.com/t/r/pull/1", At: "2026-12-06T23:00:00Z"}
	assert.Check(t, good.Check())
	for _, bad := range []Finished{
		{As: FinishBranch, Branch: good.Branch, Head: good.Head},
		{As: FinishMerge, Branch: "bad..branch", Head: good.Head},
		{As: FinishMerge, Branch: "main", Head: "abc"},
		{As: FinishPR, Branch: good.Branch, Head: good.Head, URL: "javascript:alert(1)"},
	} {
		assert.Check(t, bad.Check() != nil, "%+v", bad)
	}
}

func FuzzParseRemote(f *testing.F) {
	for _, s := range []string{"https://github.com/team/repo.git", "git@github.com:team/repo.git", "ssh://git@h:22/o/r", "/srv/repo.git", "a:b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		r, ok := ParseRemote(addr)
		if !ok {
			return
		}
		// What it reads is one host, one owner and one name, none of which can carry a flag or a path.
		for _, part := range []string{r.Host, r.Owner, r.Name} {
			if part == "" || strings.HasPrefix(part, "-") || strings.ContainsAny(part, "/ \t\n\\@?#") {
				t.Fatalf("%q read as %+v", addr, r)
			}
		}
		if again, ok := ParseRemote("https://" + r.String()); !ok || again.Owner != r.Owner || again.Name != strings.TrimSuffix(r.Name, ".git") {
			t.Fatalf("%q read as %+v, which does not read back (%+v)", addr, r, again)
		}
	})
}
