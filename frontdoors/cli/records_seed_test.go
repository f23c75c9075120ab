package cli

import (
	"context"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
)

// testNow is the fixed time the fake clock reports.
var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const (
	seedDraftID    = "itd-2611300900000001"
	seedPlannedID  = "itd-2611300900000002"
	seedOpenSpecID = "spc-2611300900000003"
	seedDoneSpecID = "spc-2611300900000004"
	seedIssueID    = "iss-2611300900000005"
	seedDecisionID = "dcn-2611300900000006"
)

// seededRecords is a record with one of each thing a verb acts on: a draft intent ready to plan, a
// planned intent whose only spec is closed (ready to ship), an open spec for it with steps, an open
// issue and a decision. Refs in verbArgs name them by slug fragment.
func seededRecords() *fake.Records {
	r := fake.NewRecords()
	put := func(fam record.Family, lifecycle, id, slug string, data []byte) {
		folder, _ := record.FolderOf(fam, lifecycle)
		r.Files[folder.Dir+"/"+record.FileName(id, slug)] = data
	}
	fill := func(data []byte, heading, text string) []byte {
		s := string(data)
		i := strings.Index(s, "## "+heading+"\n")
		j := strings.Index(s[i+3:], "\n## ")
		end := len(s)
		if j >= 0 {
			end = i + 3 + j + 1
		}
		return []byte(s[:i] + "## " + heading + "\n\n" + text + "\n\n" + s[end:])
	}
	intentFile := func(id, title, lifecycle string) []byte {
		it := record.NewIntent(id, title, testNow)
		it.Front.Lifecycle = lifecycle
		data := record.RenderIntent(it)
		data = fill(data, "Press Release", "Cold start is fast now.")
		return fill(data, "Acceptance Criteria", "- ac-1: Given a binary, when I run it, then it answers quickly.")
	}
	put(record.Intents, "drafts", seedDraftID, "draft-intent", intentFile(seedDraftID, "Draft intent", "drafts"))
	planned := intentFile(seedPlannedID, "Planned intent", "planned")
	put(record.Intents, "planned", seedPlannedID, "planned-intent", planned)

	spec := func(id, title, lifecycle string, of []byte) []byte {
		it, _ := record.ParseIntent("x", of)
		s := record.NewSpec(id, title, it.Front, testNow)
		s.Front.Lifecycle = lifecycle
		return fill(record.RenderSpec(s), "Steps", "1. Make it lazy.\n2. Build it static.")
	}
	put(record.Specs, "closed", seedDoneSpecID, "done-spec", spec(seedDoneSpecID, "Done spec", "closed", planned))
	put(record.Specs, "open", seedOpenSpecID, "open-spec", spec(seedOpenSpecID, "Open spec", "open", intentFile(seedDraftID, "Draft intent", "drafts")))
	put(record.Issues, "open", seedIssueID, "noticed-issue",
		record.RenderIssue(record.NewIssue(seedIssueID, "Noticed issue", "It flickers.", "minor", "test", []string{seedDraftID}, testNow)))
	put(record.Decisions, "", seedDecisionID, "a-decision",
		record.RenderDecision(record.NewDecision(seedDecisionID, "A decision", []string{}, testNow)))
	return r
}

// seedTwinPath is a second issue carrying the seeded issue's id (seedTwin).
const seedTwinPath = ".abcd/work/issues/open/" + seedIssueID + "-twin-issue.md"

// seedMovedTwice leaves the seeded issue in both of its folders, as a close whose move a branch
// switch undid half of.
func seedMovedTwice(r *fake.Records) {
	open := ".abcd/work/issues/open/" + record.FileName(seedIssueID, "noticed-issue")
	closed, _ := record.SetLifecycle(r.Files[open], "closed")
	r.Files[".abcd/work/issues/closed/"+record.FileName(seedIssueID, "noticed-issue")] = closed
}

