// Command demo is `make run`: a guided walkthrough of abcd's build loop, end to end, in a scratch
// repository it creates (never the checkout it is run from). It sets abcd up, writes an intent with
// acceptance criteria and its spec (three steps, the third building on the first two), starts the
// run, and then plays the harness: a scripted agent per open await, with real commits in the lanes'
// own worktrees, a definition of done that really runs, a review that really fails once and is
// fixed, and an auditor that checks the integrated result. It prints the run's record and the path
// of the scratch repository to explore. Offline; progress goes to stderr when it is a terminal.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

func main() {
	abcd := flag.String("abcd", "bin/abcd", "the abcd binary to run")
	parent := flag.String("dir", "", "the folder to create the scratch repository in (default: the system's temporary folder)")
	flag.Parse()
	var progress io.Writer
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		progress = os.Stderr
	}
	if _, err := Run(Options{ABCD: *abcd, Parent: *parent, Out: os.Stdout, Progress: progress}); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// Options configure one walkthrough.
type Options struct {
	ABCD     string    // the abcd binary
	Parent   string    // where the scratch folder is made; "" for the system's temporary folder
	Out      io.Writer // the walkthrough, for a person to read
	Progress io.Writer // one line per step while it runs; nil for none
}

// Result is what a walkthrough leaves behind.
type Result struct {
	Dir, Repo, Home string // the scratch folder, its repository and its ABCD_HOME
	Run             string
	Record          string // `abcd implement record` as text
}

type demo struct {
	Options
	abcd       string
	repo, home string
	env        []string
	run        string
	step, of   int
	mu         sync.Mutex
}

// Run performs the walkthrough.
func Run(o Options) (Result, error) {
	abcd, err := filepath.Abs(o.ABCD)
	if err != nil {
		return Result{}, err
	}
	if _, err := os.Stat(abcd); err != nil {
		return Result{}, fmt.Errorf("no abcd binary at %s: run make build first", abcd)
	}
	dir, err := os.MkdirTemp(o.Parent, "abcd-demo-")
	if err != nil {
		return Result{}, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return Result{}, err
	}
	d := &demo{Options: o, abcd: abcd, repo: filepath.Join(dir, "repo"), home: filepath.Join(dir, "abcd-home"), of: 8}
	if err := os.Mkdir(d.repo, 0o755); err != nil {
		return Result{}, err
	}
	if err := os.Mkdir(d.home, 0o700); err != nil {
		return Result{}, err
	}
	// The scratch machine: its own ABCD_HOME (no connection or routing of yours can send a step
	// elsewhere), git without your configuration (no signing prompt, no hook), a fixed identity.
	d.env = append(cleanEnv(), "ABCD_HOME="+d.home, "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=abcd demo", "GIT_AUTHOR_EMAIL=demo@abcd.invalid", "GIT_COMMITTER_NAME=abcd demo", "GIT_COMMITTER_EMAIL=demo@abcd.invalid")
	start := time.Now()
	record, err := d.walk()
	if err != nil {
		return Result{Dir: dir, Repo: d.repo, Home: d.home}, fmt.Errorf("%w\n(the scratch repository is kept at %s)", err, d.repo)
	}
	d.progress("done in %s", time.Since(start).Round(100*time.Millisecond))
	return Result{Dir: dir, Repo: d.repo, Home: d.home, Run: d.run, Record: record}, nil
}

// cleanEnv is the caller's environment without what would reach past the scratch machine.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "ABCD_HOME" || strings.HasPrefix(k, "GIT_") || k == "NO_COLOR" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// say and progress write the walkthrough's own stdout and stderr, as fmt.Printf would: a failed
// write there has nowhere left to be told.
func (d *demo) say(format string, args ...any) { _, _ = fmt.Fprintf(d.Out, format+"\n", args...) }

func (d *demo) section(title string) {
	d.step++
	d.say("\n%d. %s", d.step, title)
	d.progress("%s", title)
}

func (d *demo) progress(format string, args ...any) {
	if d.Progress == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _ = fmt.Fprintf(d.Progress, "demo [%d/%d] %s\n", d.step, d.of, fmt.Sprintf(format, args...))
}

