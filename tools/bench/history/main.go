// Command history measures history's costs as a person meets them, each beside a reference run in
// the same invocation:
//
//   - search over 1,000 sessions of about 1 GB of transcripts: `abcd history search` end to end (abcd,
//     the helper, the FTS5 query), median of repeated runs per query, against the 200 ms;
//   - capture: the hook's own latency (it hands off), and a capture's time per transcript size;
//   - start-up: `abcd version` and `abcd guard hook` with the database driver kept in the helper (as
//     shipped) and linked into abcd (-tags abcdlinksqlite), alternating.
//
// The 1,000 sessions are generated once (deterministic, Claude Code's transcript shape, redacted and
// indexed by the real store) and kept under bin/bench-cache, since indexing a gigabyte takes minutes;
// -regen makes them again. With -md it writes its section of docs/performance.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	storage "github.com/abcd-dev/abcd/adapters/history"
	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

// target is the issue's: search over 1,000 sessions within 200 ms.
const target = 200 * time.Millisecond

const corpusVersion = "1"

func main() {
	sessions := flag.Int("sessions", 1000, "sessions in the corpus")
	sizeMB := flag.Int("mb", 1024, "megabytes of transcripts in the corpus")
	runs := flag.Int("runs", 30, "runs of each measurement")
	cache := flag.String("cache", "bin/bench-cache", "where the generated corpus is kept between runs")
	regen := flag.Bool("regen", false, "generate the corpus again")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	if err := run(*sessions, *sizeMB, *runs, *cache, *regen, *md); err != nil {
		fmt.Fprintln(os.Stderr, "bench history:", err)
		os.Exit(1)
	}
}

// words is the vocabulary transcripts are made of: code, prose and tool output, Zipf-weighted.
var words = strings.Fields(`the of and to in is that for it as with was on be by this are or at from which an have not but all can
has one were their more when there been also some would if what about into other than only its time will could them these may then
two first any new like our how should over such see most after where both well made used each way because file test build commit
error function return value string package import module config server client request response handler database query migration
table index column schema branch merge rebase push pull review lint type struct interface method field go run make npm node python
err nil ctx context fmt errors strings bytes json http https localhost assert require expected actual failed passed ok panic goroutine
slice map channel mutex lock unlock defer close open read write path dir folder repository worktree lane spec intent audit guard
rules history redaction secret token key password`)

// session is one generated transcript: Claude Code's JSONL, a prompt, assistant turns, Bash tool
// calls and their output.
func session(r *rand.Rand, id string, size int) []byte {
	var b bytes.Buffer
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(words)-1))
	text := func(n int) string {
		var s strings.Builder
		for i := 0; i < n; i++ {
			s.WriteString(words[zipf.Uint64()])
			if i%13 == 12 {
				s.WriteString(".\n")
			} else {
				s.WriteByte(' ')
			}
		}
		return s.String()
	}
	line := func(role string, content any) {
		v := map[string]any{"type": role, "sessionId": id, "cwd": "/home/dev/proj", "timestamp": "2026-12-01T10:00:00Z",
			"message": map[string]any{"role": role, "content": content}}
		data, _ := json.Marshal(v)
		b.Write(data)
		b.WriteByte('\n')
	}
	line("user", "please "+text(30))
	for i := 0; b.Len() < size; i++ {
		line("assistant", []any{map[string]any{"type": "text", "text": text(60)},
			map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", i), "name": "Bash", "input": map[string]any{"command": "go test ./... -run " + words[r.Intn(len(words))]}}})
		line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("t%d", i), "content": text(400 + r.Intn(800))}})
	}
	return b.Bytes()
}

