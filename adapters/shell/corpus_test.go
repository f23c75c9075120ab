package shell

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"gotest.tools/v3/assert"
)

// corpusCase is one line of testdata/corpus.jsonl: a destructive spelling or an everyday look-alike,
// with the verdict it must get.
type corpusCase struct {
	Kind string `json:"kind"`
	Line string `json:"line"`
	Want string `json:"want"`
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/corpus.jsonl")
	assert.NilError(t, err)
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		assert.NilError(t, json.Unmarshal(sc.Bytes(), &c), sc.Text())
		out = append(out, c)
	}
	assert.NilError(t, sc.Err())
	return out
}

// TestCorpus holds the guard to the committed corpus: at least 300 destructive spellings, each
// blocked, and 300 everyday look-alikes, none blocked (a few warn, as recorded).
func TestCorpus(t *testing.T) {
	reg := registry(t)
	cases := loadCorpus(t)
	count := map[string]int{}
	for _, c := range cases {
		count[c.Kind]++
		v := check(t, reg, c.Line)
		assert.Check(t, string(v.Decision) == c.Want, "%s %q: got %s (%s: %s), want %s", c.Kind, c.Line, v.Decision, v.Rule, v.Why, c.Want)
		if c.Kind == "destructive" {
			assert.Check(t, c.Want == "block", "a destructive case must be blocked: %q", c.Line)
		} else {
			assert.Check(t, c.Want != "block", "an everyday case is never blocked: %q", c.Line)
		}
	}
	assert.Check(t, count["destructive"] >= 300, "%d destructive cases", count["destructive"])
	assert.Check(t, count["everyday"] >= 300, "%d everyday cases", count["everyday"])
}