// show prints a command and its output, indented, keeping only the lines keep accepts.
func (d *demo) show(cmd, out string, keep func(string) bool) {
	d.say("   $ %s", cmd)
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line != "" && (keep == nil || keep(line)) {
			d.say("     %s", d.short(line))
		}
	}
}

// short writes the scratch repository's path as "." so lines stay readable.
func (d *demo) short(s string) string { return strings.ReplaceAll(s, d.repo+"/", "./") }

// sh runs a program in dir and returns its stdout; a non-zero exit is an error with its output.
func (d *demo) sh(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, d.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, strings.NewReader("")
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), nil
}

func (d *demo) git(dir string, args ...string) (string, error) {
	out, err := d.sh(dir, "git", args...)
	return strings.TrimSpace(out), err
}

// abcdText runs abcd in the repository for a person to read.
func (d *demo) abcdText(args ...string) (string, error) { return d.sh(d.repo, d.abcd, args...) }

// abcdJSON runs abcd --json and decodes its one document into v.
func (d *demo) abcdJSON(v any, args ...string) error {
	out, err := d.sh(d.repo, d.abcd, append(args, "--json")...)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(out), v)
}

func (d *demo) write(dir, rel, body string) error {
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(body), 0o644)
}

// The run as `abcd implement status --json` shows it: the parts a harness reads.
type runView struct {
	Run      string  `json:"run"`
	Spec     string  `json:"spec"`
	Intent   string  `json:"intent"`
	Finished bool    `json:"finished"`
	Lanes    []lane  `json:"lanes"`
	Awaits   []await `json:"awaits"`
}

type lane struct {
	ID          string `json:"id"`
	Branch      string `json:"branch"`
	Stage       string `json:"stage"`
	Worktree    string `json:"worktree"`
	Integration bool   `json:"integration"`
}

type await struct {
	ID     string `json:"id"`
	Lane   string `json:"lane"`
	Kind   string `json:"kind"`
	Role   string `json:"role"`
	Round  int    `json:"round"`
	Brief  string `json:"brief"`
	Return string `json:"return"`
}

func (d *demo) status() (runView, error) {
	var res struct {
		Runs []runView `json:"runs"`
	}
	if err := d.abcdJSON(&res, "implement", "status", "--run", d.run); err != nil {
		return runView{}, err
	}
	if len(res.Runs) != 1 {
		return runView{}, fmt.Errorf("implement status --run %s named %d runs", d.run, len(res.Runs))
	}
	return res.Runs[0], nil
}

func (v runView) lane(id string) lane {
	for _, l := range v.Lanes {
		if l.ID == id {
			return l
		}
	}
	return lane{}
}

func (d *demo) walk() (string, error) {
	d.say("abcd demo: the build loop end to end, in a scratch repository of its own")
	d.say("   repository  %s", d.repo)
	d.say("   ABCD_HOME   %s (so nothing of yours routes a step elsewhere)", d.home)

	d.section("A git repository with a small shell project")
	if err := d.project(); err != nil {
		return "", err
	}

	d.section("Set abcd up: abcd ahoy install --yes")
	out, err := d.abcdText("ahoy", "install", "--yes")
	if err != nil {
		return "", err
	}
	d.show("abcd ahoy install --yes", out, func(l string) bool { return !strings.HasPrefix(l, "skipped") })
	if err := d.write(d.repo, ".abcd/config.json", "{\n  \"schema_version\": 1,\n  \"setup_version\": 1,\n  \"build\": {\"dod\": \"sh test.sh\"}\n}\n"); err != nil {
		return "", err
	}
	d.say("   build.dod is `sh test.sh` in .abcd/config.json: the command every lane must pass")

	d.section("An intent with acceptance criteria")
	intent, err := d.intent()
	if err != nil {
		return "", err
	}

	d.section("Its spec: three steps, the third building on the first two")
	spec, err := d.spec(intent)
	if err != nil {
		return "", err
	}

	d.section("implement start: one lane per step, and an integration lane")
	out, err = d.abcdText("implement", "start", spec)
	if err != nil {
		return "", err
	}
	d.show("abcd implement start "+spec, out, func(l string) bool { return !strings.HasPrefix(l, "next:") })
	if m := regexp.MustCompile(`run-\d+`).FindString(out); m != "" {
		d.run = m
	} else {
		return "", errors.New("implement start named no run")
	}

	d.section("The harness's loop, played by tools/demo: a fresh scripted agent per open await")
	d.say("   (in your harness each of these is a fresh agent given the brief; see docs/build-loop.md)")
	if err := d.loop(); err != nil {
		return "", err
	}

	d.section("The record of the run")
	record, err := d.abcdText("implement", "record", "--run", d.run)
	if err != nil {
		return "", err
	}
	d.show("abcd implement record --run "+d.run, record, nil)
	lint, err := d.abcdText("lint")
	if err != nil {
		return "", err
	}
	d.show("abcd lint", lint, nil)

	d.section("Explore it")
	merged, err := d.git(d.repo, "ls-tree", "--name-only", "abcd/"+d.run+"/integration")
	if err != nil {
		return "", err
	}
	d.say("   the integration branch abcd/%s/integration holds: %s", d.run, strings.Join(strings.Fields(merged), " "))
	d.say("\n   cd %s", d.repo)
	d.say("   abcd status                 # the record, the configuration, what to do next")
	d.say("   abcd implement record       # this run's story again")
	d.say("   abcd spec show %s   # the spec, with a Progress line per lane delivered", spec)
	d.say("   git log --oneline --graph --all")
	d.say("\n%s", d.repo)
	return record, nil
}

