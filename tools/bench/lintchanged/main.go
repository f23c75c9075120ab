// Command lintchanged measures `abcd lint --changed REV` and `abcd lint --staged`, the checks CI and
// git hooks run, against a whole `abcd lint` of the same repository: 10,000 records, committed, then
// a change a working day makes (a few records edited, two issues captured, an intent planned), staged.
// The three commands run alternately in every round, so all see the same machine; the figures are
// medians and the ratios are of the medians (the whole lint is the reference). With -md it writes its
// section of docs/performance.md.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
	"github.com/abcd-dev/abcd/tools/bench/recordgen"
)

func main() {
	runs := flag.Int("runs", 15, "timed rounds after two warm-up rounds")
	n := flag.Int("n", 10000, "records in the repository")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	if err := run(*runs, *n, *md); err != nil {
		fmt.Fprintln(os.Stderr, "lintchanged:", err)
		os.Exit(1)
	}
}

type command struct {
	label string
	args  []string
}

// target: a check on what a change touched costs a small share of a whole lint.
const maxRatio = 0.25

func run(runs, n int, md string) (err error) {
	dir, err := os.MkdirTemp("", "abcd-lintchanged-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	abcd, repo := filepath.Join(dir, "abcd"), filepath.Join(dir, "repo")
	if err := benchkit.Build(abcd, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	env := append(os.Environ(), "ABCD_HOME="+filepath.Join(dir, "home"), "NO_COLOR=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@abcd.invalid", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@abcd.invalid")
	if err := recordgen.Generate(repo, env, abcd, n); err != nil {
		return err
	}
	touched, err := change(repo, env, abcd)
	if err != nil {
		return err
	}
	commands := []command{
		{"`abcd lint --json` (the whole record)", []string{"lint", "--json"}},
		{"`abcd lint --changed HEAD --json`", []string{"lint", "--changed", "HEAD", "--json"}},
		{"`abcd lint --staged --json`", []string{"lint", "--staged", "--json"}},
	}
	checked := map[string]int{}
	for _, c := range commands {
		var res struct {
			Checked int `json:"checked"`
			Errors  int `json:"errors"`
		}
		if err := abcdJSON(repo, env, abcd, &res, c.args...); err != nil {
			return err
		}
		if res.Errors > 0 {
			return fmt.Errorf("%s found %d errors in the generated repository", c.label, res.Errors)
		}
		checked[c.label] = res.Checked
	}
	samples := map[string][]time.Duration{}
	for i := 0; i < runs+2; i++ {
		for _, c := range commands {
			d, err := benchkit.Time(env, repo, abcd, c.args...)
			if err != nil {
				return err
			}
			if i >= 2 {
				samples[c.label] = append(samples[c.label], d)
			}
		}
	}
	whole := benchkit.Median(samples[commands[0].label])
	var b strings.Builder
	fmt.Fprintf(&b, "## Lint on what a change touched\n\n")
	fmt.Fprintf(&b, "A repository of %s valid records (`tools/bench/recordgen`, as the record benchmark makes them),\n", count(n))
	fmt.Fprintf(&b, "committed, then a change staged that touches %d record files (%s). `abcd lint --changed HEAD`\n", touched.files, touched.what)
	fmt.Fprintf(&b, "is the check CI runs before a merge, `abcd lint --staged` a pre-commit hook's; the whole `abcd lint` is\n")
	fmt.Fprintf(&b, "the reference, run alternately with them (`go run ./tools/bench/lintchanged`, %d rounds after two warm-ups).\n\n", runs)
	fmt.Fprintf(&b, "| command | records checked | median | ratio to the whole lint | target |\n| --- | --- | --- | --- | --- |\n")
	var targets []benchkit.Target
	for _, c := range commands {
		m := benchkit.Median(samples[c.label])
		ratio := float64(m) / float64(whole)
		target := "reference"
		if c.args[1] != "--json" {
			met := ratio <= maxRatio
			target = fmt.Sprintf("at most %.2f, %s", maxRatio, map[bool]string{true: "met", false: "**not met**"}[met])
			targets = append(targets, benchkit.Target{What: c.label + " at " + count(n) + " records, as a share of a whole lint",
				Figure: fmt.Sprintf("%.2f (%.1f ms against %.1f ms)", ratio, benchkit.MS(m), benchkit.MS(whole)), Met: met})
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f ms | %.2f | %s |\n", c.label, checked[c.label], benchkit.MS(m), ratio, target)
		fmt.Printf("%-40s checked %5d  median %7.1f ms  ratio %.2f\n", strings.Trim(c.label, "`"), checked[c.label], benchkit.MS(m), ratio)
	}
	b.WriteString("\nWhat the changed checks still read besides the changed files: every record folder's listing (names only,\n")
	b.WriteString("for ids and references) and, since the change touches a spec and an intent, the front matter of every open\n")
	b.WriteString("spec (an intent planned twice, a shipped intent with an open spec).\n")
	if err := benchkit.WriteSection(md, b.String()); err != nil {
		return err
	}
	return benchkit.WriteTargets(md, targets)
}

func count(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

type touched struct {
	files int
	what  string
}

// change commits the generated record and stages a day's change to it.
func change(repo string, env []string, abcd string) (touched, error) {
	if err := sh(repo, env, "git", "add", "-A"); err != nil {
		return touched{}, err
	}
	if err := sh(repo, env, "git", "commit", "-q", "-m", "the record"); err != nil {
		return touched{}, err
	}
	folder, _ := record.FolderOf(record.Issues, "open")
	entries, err := os.ReadDir(filepath.Join(repo, filepath.FromSlash(folder.Dir)))
	if err != nil {
		return touched{}, err
	}
	edited := 0
	for _, e := range entries {
		if edited == 5 {
			break
		}
		// The folder holds a .keep beside its records (git keeps no empty folder).
		if _, ok := record.IDOfFileName(e.Name()); !ok {
			continue
		}
		p := filepath.Join(repo, filepath.FromSlash(folder.Dir), e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return touched{}, err
		}
		out, err := record.AppendToSection(data, record.SectionNotes, "Seen again today.")
		if err != nil {
			return touched{}, err
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return touched{}, err
		}
		edited++
	}
	for _, text := range []string{"The list flickers", "Lint is slow on a cold cache"} {
		if err := sh(repo, env, abcd, "capture", text); err != nil {
			return touched{}, err
		}
	}
	var drafts struct {
		Records []struct {
			ID string `json:"id"`
		} `json:"records"`
	}
	if err := abcdJSON(repo, env, abcd, &drafts, "intent", "list", "--lifecycle", "drafts", "--json"); err != nil {
		return touched{}, err
	}
	if len(drafts.Records) == 0 {
		return touched{}, fmt.Errorf("the generated repository holds no draft intent")
	}
	if err := sh(repo, env, abcd, "intent", "plan", drafts.Records[0].ID); err != nil {
		return touched{}, err
	}
	if err := sh(repo, env, "git", "add", "-A"); err != nil {
		return touched{}, err
	}
	// five notes, two captures, the planned intent (moved) and its new spec
	return touched{files: edited + 2 + 2, what: "five issues with a note added, two captured, an intent planned with its new spec"}, nil
}

func sh(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func abcdJSON(dir string, env []string, abcd string, v any, args ...string) error {
	cmd := exec.Command(abcd, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("abcd %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return json.Unmarshal(out, v)
}