func run(sessions, sizeMB, runs int, cache string, regen bool, md string) (err error) {
	dir, err := os.MkdirTemp("", "abcd-bench-history-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	bins := filepath.Join(dir, "bin")
	if err := os.Mkdir(bins, 0o755); err != nil {
		return err
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bins+"/", "./frontdoors/cmd/abcd", "./frontdoors/cmd/abcd-history")
	build.Env, build.Stderr = append(os.Environ(), "CGO_ENABLED=0"), os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building abcd: %w", err)
	}
	abcd := filepath.Join(bins, "abcd")
	linked := filepath.Join(dir, "abcd-linked")
	build = exec.Command("go", "build", "-trimpath", "-tags", "abcdlinksqlite", "-ldflags", "-s -w", "-o", linked, "./frontdoors/cmd/abcd")
	build.Env, build.Stderr = append(os.Environ(), "CGO_ENABLED=0"), os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building abcd with the driver linked: %w", err)
	}

	// A repository with a fixed first commit, so the cached corpus is its history.
	repo := filepath.Join(dir, "repo")
	gitEnv := append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	for _, step := range [][]string{{"init", "-q", "-b", "main", repo}, {"-C", repo, "commit", "-q", "--allow-empty", "-m", "bench"}} {
		cmd := exec.Command("git", step...)
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w: %s", step, err, out)
		}
	}
	out, err := exec.Command("git", "-C", repo, "rev-list", "--max-parents=0", "HEAD").Output()
	if err != nil {
		return err
	}
	root := strings.TrimSpace(string(out))

	abs, err := filepath.Abs(cache)
	if err != nil {
		return err
	}
	home := filepath.Join(abs, fmt.Sprintf("history-%s-%d-%d", corpusVersion, sessions, sizeMB))
	gen, err := corpus(home, root, sessions, sizeMB, regen)
	if err != nil {
		return err
	}
	dbSize := int64(0)
	if st, err := os.Stat(storage.Store{Home: home}.Path(root)); err == nil {
		dbSize = st.Size()
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ABCD_HOME=" + home, "NO_COLOR=1"}

	// Search, end to end, beside abcd version.
	queries := []string{"migration", "mutex deadlock", `"return value"`, "goroutin*", "redaction secret token"}
	fmt.Printf("history search over %d sessions (%d MB of transcripts, database %d MB), %d runs each (median, p90):\n", sessions, sizeMB, dbSize>>20, runs)
	var tv []time.Duration
	type figure struct {
		query    string
		med, p90 time.Duration
		hits     int
	}
	var figs []figure
	worst := time.Duration(0)
	for _, q := range queries {
		var tq []time.Duration
		hits := 0
		for i := 0; i < runs+3; i++ {
			t0 := time.Now()
			cmd := exec.Command(abcd, "history", "search", q, "--json")
			cmd.Env, cmd.Dir = env, repo
			out, err := cmd.Output()
			took := time.Since(t0)
			if err != nil {
				return fmt.Errorf("abcd history search %q: %w", q, err)
			}
			var res struct{ Hits []any }
			if err := json.Unmarshal(out, &res); err != nil {
				return err
			}
			v, err := benchkit.Time(env, repo, abcd, "version")
			if err != nil {
				return err
			}
			if i >= 3 {
				tq, tv, hits = append(tq, took), append(tv, v), len(res.Hits)
			}
		}
		f := figure{q, benchkit.Median(tq), benchkit.P90(tq), hits}
		figs = append(figs, f)
		worst = max(worst, f.med)
		fmt.Printf("  search %-26q %8.1f ms  %8.1f ms  (%d hits)\n", q, benchkit.MS(f.med), benchkit.MS(f.p90), hits)
	}
	mv := benchkit.Median(tv)
	fmt.Printf("  abcd version               %8.1f ms  (reference)\n", benchkit.MS(mv))

	// Capture: the hook hands off at once; the capture itself, by size.
	capRepo, capHome := filepath.Join(dir, "caprepo"), filepath.Join(dir, "caphome")
	for _, step := range [][]string{{"init", "-q", "-b", "main", capRepo}, {"-C", capRepo, "commit", "-q", "--allow-empty", "-m", "cap"}} {
		cmd := exec.Command("git", step...)
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w: %s", step, err, out)
		}
	}
	projects := filepath.Join(dir, ".claude", "projects", "-caprepo")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		return err
	}
	capEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ABCD_HOME=" + capHome, "NO_COLOR=1"}
	r := rand.New(rand.NewSource(7))
	type capFig struct {
		mb   int
		took time.Duration
	}
	var caps []capFig
	for _, mb := range []int{1, 8} {
		data := bytes.ReplaceAll(session(r, fmt.Sprintf("cap-%d", mb), mb<<20), []byte("/home/dev/proj"), []byte(capRepo))
		p := filepath.Join(projects, fmt.Sprintf("cap-%d.jsonl", mb))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
		took, err := benchkit.Time(capEnv, capRepo, abcd, "history", "capture", p)
		if err != nil {
			return err
		}
		caps = append(caps, capFig{mb, took})
		fmt.Printf("  capture of a %2d MB transcript  %8.0f ms\n", mb, benchkit.MS(took))
	}
	hookPayload, _ := json.Marshal(map[string]any{"session_id": "cap-1", "transcript_path": filepath.Join(projects, "cap-8.jsonl"), "cwd": capRepo,
		"hook_event_name": "SessionEnd", "reason": "other"})
	var th []time.Duration
	for i := 0; i < 10; i++ {
		cmd := exec.Command(abcd, "history", "hook", "--harness", "claude")
		cmd.Env, cmd.Dir, cmd.Stdin = capEnv, capRepo, bytes.NewReader(hookPayload)
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("abcd history hook: %w", err)
		}
		th = append(th, time.Since(t0))
	}
	mh := benchkit.Median(th)
	fmt.Printf("  abcd history hook (hands off)  %8.1f ms\n", benchkit.MS(mh))

	// Start-up with the driver kept in the helper, against linked into abcd.
	guardPayload, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/t", "cwd": repo, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}})
	var sv, lv, sg, lg []time.Duration
	for i := 0; i < 10+runs*5; i++ {
		a, err := benchkit.Time(env, repo, abcd, "version")
		if err != nil {
			return err
		}
		b, err := benchkit.Time(env, repo, linked, "version")
		if err != nil {
			return err
		}
		c, err := timeStdin(env, repo, guardPayload, abcd, "guard", "hook")
		if err != nil {
			return err
		}
		d, err := timeStdin(env, repo, guardPayload, linked, "guard", "hook")
		if err != nil {
			return err
		}
		if i >= 10 {
			sv, lv, sg, lg = append(sv, a), append(lv, b), append(sg, c), append(lg, d)
		}
	}
	ratio := func(x, y []time.Duration) float64 { return float64(benchkit.Median(x)) / float64(benchkit.Median(y)) }
	fmt.Printf("  abcd version: %.3f ms as shipped, %.3f ms with the driver linked (%.2fx)\n", benchkit.MS(benchkit.Median(sv)), benchkit.MS(benchkit.Median(lv)), ratio(lv, sv))
	fmt.Printf("  abcd guard hook: %.3f ms as shipped, %.3f ms with the driver linked (%.2fx)\n", benchkit.MS(benchkit.Median(sg)), benchkit.MS(benchkit.Median(lg)), ratio(lg, sg))
	sizes := func(p string) int64 {
		st, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return st.Size()
	}

	var b strings.Builder
	fmt.Fprintf(&b, "## History\n\n")
	fmt.Fprintf(&b, "`go run ./tools/bench/history`. The corpus: %d generated sessions in Claude Code's transcript shape (prompts,\n", sessions)
	fmt.Fprintf(&b, "assistant turns, Bash calls and their output), %d MB of transcripts, kept and indexed by the real store (database\n", sizeMB)
	fmt.Fprintf(&b, "%d MB; %s); it is kept under `bin/bench-cache` between runs.\n\n", dbSize>>20, gen)
	fmt.Fprintf(&b, "**Search**, end to end (`abcd history search QUERY --json`: abcd, its helper `abcd-history`, the FTS5 query),\n")
	fmt.Fprintf(&b, "%d runs per query after three warm-up runs, alternating with `abcd version`:\n\n", runs)
	fmt.Fprintf(&b, "| query | median | p90 | ratio to `abcd version` | hits | target |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, f := range figs {
		fmt.Fprintf(&b, "| `%s` | %.1f ms | %.1f ms | %.2f | %d | within %d ms: %s |\n", f.query, benchkit.MS(f.med), benchkit.MS(f.p90),
			float64(f.med)/float64(mv), f.hits, target.Milliseconds(), verdict(f.med <= target))
	}
	fmt.Fprintf(&b, "| `abcd version` (reference) | %.1f ms | | 1.00 | | |\n\n", benchkit.MS(mv))
	fmt.Fprintf(&b, "**Capture.** The hooks hand the capture off and return: `abcd history hook` took %.1f ms (median of 10). The\n", benchkit.MS(mh))
	fmt.Fprintf(&b, "capture itself (read, redact every string through every view, rescan, index), one run per transcript size:\n\n")
	fmt.Fprintf(&b, "| transcript | capture | throughput | ratio to the hook's hand-off |\n| --- | --- | --- | --- |\n")
	for _, c := range caps {
		fmt.Fprintf(&b, "| %d MB | %.0f ms | %.2f MB/s | %.0f |\n", c.mb, benchkit.MS(c.took), float64(c.mb)/c.took.Seconds(), float64(c.took)/float64(mh))
	}
	fmt.Fprintf(&b, "\nWhere a capture's time goes (`go test -run '^$' -bench RedactAMegabyte -cpuprofile` in domain/history): Go's\n")
	fmt.Fprintf(&b, "regexp engine running gitleaks' rules over every string and view, most of it gitleaks' generic-api-key rule,\n")
	fmt.Fprintf(&b, "which the words key, token, secret and password wake in ordinary code work and whose leading `[\\w.-]{0,50}?`\n")
	fmt.Fprintf(&b, "is tried from every position. Not inherent (a rule's keyword positions could bound where it is tried), and\n")
	fmt.Fprintf(&b, "off every hook's path: the hooks hand the capture to a process of its own.\n")
	fmt.Fprintf(&b, "\n**Start-up.** The driver lives in the helper; linked into abcd instead (`-tags abcdlinksqlite`), %d\n", runs*5)
	fmt.Fprintf(&b, "alternating runs each:\n\n")
	fmt.Fprintf(&b, "| command | as shipped | driver linked into abcd | ratio |\n| --- | --- | --- | --- |\n")
	fmt.Fprintf(&b, "| `abcd version` | %.3f ms | %.3f ms | %.2f |\n", benchkit.MS(benchkit.Median(sv)), benchkit.MS(benchkit.Median(lv)), ratio(lv, sv))
	fmt.Fprintf(&b, "| `abcd guard hook` | %.3f ms | %.3f ms | %.2f |\n", benchkit.MS(benchkit.Median(sg)), benchkit.MS(benchkit.Median(lg)), ratio(lg, sg))
	fmt.Fprintf(&b, "| binary size | %.1f MB (and the helper, %.1f MB) | %.1f MB | |\n\n", float64(sizes(abcd))/1e6, float64(sizes(filepath.Join(bins, "abcd-history")))/1e6, float64(sizes(linked))/1e6)
	if err := benchkit.WriteSection(md, b.String()); err != nil {
		return err
	}
	return benchkit.WriteTargets(md, []benchkit.Target{{What: fmt.Sprintf("`abcd history search` over %d sessions (%d MB) within %d ms", sessions, sizeMB, target.Milliseconds()),
		Figure: fmt.Sprintf("slowest query's median %.1f ms", benchkit.MS(worst)), Met: worst <= target}})
}

