package cli

import (
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/record"
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
