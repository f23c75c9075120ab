package shell

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/guard"
)

// corpusCase is one line of a corpus: its kind or class, the line, and the verdict it must get.
type corpusCase struct {
	Kind  string `json:"kind"`
	Class string `json:"class"`
	Line  string `json:"line"`
	Want  string `json:"want"`
}

func loadCorpusFile(t testing.TB, name string) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	assert.NilError(t, err)
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		assert.NilError(t, dec.Decode(&c), sc.Text())
		out = append(out, c)
	}
	assert.NilError(t, sc.Err())
	return out
}

func loadCorpus(t testing.TB) []corpusCase { return loadCorpusFile(t, "corpus.jsonl") }

// TestCorpus holds the guard to the first corpus: at least 300 destructive spellings, each
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

// attackClasses are the classes of issue 21, each with its floor of lines in the adversarial
// corpus: every one is read whatever its spelling.
var attackClasses = map[string]int{"ifs": 20, "brace-glob": 20, "dotdot": 20, "find-xargs": 20, "later": 40, "shells": 30, "wrappers": 60,
	"git-config": 40, "devices": 30, "api-delete": 30, "download": 30, "new-rules": 40, "self": 40, "variables": 30, "interpreters": 20}

// TestAdversarialCorpus holds the guard to the corpus written to get past it (testdata/attacks.jsonl):
// at least 500 lines by class, each with the tier it must get.
func TestAdversarialCorpus(t *testing.T) {
	reg := registry(t)
	cases := loadCorpusFile(t, "attacks.jsonl")
	count := map[string]int{}
	for _, c := range cases {
		count[c.Class]++
		_, known := attackClasses[c.Class]
		assert.Check(t, known, "%q has class %q, which is no class of the corpus", c.Line, c.Class)
		assert.Check(t, c.Want == "block" || c.Want == "warn", "an attack is blocked or warned: %q wants %q", c.Line, c.Want)
		v := check(t, reg, c.Line)
		assert.Check(t, string(v.Decision) == c.Want, "%s %q: got %s (%s), want %s", c.Class, c.Line, v.Decision, v.Rule, c.Want)
	}
	assert.Check(t, len(cases) >= 500, "%d attack lines", len(cases))
	for class, floor := range attackClasses {
		assert.Check(t, count[class] >= floor, "class %s has %d lines, fewer than %d", class, count[class], floor)
	}
}

// TestOrdinaryCorpus: a developer's everyday commands (testdata/ordinary.jsonl) are never blocked;
// the few that warn are recorded as warning.
func TestOrdinaryCorpus(t *testing.T) {
	reg := registry(t)
	cases := loadCorpusFile(t, "ordinary.jsonl")
	for _, c := range cases {
		assert.Check(t, c.Want == "allow" || c.Want == "warn", "an ordinary command is never blocked: %q", c.Line)
		v := check(t, reg, c.Line)
		assert.Check(t, string(v.Decision) == c.Want, "%q: got %s (%s: %s), want %s", c.Line, v.Decision, v.Rule, v.Why, c.Want)
	}
	assert.Check(t, len(cases) >= 150, "%d ordinary lines", len(cases))
}

// TestLaterBatches scores the batches of attacks and ordinary commands written after the guard was
// built to its first corpora, each measured before anything was changed for it (the measurements are
// in docs/guard.md): heldout.jsonl, the second batch; third.jsonl, a third aimed at programs that
// run commands of their own (editors, tar, sed, socat, other agents); fourth.jsonl and fifth.jsonl,
// every class of the issue again in new spellings and new programs; sixth.jsonl, a last round of the
// same. Each must keep catching at
// least 95% of its attacks and block at most 1% of its ordinary commands, as a held-out corpus is
// scored.
func TestLaterBatches(t *testing.T) {
	reg := registry(t)
	for _, file := range []string{"heldout.jsonl", "third.jsonl", "fourth.jsonl", "fifth.jsonl", "sixth.jsonl"} {
		attacks, caught, ordinary, blocked := 0, 0, 0, 0
		for _, c := range loadCorpusFile(t, file) {
			v := check(t, reg, c.Line)
			switch c.Kind {
			case "attack":
				attacks++
				if v.Decision != "allow" {
					caught++
				} else {
					t.Logf("%s: an attack gets through: %q", file, c.Line)
				}
			case "ordinary":
				if c.Want == "block" {
					// an everyday command a documented block tier stops (git reset --hard): reported
					// beside the figures in docs/guard.md, not counted as a false block
					assert.Check(t, v.Decision == "block", "%s: %q: want block, got %s", file, c.Line, v.Decision)
					continue
				}
				ordinary++
				if v.Decision == "block" {
					blocked++
					t.Logf("%s: an ordinary command is blocked (%s): %q", file, v.Rule, c.Line)
				}
			default:
				t.Errorf("%s: %q: kind %q", file, c.Line, c.Kind)
			}
		}
		assert.Check(t, caught*100 >= attacks*95, "%s: %d of %d attacks caught", file, caught, attacks)
		assert.Check(t, blocked*100 <= ordinary, "%s: %d of %d ordinary commands blocked", file, blocked, ordinary)
		assert.Check(t, attacks >= 100 && ordinary >= 40, "%s: %d attacks, %d ordinary", file, attacks, ordinary)
	}
}

// familyFiles are the corpora of issue 33's families, each written before the guard read its class
// (the figures before and after are in docs/guard.md): attacks of the family and look-alike
// ordinary commands, by class; seventh.jsonl is a batch across all of them written after the rest
// were handled, measured before anything was changed for it.
var familyFiles = []string{"exfil.jsonl", "execs.jsonl", "gitdir.jsonl", "containers.jsonl", "casefold.jsonl", "self.jsonl", "seventh.jsonl"}

// TestFamilies holds the guard to the families' corpora: each catches at least 95% of its attacks
// (the figures by class are logged), and no look-alike is blocked.
func TestFamilies(t *testing.T) {
	reg := registry(t)
	for _, file := range familyFiles {
		type score struct{ attacks, caught, ordinary int }
		classes := map[string]*score{}
		for _, c := range loadCorpusFile(t, file) {
			s := classes[c.Class]
			if s == nil {
				s = &score{}
				classes[c.Class] = s
			}
			v := check(t, reg, c.Line)
			switch c.Kind {
			case "attack":
				s.attacks++
				if v.Decision != guard.Allow {
					s.caught++
				} else {
					t.Logf("%s: a %s attack gets through: %q", file, c.Class, c.Line)
				}
			case "ordinary":
				s.ordinary++
				assert.Check(t, v.Decision != guard.Block, "%s: a %s look-alike is blocked (%s): %q", file, c.Class, v.Rule, c.Line)
			default:
				t.Errorf("%s: %q: kind %q", file, c.Line, c.Kind)
			}
		}
		attacks, caught := 0, 0
		for class, s := range classes {
			t.Logf("%s %s: %d of %d attacks caught, %d look-alikes", file, class, s.caught, s.attacks, s.ordinary)
			attacks, caught = attacks+s.attacks, caught+s.caught
		}
		assert.Check(t, caught*100 >= attacks*95, "%s: %d of %d attacks caught", file, caught, attacks)
	}
}