// seedTwin adds a second issue that carries the seeded issue's id, as two clones can make.
func seedTwin(r *fake.Records) {
	r.Files[seedTwinPath] = record.RenderIssue(record.NewIssue(seedIssueID, "Twin issue", "Another thing.", "minor", "test", nil, testNow))
}

const (
	seedBase    = "1111111111111111111111111111111111111111"
	seedFeature = "2222222222222222222222222222222222222222"
	seedLaneTip = "3333333333333333333333333333333333333333"
	seedRunID   = "run-2611301100000009"
)

// seededGit is main at the base, a feature branch one commit ahead (checked out), and the seeded
// run's lane branch with the implementer's commit on it.
func seededGit() *fake.Git {
	g := fake.NewGit(seedBase)
	g.Branches["feature"] = seedBase
	g.Commit("feature", seedFeature)
	g.Head = "feature"
	g.Branches["abcd/"+seedRunID+"/lane-1"] = seedBase
	g.Commit("abcd/"+seedRunID+"/lane-1", seedLaneTip)
	return g
}

// seededRuns holds one spec run whose lane-1 awaits its implementer, with the receipt, its output
// and its report written: `implement receipt` on it records and opens the reviewers.
func seededRuns() *fake.Runs {
	r := fake.NewRuns()
	s := loop.New(loop.KindSpec, loop.Options{Run: seedRunID, Spec: seedOpenSpecID, Intent: seedDraftID, Base: seedBase,
		Created: "2026-11-30T12:00:00Z", DoD: "make test", Criteria: []string{"ac-1"},
		Validators: []string{loop.RoleRuthless, loop.RoleSecurity, loop.RoleAuditor}, IntegrationBranch: "abcd/" + seedRunID + "/integration"},
		[]loop.LaneSpec{{Step: 1, Text: "Make it lazy.", Branch: "abcd/" + seedRunID + "/lane-1"}})
	// The lane started from the base, in its worktree, as a step does.
	s.Started(0, seedBase, loop.WorktreeDir(seedRunID, "lane-1"))
	plan := loop.Pending(s)[0]
	brief, ret := loop.AwaitPaths(seedRunID, "lane-1", plan)
	s.Open(plan, brief, ret, loop.Routing{Agent: "implementer", Tier: "host-decides", FanOut: 1, Source: "none", Connection: "host", Route: "host", Ran: "host"}, "2026-11-30T12:00:00Z")
	r.Dirs[seedRunID] = true
	r.Files[loop.RunDir(seedRunID)+"/state.json"] = loop.Encode(s)
	r.Files[brief] = []byte("# brief\n")
	lane := loop.LaneDir(seedRunID, "lane-1")
	r.Files[lane+"/dod.txt"] = []byte("ok\n")
	r.Files[lane+"/report.md"] = []byte("Made it lazy.\n")
	r.Files[ret] = []byte(`{"schema_version":1,"run":"` + seedRunID + `","lane":"lane-1","branch":"abcd/` + seedRunID + `/lane-1",` +
		`"commits":["` + seedLaneTip + `"],"dod":{"command":"make test","exit_code":0,"output":"dod.txt"},"report":"report.md","model":"test-model"}`)
	return r
}

// seedReceiptPath is the seeded run's open return path.
func seedReceiptPath() string { return loop.LaneDir(seedRunID, "lane-1") + "/implement/receipt.json" }

// seededHistory keeps one captured session under the seeded repository's root commit.
func seededHistory() *fake.History {
	h := fake.NewHistory()
	_ = h.Put(context.Background(), seedBase, ports.HistoryEntry{
		Record: history.Record{Key: "claude:s1234", Harness: history.Claude, Session: "s1234", Title: "hello there", Bytes: 10, Digest: "d",
			Captured: "2026-12-01T10:00:00Z", Messages: 1, Redactions: history.Counts{}},
		Raw: []byte(`{"type":"user"}` + "\n"), Messages: []history.Message{{Role: "user", Text: "hello there"}}})
	return h
}
