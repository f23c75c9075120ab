// Package recordgen makes the repositories the record benchmarks run in: a set-up repository of
// any number of valid records, written as abcd writes them.
package recordgen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/record"
)

// Generate makes a set-up repository holding n records: 60% intents across the three lifecycles,
// 20% specs, 15% issues and 5% decisions, each a valid record written as abcd writes them.
func Generate(repo string, env []string, abcd string, n int) error {
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %w\n%s", err, out)
	}
	cmd := exec.Command(abcd, "ahoy", "install", "--yes")
	cmd.Dir, cmd.Env = repo, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ahoy install: %w\n%s", err, out)
	}
	base := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	lifecycles := []string{"drafts", "planned", "shipped"}
	var intents []record.IntentFrontMatter
	write := func(fam record.Family, lifecycle, id, title string, data []byte) error {
		folder, _ := record.FolderOf(fam, lifecycle)
		p := filepath.Join(repo, filepath.FromSlash(folder.Dir), record.FileName(id, record.Slug(title)))
		return os.WriteFile(p, data, 0o644)
	}
	for i := 0; i < n; i++ {
		now := base.Add(time.Duration(i) * time.Second)
		title := fmt.Sprintf("Record number %d of the benchmark", i)
		switch {
		case i%20 < 12:
			id := record.NewID(record.Intents, now, uint32(i))
			it := record.NewIntent(id, title, now)
			it.Front.Lifecycle = lifecycles[i%3]
			data := string(record.RenderIntent(it))
			data = strings.Replace(data, "## Acceptance Criteria\n", "## Acceptance Criteria\n\n- ac-1: Given a record, when it is listed, then it shows.\n", 1)
			intents = append(intents, it.Front)
			if err := write(record.Intents, it.Front.Lifecycle, id, title, []byte(data)); err != nil {
				return err
			}
		case i%20 < 16 && len(intents) > 0:
			id := record.NewID(record.Specs, now, uint32(i))
			s := record.NewSpec(id, title, intents[len(intents)-1], now)
			if err := write(record.Specs, "open", id, title, record.RenderSpec(s)); err != nil {
				return err
			}
		case i%20 < 19:
			id := record.NewID(record.Issues, now, uint32(i))
			is := record.NewIssue(id, title, "Noticed while benchmarking.", "minor", "bench", []string{}, now)
			if err := write(record.Issues, "open", id, title, record.RenderIssue(is)); err != nil {
				return err
			}
		default:
			id := record.NewID(record.Decisions, now, uint32(i))
			if err := write(record.Decisions, "", id, title, record.RenderDecision(record.NewDecision(id, title, []string{}, now))); err != nil {
				return err
			}
		}
	}
	return nil
}
