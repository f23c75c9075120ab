// Command records measures how listing and status grow with the record: it builds repositories of
// 1,000 and 10,000 records and times `abcd intent list --json` and bare `abcd --json` in each, in
// one invocation, and prints the ratio of the two sizes (linear growth is about 10).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

func main() {
	runs := flag.Int("runs", 15, "timed runs of each command at each size")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "records:", err)
		os.Exit(1)
	}
}

func run(runs int) error {
	dir, err := os.MkdirTemp("", "abcd-records-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	abcd := filepath.Join(dir, "abcd")
	if err := benchkit.Build(abcd, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	sizes := []int{1000, 10000}
	type result struct{ list, status time.Duration }
	results := map[int]result{}
	for _, n := range sizes {
		repo := filepath.Join(dir, fmt.Sprintf("repo-%d", n))
		home := filepath.Join(dir, fmt.Sprintf("home-%d", n))
		env := append(os.Environ(), "ABCD_HOME="+home, "NO_COLOR=1")
		if err := Generate(repo, env, abcd, n); err != nil {
			return err
		}
		var tl, ts []time.Duration
		for i := 0; i < runs+2; i++ {
			l, err := benchkit.Time(env, repo, abcd, "intent", "list", "--json")
			if err != nil {
				return err
			}
			s, err := benchkit.Time(env, repo, abcd, "--json")
			if err != nil {
				return err
			}
			if i >= 2 {
				tl, ts = append(tl, l), append(ts, s)
			}
		}
		results[n] = result{benchkit.Median(tl), benchkit.Median(ts)}
		fmt.Printf("%6d records: intent list --json %8.1f ms   abcd --json %8.1f ms   (median of %d)\n",
			n, benchkit.MS(results[n].list), benchkit.MS(results[n].status), runs)
	}
	small, large := results[sizes[0]], results[sizes[1]]
	fmt.Printf("growth 10,000 / 1,000: intent list %.1f, abcd --json %.1f (linear is 10; target <= 12)\n",
		float64(large.list)/float64(small.list), float64(large.status)/float64(small.status))
	return nil
}

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
