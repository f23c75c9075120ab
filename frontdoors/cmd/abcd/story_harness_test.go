//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/ports/loop"
)

// pageSeen is what tools/harness/page.mjs saw of a page in Chromium.
type pageSeen struct {
	Title string `json:"title"`
	Lanes []struct {
		ID      string   `json:"id"`
		Stage   string   `json:"stage"`
		Visible bool     `json:"visible"`
		Text    []string `json:"text"`
	} `json:"lanes"`
	Edges []struct {
		From   string  `json:"from"`
		To     string  `json:"to"`
		Merged bool    `json:"merged"`
		Length float64 `json:"length"`
	} `json:"edges"`
	Verdicts []struct {
		Lane    string `json:"lane"`
		Role    string `json:"role"`
		Verdict string `json:"verdict"`
	} `json:"verdicts"`
	Criteria []struct {
		Criterion string `json:"criterion"`
		Verdict   string `json:"verdict"`
	} `json:"criteria"`
	Steps          int      `json:"steps"`
	Scripts        int      `json:"scripts"`
	Background     string   `json:"background"`
	DarkBackground string   `json:"darkBackground"`
	Requests       []string `json:"requests"`
	ConsoleErrors  []string `json:"consoleErrors"`
	Violations     []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
	} `json:"violations"`
}

// The page of a three-lane run (the third lane after the other two) on runners, in a real browser:
// make test-harness names headless Chromium in ABCD_BROWSER (it installs Debian's chromium when it is
// missing). Loaded from a file URL with the network cut off, the page shows the three lanes and the
// integration, the edges between them and every verdict, runs no script, asks for nothing, looks
// different in the dark, has no serious or critical axe-core violation, and renders to screenshots
// kept in ABCD_ARTEFACTS (bin/artefacts).
func TestHarnessTheRunsPageInChromium(t *testing.T) {
	browser := os.Getenv("ABCD_BROWSER")
	if browser == "" {
		t.Skip("make test-harness opens the page in headless Chromium (ABCD_BROWSER names it)")
	}
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "..", "tools", "harness", "page.mjs")
	artefacts := os.Getenv("ABCD_ARTEFACTS")
	if artefacts == "" {
		artefacts = t.TempDir()
	}
	assert.NilError(t, os.MkdirAll(artefacts, 0o755))

	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.\n3. (after 1, 2) Part three of the work.")
	w.play(t, w.agents(t)...)
	var out loop.ImplementRunResult
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Success)
	decodeOne(t, res.Stdout(), &out)
	page := filepath.Join(artefacts, "run-page.html")
	w.abcd(t, "implement", "record", "--run", out.Run.Run, "--html", "--out", page).Assert(t, icmd.Success)

	cmd := exec.Command("node", script, page, filepath.Join(artefacts, "run-page"), browser)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	assert.NilError(t, err, "the browser could not open the page")
	var seen pageSeen
	assert.NilError(t, json.Unmarshal(stdout, &seen), string(stdout))

	assert.Check(t, is.Equal(seen.Title, "abcd run "+out.Run.Run))
	ids := []string{}
	for _, l := range seen.Lanes {
		ids = append(ids, l.ID)
		assert.Check(t, l.Visible, "%s is not drawn", l.ID)
		assert.Check(t, is.Equal(l.Stage, "done"), l.ID)
	}
	assert.Check(t, is.DeepEqual(ids, []string{"lane-1", "lane-2", "lane-3", "integration"}))
	edges := map[string]bool{}
	for _, e := range seen.Edges {
		edges[e.From+">"+e.To] = e.Merged
		assert.Check(t, e.Length > 20, "the edge %s>%s is not drawn", e.From, e.To)
	}
	assert.Check(t, is.DeepEqual(edges, map[string]bool{"lane-1>lane-3": false, "lane-2>lane-3": false, "lane-3>integration": true}))
	assert.Check(t, is.Len(seen.Verdicts, 7), "six reviews and the audit")
	for _, v := range seen.Verdicts {
		assert.Check(t, is.Equal(v.Verdict, "pass"), "%+v", v)
	}
	assert.Check(t, is.Len(seen.Criteria, 1))
	assert.Check(t, is.Equal(seen.Steps, 10), "three implementations, six reviews, one audit")
	assert.Check(t, is.Equal(seen.Scripts, 0))
	assert.Check(t, is.Len(seen.Requests, 0), "the page asked for %v", seen.Requests)
	assert.Check(t, is.Len(seen.ConsoleErrors, 0), "%v", seen.ConsoleErrors)
	assert.Check(t, seen.Background != seen.DarkBackground, "the same background in the dark: %s", seen.Background)
	for _, v := range seen.Violations {
		assert.Check(t, v.Impact != "serious" && v.Impact != "critical", "axe: %s (%s): %s", v.ID, v.Impact, v.Help)
		t.Logf("axe: %s (%s): %s", v.ID, v.Impact, v.Help)
	}
	for _, shot := range []string{"run-page-light.png", "run-page-dark.png"} {
		info, err := os.Stat(filepath.Join(artefacts, shot))
		assert.Check(t, err == nil && info.Size() > 10_000, "the screenshot %s: %v", shot, err)
	}
}