// project makes the repository: a greeting to be written, and a test runner that runs every test.
func (d *demo) project() error {
	if _, err := d.git(d.repo, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	files := map[string]string{
		"README.md": "# hello\n\nA command that greets people. Run `sh test.sh` to test it.\n",
		"test.sh":   "#!/bin/sh\n# Runs every test under tests/; any failure fails the whole run.\nset -e\nfor t in tests/*.sh; do\n  [ -e \"$t\" ] || continue\n  echo \"== $t\"\n  sh \"$t\"\ndone\necho ok\n",
	}
	for name, body := range files {
		if err := d.write(d.repo, name, body); err != nil {
			return err
		}
	}
	if _, err := d.git(d.repo, "add", "-A"); err != nil {
		return err
	}
	if _, err := d.git(d.repo, "commit", "-q", "-m", "hello: a README and a test runner"); err != nil {
		return err
	}
	d.say("   README.md and test.sh, committed on main")
	return nil
}

var placeholder = regexp.MustCompile(`<!-- fill: (.*?) -->`)

// fill writes what a person would into a record's placeholders; answer picks the text per hint.
func (d *demo) fill(rel string, answer func(hint string) (string, bool)) error {
	p := filepath.Join(d.repo, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	text := placeholder.ReplaceAllStringFunc(string(data), func(m string) string {
		hint := placeholder.FindStringSubmatch(m)[1]
		if s, ok := answer(hint); ok {
			return s
		}
		return m
	})
	return os.WriteFile(p, []byte(text), 0o644)
}

func (d *demo) intent() (string, error) {
	var res struct {
		Record struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		} `json:"record"`
	}
	if err := d.abcdJSON(&res, "intent", "new", "Greet people by name"); err != nil {
		return "", err
	}
	created := res.Record
	d.say("   $ abcd intent new \"Greet people by name\"")
	d.say("     created %s at %s", created.ID, created.Path)
	err := d.fill(created.Path, func(hint string) (string, bool) {
		switch {
		case strings.Contains(hint, "ac-1"):
			return "- ac-1: Given a name, when I run `sh hello NAME`, then it prints Hello, NAME!\n" +
				"- ac-2: Given no name, when I run `sh hello`, then it prints Hello, world!", true
		case strings.Contains(hint, "[ ] question"):
			return "", true
		case strings.Contains(hint, "announcement"):
			return "`hello` greets whoever runs it by name, and the world when no name is given.", true
		case strings.Contains(hint, "left for the audit"):
			return "", true
		}
		return "Written by the person: " + hint + ".", true
	})
	if err != nil {
		return "", err
	}
	d.say("   (the person writes the press release and two criteria:)")
	d.say("     - ac-1: Given a name, when I run `sh hello NAME`, then it prints Hello, NAME!")
	d.say("     - ac-2: Given no name, when I run `sh hello`, then it prints Hello, world!")
	out, err := d.abcdText("intent", "plan", created.ID)
	if err != nil {
		return "", err
	}
	d.show("abcd intent plan "+created.ID, out, func(l string) bool { return !strings.HasPrefix(l, "next:") })
	return created.ID, nil
}

func (d *demo) spec(intent string) (string, error) {
	var list struct {
		Specs []struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		} `json:"records"`
	}
	if err := d.abcdJSON(&list, "spec", "list"); err != nil {
		return "", err
	}
	if len(list.Specs) != 1 {
		return "", fmt.Errorf("intent plan made %d specs", len(list.Specs))
	}
	spec := list.Specs[0]
	steps := "1. Write greet.sh: a greet function that prints Hello, NAME!\n" +
		"2. Write args.sh: a name_from_args function that gives the first argument.\n" +
		"3. (after 1, 2) Write the hello command from greet and name_from_args, with a test of both criteria."
	err := d.fill(spec.Path, func(hint string) (string, bool) {
		switch {
		case strings.Contains(hint, "numbered list"):
			return steps, true
		case strings.Contains(hint, "ac-N"):
			return "- ac-1: step 3's test runs `sh hello Ada`.\n- ac-2: step 3's test runs `sh hello` with no name.", true
		case strings.Contains(hint, "appends"):
			return "", false // the build loop writes the Progress
		}
		return "Written by the person: " + hint + ".", true
	})
	if err != nil {
		return "", err
	}
	d.say("   (the person writes the spec's steps; step 3 names the steps it builds on:)")
	for _, s := range strings.Split(steps, "\n") {
		d.say("     %s", s)
	}
	if _, err := d.git(d.repo, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := d.git(d.repo, "commit", "-q", "-m", "record: the intent and its spec"); err != nil {
		return "", err
	}
	out, err := d.abcdText("intent", "ready", intent)
	if err != nil {
		return "", err
	}
	d.show("abcd intent ready "+intent, out, nil)
	if !strings.Contains(out, ": ready") {
		return "", fmt.Errorf("the intent is not ready:\n%s", out)
	}
	return spec.ID, nil
}

// loop is the harness: step, hand every open await to a scripted agent (those open together at
// once), hand each return back, until the run is finished.
func (d *demo) loop() error {
	handed := map[string]bool{}
	for round := 0; ; round++ {
		if round > 40 {
			return errors.New("the run did not finish within 40 steps")
		}
		out, err := d.abcdText("implement", "step", "--run", d.run)
		if err != nil {
			return err
		}
		v, err := d.status()
		if err != nil {
			return err
		}
		if v.Finished {
			return nil
		}
		var open []await
		for _, a := range v.Awaits {
			if !handed[a.ID] {
				open = append(open, a)
			}
		}
		if len(open) == 0 {
			return fmt.Errorf("the run is not finished and nothing is awaited:\n%s", out)
		}
		d.show("abcd implement step --run "+d.run, out, func(l string) bool {
			return strings.HasPrefix(l, "did:") && !strings.Contains(l, "opened")
		})
		names := make([]string, len(open))
		for i, a := range open {
			names[i] = a.Lane + " " + a.Role
		}
		d.say("   %s open: %s", plural(len(open), "await", "awaits"), strings.Join(names, ", "))
		d.progress("%s", strings.Join(names, ", "))
		// Every await open at once is independent: the agents work side by side.
		notes := make([]string, len(open))
		errs := make([]error, len(open))
		var wg sync.WaitGroup
		for i, a := range open {
			wg.Add(1)
			go func() {
				defer wg.Done()
				notes[i], errs[i] = d.agent(v, a)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		for i, a := range open {
			handed[a.ID] = true
			d.say("   - %s", notes[i])
			out, err := d.receipt(a.Return)
			if err != nil {
				return err
			}
			d.show("abcd implement receipt "+d.short(a.Return), out, func(l string) bool { return strings.HasPrefix(l, "did:") })
		}
	}
}

// receipt hands a return in, again while another hand-in holds the run (exit 3).
func (d *demo) receipt(path string) (string, error) {
	for try := 0; ; try++ {
		cmd := exec.Command(d.abcd, "implement", "receipt", path)
		cmd.Dir, cmd.Env = d.repo, d.env
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 && try < 20 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("abcd implement receipt %s: %w\n%s", path, err, out)
		}
		return string(out), nil
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// agent plays the agent an await asks for and writes its return; it says what it did.
func (d *demo) agent(v runView, a await) (string, error) {
	brief, err := os.ReadFile(a.Brief)
	if err != nil {
		return "", err
	}
	switch a.Role {
	case "implementer":
		return d.implementer(v, a, string(brief))
	case "ruthless-reviewer":
		return d.ruthless(v, a)
	case "security-reviewer":
		return fmt.Sprintf("%s security-reviewer (round %d): APPROVE", a.Lane, a.Round),
			d.write("/", a.Return, "The change reads only its own arguments and writes nothing but standard output; nothing reaches a shell unquoted.\n\n## Verdict\n\nAPPROVE\n")
	case "intent-auditor":
		return d.auditor(v, a)
	}
	return "", fmt.Errorf("no scripted agent for the role %s", a.Role)
}

// The work of each step: the files its implementer writes in the lane's worktree. Step 1's first
// attempt greets an empty name badly; the reviewer finds it and the fix defaults to the world.
var work = map[string][]string{
	"lane-1": {"greet.sh", "# greet prints the greeting for a name.\ngreet() {\n  echo \"Hello, $1!\"\n}\n",
		"tests/greet_test.sh", ". ./greet.sh\n[ \"$(greet Ada)\" = \"Hello, Ada!\" ] || { echo 'greet Ada'; exit 1; }\n"},
	"lane-1-fix": {"greet.sh", "# greet prints the greeting for a name, or for the world when there is none.\ngreet() {\n  echo \"Hello, ${1:-world}!\"\n}\n",
		"tests/greet_test.sh", ". ./greet.sh\n[ \"$(greet Ada)\" = \"Hello, Ada!\" ] || { echo 'greet Ada'; exit 1; }\n[ \"$(greet '')\" = \"Hello, world!\" ] || { echo 'greet with no name'; exit 1; }\n"},
	"lane-2": {"args.sh", "# name_from_args gives the name the command was given: its first argument.\nname_from_args() {\n  echo \"${1:-}\"\n}\n",
		"tests/args_test.sh", ". ./args.sh\n[ \"$(name_from_args Ada Lovelace)\" = \"Ada\" ] || { echo 'first argument'; exit 1; }\n"},
	"lane-3": {"hello", "#!/bin/sh\n# hello greets the person named by its first argument, or the world.\ncd \"$(dirname \"$0\")\" || exit 1\n. ./greet.sh\n. ./args.sh\ngreet \"$(name_from_args \"$@\")\"\n",
		"tests/hello_test.sh", "[ \"$(sh hello Ada)\" = \"Hello, Ada!\" ] || { echo 'ac-1'; exit 1; }\n[ \"$(sh hello)\" = \"Hello, world!\" ] || { echo 'ac-2'; exit 1; }\n"},
}

func (d *demo) implementer(v runView, a await, brief string) (string, error) {
	l := v.lane(a.Lane)
	if l.Worktree == "" || !strings.Contains(brief, l.Worktree) {
		return "", fmt.Errorf("%s: the brief names no worktree for the lane", a.Lane)
	}
	key := a.Lane
	if a.Kind == "fix" {
		key += "-fix"
	}
	files, ok := work[key]
	if !ok {
		return "", fmt.Errorf("no scripted work for %s", key)
	}
	for i := 0; i < len(files); i += 2 {
		if err := d.write(l.Worktree, files[i], files[i+1]); err != nil {
			return "", err
		}
		if _, err := d.git(l.Worktree, "add", files[i]); err != nil {
			return "", err
		}
	}
	msg := "step " + strings.TrimPrefix(a.Lane, "lane-") + ": " + files[0]
	if a.Kind == "fix" {
		msg += ": greet the world when no name is given (review round 1)"
	}
	if _, err := d.git(l.Worktree, "commit", "-q", "-m", msg); err != nil {
		return "", err
	}
	sha, err := d.git(l.Worktree, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	// The definition of done, run for real in the lane's checkout.
	dodOut, err := d.sh(l.Worktree, "sh", "test.sh")
	if err != nil {
		return "", fmt.Errorf("%s: the definition of done failed: %w", a.Lane, err)
	}
	laneDir := filepath.Dir(filepath.Dir(a.Return))
	tag := a.Kind
	if err := d.write(laneDir, tag+"-dod.txt", dodOut); err != nil {
		return "", err
	}
	if err := d.write(laneDir, tag+"-report.md", "Wrote "+files[0]+" and its test; `sh test.sh` passes.\n"); err != nil {
		return "", err
	}
	receipt, _ := json.MarshalIndent(map[string]any{
		"schema_version": 1, "run": d.run, "lane": a.Lane, "branch": l.Branch, "commits": []string{sha},
		"dod":    map[string]any{"command": "sh test.sh", "exit_code": 0, "output": tag + "-dod.txt"},
		"report": tag + "-report.md", "model": "scripted-demo-agent",
	}, "", "  ")
	if err := d.write("/", a.Return, string(receipt)+"\n"); err != nil {
		return "", err
	}
	what := "implementer"
	if a.Kind == "fix" {
		what = "fix implementer"
	}
	return fmt.Sprintf("%s %s: committed %s in its worktree %s (%s); `sh test.sh` passed", a.Lane, what, files[0], d.short(l.Worktree), sha[:7]), nil
}

// ruthless reviews for real what it can check in a minute: greet with no name.
func (d *demo) ruthless(v runView, a await) (string, error) {
	l := v.lane(a.Lane)
	finding, verdict := "", "SHIP"
	if l.Worktree != "" {
		if _, err := os.Stat(filepath.Join(l.Worktree, "greet.sh")); err == nil {
			out, err := d.sh(l.Worktree, "sh", "-c", ". ./greet.sh; greet ''")
			if err != nil {
				return "", err
			}
			if strings.TrimSpace(out) != "Hello, world!" {
				verdict = "FIX FIRST"
				finding = "### F1. An empty name greets nobody\n- Location: greet.sh:3\n- Severity: major\n- What: `greet ''` prints `" +
					strings.TrimSpace(out) + "`; ac-2 wants Hello, world!\n- Fix: default the name to world, and test it.\n"
			}
		}
	}
	body := "Read the diff and ran the lane's tests.\n\n## Verdict\n\n" + verdict + "\n"
	if finding != "" {
		body += "\n" + finding
	}
	note := fmt.Sprintf("%s ruthless-reviewer (round %d): %s", a.Lane, a.Round, verdict)
	if finding != "" {
		note += " (an empty name greets nobody)"
	}
	return note, d.write("/", a.Return, body)
}

// auditor checks each criterion on the integrated result, in the integration lane's checkout.
func (d *demo) auditor(v runView, a await) (string, error) {
	l := v.lane(a.Lane)
	if l.Worktree == "" {
		return "", errors.New("the integration lane has no worktree to audit")
	}
	check := func(args, want string) (string, string) {
		out, err := d.sh(l.Worktree, "sh", "-c", "sh hello "+args)
		got := strings.TrimSpace(out)
		if err == nil && got == want {
			return "MET", fmt.Sprintf("`sh hello %s` prints %s; tests/hello_test.sh checks it", args, got)
		}
		return "NOT_MET", fmt.Sprintf("`sh hello %s` printed %q", args, got)
	}
	v1, e1 := check("Ada", "Hello, Ada!")
	v2, e2 := check("", "Hello, world!")
	concerns := func(v string) string {
		if v == "MET" {
			return ""
		}
		return "the output differs from the criterion"
	}
	ret, _ := json.MarshalIndent(map[string]any{"schema_version": 1, "intent": v.Intent, "verdicts": []map[string]any{
		{"criterion": "ac-1", "verdict": v1, "evidence": e1, "concerns": concerns(v1)},
		{"criterion": "ac-2", "verdict": v2, "evidence": e2, "concerns": concerns(v2)},
	}, "summary": "Ran the integrated hello against both criteria."}, "", "  ")
	return fmt.Sprintf("integration intent-auditor: ac-1 %s, ac-2 %s (ran `sh hello` on the merged branch)", v1, v2), d.write("/", a.Return, string(ret)+"\n")
}