// corpus makes (or finds) the generated history under home for repo.
func corpus(home, repo string, sessions, sizeMB int, regen bool) (string, error) {
	done := filepath.Join(home, "complete")
	if !regen {
		if data, err := os.ReadFile(done); err == nil {
			return "generated earlier: " + strings.TrimSpace(string(data)), nil
		}
	}
	if err := os.RemoveAll(home); err != nil {
		return "", err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", err
	}
	s := storage.Store{Home: home}
	r := rand.New(rand.NewSource(1))
	per := sizeMB << 20 / sessions
	start := time.Now()
	for i := 0; i < sessions; i++ {
		id := fmt.Sprintf("bench-%04d", i)
		// The generated text holds no secret: it is kept as written (redaction's cost is the capture
		// figures' business, not search's).
		raw := session(r, id, per)
		kept, counts := raw, history.Counts{}
		t, err := history.Parse(history.Claude, kept)
		if err != nil {
			return "", err
		}
		rec := history.Record{Key: t.Key(), Harness: history.Claude, Session: t.Session, Title: t.Title(), Cwd: t.Cwd, Started: t.Started, Ended: t.Ended,
			Captured: fmt.Sprintf("2026-12-01T%02d:%02d:%02dZ", i/3600, i/60%60, i%60), Bytes: len(raw), Stored: len(kept), Digest: id, Messages: len(t.Messages), Redactions: counts}
		if err := s.Put(context.Background(), repo, ports.HistoryEntry{Record: rec, Raw: kept, Messages: t.Messages}); err != nil {
			return "", err
		}
		if i%100 == 99 {
			fmt.Fprintf(os.Stderr, "bench history: %d of %d sessions kept (%s)\n", i+1, sessions, time.Since(start).Round(time.Second))
		}
	}
	note := fmt.Sprintf("generated and indexed in %s", time.Since(start).Round(time.Second))
	return note, os.WriteFile(done, []byte(note+"\n"), 0o600)
}

func timeStdin(env []string, dir string, stdin []byte, bin string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, bytes.NewReader(stdin)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return time.Since(t0), nil
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**not met**"
}
