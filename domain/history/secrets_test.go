package history

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// gitleaks' own cases for every rule: each true positive is found by its rule alone, each false
// positive is not, as gitleaks' generator validates them.
func TestTheDetectorPassesGitleaksOwnCases(t *testing.T) {
	d, err := SecretDetector()
	assert.NilError(t, err)
	data, err := os.ReadFile("testdata/gitleaks-cases.json")
	assert.NilError(t, err)
	var f struct {
		Cases map[string]struct{ True, False []string }
	}
	assert.NilError(t, json.Unmarshal(data, &f))
	byID := map[string]secretRule{}
	for _, r := range d.rules {
		byID[r.id] = r
	}
	var ids []string
	for id := range f.Cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	tps, fps := 0, 0
	for _, id := range ids {
		r, ok := byID[id]
		if !assert.Check(t, ok, "rule %s has cases but is not in the rule set", id) {
			continue
		}
		one := &Detector{rules: []secretRule{r}, global: d.global}
		one.index()
		for _, tp := range f.Cases[id].True {
			tps++
			assert.Check(t, len(one.Find(tp)) > 0, "%s misses its true positive %q", id, clipCase(tp))
		}
		if r.path != "" {
			// gitleaks keeps these from matching by the file's name (r.path), which a transcript has
			// not: here the rule looks at every text, so they would be redacted, which errs safe.
			t.Logf("%s: %d false positives gitleaks rules out by file name (%s) are not checked", id, len(f.Cases[id].False), r.path)
			continue
		}
		for _, fp := range f.Cases[id].False {
			fps++
			assert.Check(t, is.Len(one.Find(fp), 0), "%s finds its false positive %q", id, clipCase(fp))
		}
	}
	t.Logf("%d rules, %d true and %d false positives", len(ids), tps, fps)
	assert.Check(t, len(d.rules) >= 200, "the whole rule set: %d rules", len(d.rules))
}

func clipCase(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
