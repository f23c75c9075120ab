//go:build unix

package main

// build.notify end to end through the built binary: the machine's notifier hears how a run ended as
// one JSON event on its stdin, valid against its published schema; a notifier that fails, hangs or
// floods its output leaves the run's result and exit as they were; a repository's file naming one is
// refused before anything is written.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	dloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
	"github.com/abcd-dev/abcd/ports/loop"
)

// notifyWith sets the machine file's build.notify to command.
func (w runnerWorld) notifyWith(t *testing.T, command string) {
	t.Helper()
	w.editMachine(t, func(machine map[string]any) { machine["build"] = map[string]any{"notify": command} })
}

// heard is the one event the notifier wrote to file, checked against the published schema.
func heard(t *testing.T, file string) dloop.NotifyEvent {
	t.Helper()
	data, err := os.ReadFile(file)
	assert.NilError(t, err)
	schema, err := os.ReadFile(filepath.Join("..", "..", "..", "schemas", "v1", "notify_event.schema.json"))
	assert.NilError(t, err)
	s, err := jsonschema.Compile(schema)
	assert.NilError(t, err)
	v, err := strictjson.Parse(data, strictjson.Limits{})
	assert.NilError(t, err)
	assert.Check(t, s.Validate(v) == nil, "%v: %s", s.Validate(v), data)
	var ev dloop.NotifyEvent
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&ev))
	assert.Check(t, !dec.More(), "one event")
	assert.Check(t, !strings.Contains(string(data), rnCanary), "no credential in the event")
	return ev
}

// A run that finishes, and one its budget stops, are each told to the notifier as one event: the
// kind, the run, the spec, why it ended, what it spent, what to do next.
func TestTheNotifierHearsHowARunEnded(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	out := filepath.Join(t.TempDir(), "event.json")
	w.notifyWith(t, "cat > '"+out+"'")

	res := w.abcd(t, "implement", "run", w.spec, "--budget-usd", "0.60", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var run loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &run)
	assert.Assert(t, is.Equal(run.Ended, loop.EndedBudget), "%+v", run)
	ev := heard(t, out)
	assert.Check(t, is.Equal(ev.Event, dloop.NotifyBudget))
	assert.Check(t, is.Equal(ev.Run, run.Run.Run))
	assert.Check(t, is.Equal(ev.Spec, run.Run.Spec))
	assert.Check(t, is.Equal(ev.Repository, "repo"))
	assert.Check(t, is.Equal(ev.Ended, "budget"))
	assert.Check(t, is.Equal(ev.Budget.USD, 0.6))
	assert.Check(t, is.Contains(ev.Budget.Stopped, "of the budget's 0.60 is spent"))
	assert.Check(t, is.Equal(ev.Spend.USD, run.Run.Spend.Run.USD))
	assert.Check(t, is.Contains(ev.Summary, "was stopped by its budget"))
	assert.Check(t, is.Contains(ev.Next, "implement_run"))
	assert.Check(t, !strings.Contains(res.Stderr(), "\a"), "no bell off a terminal")
	assert.NilError(t, os.Remove(out))

	res = w.abcd(t, "implement", "run", w.spec, "--budget-usd", "5", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	decodeOne(t, res.Stdout(), &run)
	assert.Assert(t, is.Equal(run.Ended, loop.EndedFinished), "%+v", run)
	ev = heard(t, out)
	assert.Check(t, is.Equal(ev.Event, dloop.NotifyFinished))
	assert.Check(t, is.Equal(ev.Ended, "finished"))
	assert.Check(t, is.DeepEqual(ev.Lanes, dloop.NotifyLanes{Total: 3, Delivered: 3}))
	assert.Check(t, is.Equal(ev.Spend.USD, 1.75))
	assert.Check(t, is.Equal(ev.Spend.Steps, 7))
	assert.Check(t, is.Contains(ev.Summary, "finished; 3 of 3 lanes delivered, 0 handed back; spent 1.75 USD over 7 steps"))
	_, err := time.Parse(time.RFC3339, ev.At)
	assert.Check(t, err)
}

// A notifier that fails, or hangs flooding its output, never fails or holds the run: the run ends as
// it would have, exit 0, the notifier's trouble said once on stderr; the hanging one and what it
// started are ended within a few seconds.
func TestAFailingOrHangingNotifierLeavesTheRunAsItWas(t *testing.T) {
	for _, c := range []struct {
		name, command, said string
	}{
		{"failing", "echo the webhook is down >&2; exit 3", "build.notify exited 3: the webhook is down; the run is as it was"},
		{"hanging", "sleep 60 & yes abcd-notify-flood-5f1c", "build.notify it did not exit within 5s, so abcd ended it; the run is as it was"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newRunnerWorld(t, twoLanes)
			w.play(t, w.paidAgents(t)...)
			w.notifyWith(t, c.command)
			began := time.Now()
			res := w.abcd(t, "implement", "run", w.spec, "--json")
			took := time.Since(began)
			res.Assert(t, icmd.Expected{ExitCode: 0})
			var run loop.ImplementRunResult
			decodeOne(t, res.Stdout(), &run)
			assert.Check(t, is.Equal(run.Ended, loop.EndedFinished), "%+v", run)
			assert.Check(t, is.Equal(strings.Count(res.Stderr(), "build.notify"), 1), res.Stderr())
			assert.Check(t, is.Contains(res.Stderr(), c.said))
			assert.Check(t, len(res.Stderr()) < 64<<10, "the flood is not on abcd's stderr")
			if c.name == "hanging" {
				assert.Check(t, took < 40*time.Second, "%s: the notifier held the run", took)
				assert.Check(t, !processHolding("abcd-notify-flood-5f1c"), "the notifier's group is ended")
			}
		})
	}
}

// processHolding reports whether a process on this machine has marker in its command line (false
// where /proc cannot be read: the check then proves nothing, and says so by never failing).
func processHolding(marker string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), marker) {
			return true
		}
	}
	return false
}

// A repository's file naming build.notify is refused, saying why and where it belongs, and nothing is
// written: a cloned repository never runs a command on the machine of whoever clones it.
func TestARepositorysNotifierIsRefused(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	marker := filepath.Join(t.TempDir(), "ran")
	w.c.write(t, ".abcd/config.json", `{"schema_version": 1, "build": {"dod": "true", "notify": "touch '`+marker+`'"}}`)
	before := tree(t, w.c.dir, w.c.home)
	res := w.abcd(t, "implement", "run", w.spec)
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(res.Stderr(), "declares build.notify, which only the machine file may declare (a command the repository's file named would run on the machine of everyone who clones it)"))
	assert.Check(t, is.Contains(res.Stderr(), filepath.Join(w.c.home, ".abcd", "config.json")))
	assert.Check(t, is.DeepEqual(tree(t, w.c.dir, w.c.home), before))
	_, err := os.Stat(marker)
	assert.Check(t, os.IsNotExist(err), "the repository's command never ran")
}
