// Package canary proves that no credential abcd holds lands in anything it keeps or prints: hostile
// servers (hostile_test.go) echo two canary keys in every way they can, abcd's built binary runs
// every verb that calls a route or shows what one said, through the CLI (text and --json) and MCP,
// and every output and every file under .abcd and the machine folder is searched for either key in
// every encoding a server might use.
package canary

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The canaries: a provider's key in an environment variable (a model id abcd accepts, so a server
// can report it as its model), another provider's key in a key file, which RepoPrompt echoes, and a
// runner's credential, which the runner's CLI echoes beside the others.
const (
	envKey    = "sk-proj-CaNaRy7Qx/+9Zk_3vLw-8Tn2Hp5Rb"
	fileKey   = "fk-Z9y8X7w6V5u4T3s2R1q0-file/canary+Key"
	runnerKey = "sk-ant-api03-RuNnErCaNaRy_0123456789-abcdef"
)

const (
	intentID   = "itd-2611300000000001"
	specID     = "spc-2611300000000002"
	intentFile = ".abcd/development/intents/planned/itd-2611300000000001-canary.md"
	specFile   = ".abcd/development/specs/open/spc-2611300000000002-canary.md"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "abcd-canary-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins, err := abcdtest.Build(dir, "", "github.com/abcd-dev/abcd/frontdoors/cmd/abcd")
	if err != nil {
		fmt.Fprintln(os.Stderr, errors.Join(err, os.RemoveAll(dir)))
		os.Exit(1)
	}
	binary = bins[0]
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "removing the test binaries:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// spellings is every spelling of key the search looks for, by name: the test's own list, written
// apart from the scrubber it checks. A spelling is found when any 16 bytes of it stand in a text.
func spellings(key string) map[string]string {
	raw := []byte(key)
	out := map[string]string{"as is": key, "query-escaped": url.QueryEscape(key), "path-escaped": url.PathEscape(key),
		"hex": fmt.Sprintf("%x", raw), "HEX": fmt.Sprintf("%X", raw)}
	if i := strings.LastIndexAny(key[:len(key)/2], "-_"); i >= 0 {
		out["without its prefix"] = key[i+1:]
	}
	j, _ := json.Marshal(key)
	out["JSON-escaped"] = string(j[1 : len(j)-1])
	out["JSON-escaped, slashes too"] = strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`)
	encs := map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding, "std unpadded": base64.RawStdEncoding, "url unpadded": base64.RawURLEncoding}
	for name, enc := range encs {
		out["base64 "+name] = enc.EncodeToString(raw)
		// Inside a longer text, at each alignment: what lies between the first and last four
		// characters depends on the key alone.
		for pad := 1; pad <= 2; pad++ {
			s := enc.EncodeToString(append(bytes.Repeat([]byte{0}, pad), append(raw, 0, 0)...))
			out[fmt.Sprintf("base64 %s, %d bytes before it", name, pad)] = s[4 : len(s)-4]
		}
	}
	return out
}

// finder finds any spelling of either canary in a text.
type finder struct {
	windows map[string]string // 16 bytes of a spelling -> its name
}

const findWindow = 16

func newFinder(keys ...string) *finder {
	f := &finder{windows: map[string]string{}}
	for _, k := range keys {
		sp := spellings(k)
		names := make([]string, 0, len(sp))
		for name := range sp {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			s := sp[name]
			s = strings.ToLower(s) // a key whose case was folded is found too
			for i := 0; i+findWindow <= len(s); i++ {
				if _, taken := f.windows[s[i:i+findWindow]]; !taken {
					f.windows[s[i:i+findWindow]] = name
				}
			}
		}
	}
	return f
}

func (f *finder) find(text string) (string, bool) {
	text = strings.ToLower(text)
	for i := 0; i+findWindow <= len(text); i++ {
		if name, ok := f.windows[text[i:i+findWindow]]; ok {
			return name, true
		}
	}
	return "", false
}

// scenario is one repository and machine folder, and everything abcd printed there.
type scenario struct {
	t       *testing.T
	root    string
	home    string
	env     []string
	outputs map[string]string // what each command printed, by "verb (door, stream)"
	verbs   map[string]bool
}

func newScenario(t *testing.T, prov *provider, rp *repoPrompt) *scenario {
	dir := t.TempDir()
	s := &scenario{t: t, root: filepath.Join(dir, "repo"), home: filepath.Join(dir, "home"), outputs: map[string]string{}, verbs: map[string]bool{}}
	assert.NilError(t, os.MkdirAll(s.root, 0o755))
	assert.NilError(t, os.MkdirAll(s.home, 0o700))
	keyFile := filepath.Join(s.home, "filed.key")
	assert.NilError(t, os.WriteFile(keyFile, []byte(fileKey+"\n"), 0o600))
	s.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "ABCD_HOME=" + s.home, "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1", "HOSTILE_KEY=" + envKey, "RUNNER_KEY=" + runnerKey,
		"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com"}
	s.git("init", "-q", "-b", "main")
	s.git("commit", "-q", "--allow-empty", "-m", "base")
	s.cli("ahoy", "install", "--yes")
	s.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"build":{"dod":"true"},"oracle":{"review":"rp"}}`)
	s.write(intentFile, "---\nid: "+intentID+"\ntype: intent\ntitle: \"Canary\"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n"+
		"## Press Release\n\nNo key leaks.\n\n## Acceptance Criteria\n\n- ac-1: Given a hostile server, when it echoes a key, then abcd keeps none.\n\n"+
		"## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n")
	s.write(specFile, "---\nid: "+specID+"\ntype: spec\ntitle: \"Canary\"\nlifecycle: open\nimplements: "+intentID+
		"\ncreated: 2026-11-30\n---\n\n## Steps\n\n1. Make the change.\n\n## Progress\n\n")
	s.git("add", "-A")
	s.git("commit", "-q", "-m", "record")
	// The machine: RepoPrompt, and a provider whose key is in a file (the other is connected by a
	// verb, below).
	machine := map[string]any{"schema_version": 1, "oracle": map[string]any{"rp": map[string]any{"url": rp.URL()},
		"api": map[string]any{"filed": map[string]any{"base_url": prov.URL + "/v1", "models": []any{"m-2"}, "key_file": keyFile}}}}
	data, _ := json.Marshal(machine)
	assert.NilError(t, os.WriteFile(filepath.Join(s.home, "config.json"), data, 0o600))
	return s
}

func (s *scenario) path(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

func (s *scenario) write(rel, body string) {
	s.t.Helper()
	assert.NilError(s.t, os.MkdirAll(filepath.Dir(s.path(rel)), 0o755))
	assert.NilError(s.t, os.WriteFile(s.path(rel), []byte(body), 0o644))
}

func (s *scenario) git(args ...string) string {
	s.t.Helper()
	return s.gitIn(s.root, args...)
}

func (s *scenario) gitIn(dir string, args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, s.env
	out, err := cmd.CombinedOutput()
	assert.NilError(s.t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// cli runs abcd in text mode, keeping what it printed; it asserts nothing about the exit code.
func (s *scenario) cli(args ...string) string {
	out, _, _ := s.run(false, args...)
	return out
}

// json runs abcd --json and decodes its one document.
func (s *scenario) json(args ...string) map[string]any {
	out, _, _ := s.run(true, args...)
	var doc map[string]any
	_ = json.Unmarshal([]byte(out), &doc)
	return doc
}

func (s *scenario) run(asJSON bool, args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	door := "cli"
	if asJSON {
		args, door = append(args, "--json"), "cli --json"
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = s.root, s.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	verb := verbOf(args)
	s.verbs[verb] = true
	key := fmt.Sprintf("abcd %s (%s)", strings.Join(args, " "), door)
	s.outputs[key+" stdout"] += out.String()
	s.outputs[key+" stderr"] += errOut.String()
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func verbOf(args []string) string {
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "/.=") || strings.HasPrefix(a, "itd-") || strings.HasPrefix(a, "spc-") || len(words) == 2 {
			break
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// sendToRunner points the machine's agent at runner name (oracle.roles.<agent>.runner), writing the
// runner's entry as ahoy connect would where its verification failed and left none.
func (s *scenario) sendToRunner(agent, name, executable string) {
	p := filepath.Join(s.home, "config.json")
	data, err := os.ReadFile(p)
	assert.NilError(s.t, err)
	var m map[string]any
	assert.NilError(s.t, json.Unmarshal(data, &m))
	oracle, _ := m["oracle"].(map[string]any)
	runners, _ := oracle["runner"].(map[string]any)
	if runners == nil {
		runners = map[string]any{}
		oracle["runner"] = runners
	}
	if runners[name] == nil {
		runners[name] = map[string]any{"cli": "claude", "executable": executable, "credential_env": []any{"RUNNER_KEY"}}
	}
	roles, _ := oracle["roles"].(map[string]any)
	if roles == nil {
		roles = map[string]any{}
		oracle["roles"] = roles
	}
	roles[agent] = map[string]any{"runner": name}
	data, err = json.Marshal(m)
	assert.NilError(s.t, err)
	assert.NilError(s.t, os.WriteFile(p, data, 0o600))
}

// runOf is the run id a step's result names.
func runOf(doc map[string]any) string {
	run, _ := doc["run"].(map[string]any)
	id, _ := run["run"].(string)
	return id
}

// openAwaits is the open awaits of a run, from implement status.
func (s *scenario) openAwaits(run string) []map[string]any {
	doc := s.json("implement", "status", "--run", run)
	runs, _ := doc["runs"].([]any)
	if len(runs) != 1 {
		return nil
	}
	var out []map[string]any
	aws, _ := runs[0].(map[string]any)["awaits"].([]any)
	for _, a := range aws {
		out = append(out, a.(map[string]any))
	}
	return out
}

func (s *scenario) finished(run string) bool {
	doc := s.json("implement", "status", "--run", run)
	runs, _ := doc["runs"].([]any)
	return len(runs) == 1 && runs[0].(map[string]any)["finished"] == true
}

// playHost writes the host's return for every open await of run (the implementer's receipt, a
// passing review, the audit) and hands each in, until the run finishes or nothing is open.
func (s *scenario) playHost(run string) {
	for range 8 {
		aws := s.openAwaits(run)
		if len(aws) == 0 || s.finished(run) {
			return
		}
		for _, a := range aws {
			ret, _ := a["return"].(string)
			switch a["role"] {
			case "implementer":
				s.implement(run, a)
			case "intent-auditor":
				body, _ := json.Marshal(map[string]any{"schema_version": 1, "intent": intentID, "summary": "Audited by the host.",
					"verdicts": []any{map[string]any{"criterion": "ac-1", "verdict": "MET", "evidence": "the canary test", "concerns": ""}}})
				assert.NilError(s.t, os.WriteFile(ret, body, 0o644))
			case "security-reviewer":
				assert.NilError(s.t, os.WriteFile(ret, []byte("# Review\n\nRead it.\n\n## Verdict\n\nAPPROVE\n\nNo findings.\n"), 0o644))
			default:
				assert.NilError(s.t, os.WriteFile(ret, []byte("# Review\n\nRead it.\n\n## Verdict\n\nSHIP\n\nNo findings.\n"), 0o644))
			}
			s.cli("implement", "receipt", ret)
		}
	}
}

// implement commits the lane's work in its worktree and writes the implementer's receipt.
func (s *scenario) implement(run string, a map[string]any) {
	doc := s.json("implement", "status", "--run", run)
	lanes, _ := doc["runs"].([]any)[0].(map[string]any)["lanes"].([]any)
	var wt, branch, laneID string
	for _, l := range lanes {
		l := l.(map[string]any)
		if l["id"] == a["lane"] {
			wt, _ = l["worktree"].(string)
			branch, _ = l["branch"].(string)
			laneID, _ = l["id"].(string)
		}
	}
	assert.Assert(s.t, wt != "", "the lane has a worktree")
	assert.NilError(s.t, os.WriteFile(filepath.Join(wt, "work.txt"), []byte("the work\n"), 0o644))
	s.gitIn(wt, "add", "work.txt")
	s.gitIn(wt, "commit", "-q", "-m", "the work")
	sha := s.gitIn(wt, "rev-parse", "HEAD")
	laneDir := filepath.Join(s.root, ".abcd/.work.local/run", run, laneID)
	assert.NilError(s.t, os.WriteFile(filepath.Join(laneDir, "dod.txt"), []byte("all green\n"), 0o644))
	assert.NilError(s.t, os.WriteFile(filepath.Join(laneDir, "report.md"), []byte("Did the step.\n"), 0o644))
	receipt, _ := json.Marshal(map[string]any{"schema_version": 1, "run": run, "lane": laneID, "branch": branch, "commits": []string{sha},
		"dod": map[string]any{"command": "true", "exit_code": 0, "output": "dod.txt"}, "report": "report.md", "model": "canary-agent"})
	assert.NilError(s.t, os.WriteFile(a["return"].(string), receipt, 0o644))
}

// mcp runs one `abcd mcp serve` session over stdio: each call in turn, keeping every line it wrote.
func (s *scenario) mcp(calls ...string) {
	s.t.Helper()
	cmd := exec.Command(binary, "mcp", "serve")
	cmd.Dir, cmd.Env = s.root, s.env
	in, err := cmd.StdinPipe()
	assert.NilError(s.t, err)
	out, err := cmd.StdoutPipe()
	assert.NilError(s.t, err)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	assert.NilError(s.t, cmd.Start())
	replies := bufio.NewReader(out)
	var got strings.Builder
	exchange := func(id int, msg string) {
		_, err := fmt.Fprintln(in, msg)
		assert.NilError(s.t, err)
		if id == 0 {
			return
		}
		for {
			line, err := replies.ReadString('\n')
			got.WriteString(line)
			if err != nil || strings.Contains(line, fmt.Sprintf(`"id":%d`, id)) {
				return
			}
		}
	}
	exchange(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"canary","version":"1"}}}`)
	exchange(0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, call := range calls {
		exchange(i+2, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, call))
		var c struct{ Name string }
		_ = json.Unmarshal([]byte(call), &c)
		s.verbs[strings.ReplaceAll(c.Name, "_", " ")] = true
	}
	assert.Check(s.t, in.Close())
	_, _ = io.Copy(&got, replies)
	_ = cmd.Wait()
	s.outputs["abcd mcp serve (mcp, stdout)"] += got.String()
	s.outputs["abcd mcp serve (mcp, stderr)"] += errOut.String()
}

// search looks for either canary in every output and every file under .abcd and the machine
// folder; it returns how many files it read.
func (s *scenario) search(f *finder) int {
	s.t.Helper()
	for name, text := range s.outputs {
		if spelling, ok := f.find(text); ok {
			s.t.Errorf("%s carries a key (%s):\n%s", name, spelling, text)
		}
	}
	files := 0
	for _, dir := range []string{s.path(".abcd"), s.home} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || p == filepath.Join(s.home, "filed.key") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			if spelling, ok := f.find(string(data)); ok {
				rel, _ := filepath.Rel(filepath.Dir(s.root), p)
				s.t.Errorf("%s carries a key (%s):\n%s", rel, spelling, data)
			}
			return nil
		})
		assert.NilError(s.t, err)
	}
	return files
}

// TestNoKeyInAnythingAbcdKeepsOrPrints runs, for each way the hostile provider and RepoPrompt echo a
// key, every verb that calls a route or shows what one said: connecting the provider and the
// runner, a review (one reviewer through the provider, the other through RepoPrompt), a review on
// the runner, an intent audit through the
// provider (its Audit Notes go into a committed file), a spec run whose reviews and integration
// audit take the routes to the end, and the verbs that show runs; through the CLI, as text and
// --json, and through MCP. No output and no file under .abcd or the machine folder holds either key
// in any spelling.
func TestNoKeyInAnythingAbcdKeepsOrPrints(t *testing.T) {
	f := newFinder(envKey, fileKey, runnerKey)
	scenarios := max(len(providerModes), len(rpModes))
	if testing.Short() {
		scenarios = 2
	}
	// The scenarios run side by side, each with its own servers, repository and machine folder;
	// mu guards what they add up.
	var mu sync.Mutex
	verbs, files, outputs := map[string]bool{}, 0, 0
	answered := map[string]int{}
	t.Cleanup(func() {
		names := make([]string, 0, len(verbs))
		for v := range verbs {
			names = append(names, v)
		}
		sort.Strings(names)
		t.Logf("%d scenarios (provider modes %s; RepoPrompt modes %s): %d verbs (%s) through the CLI as text and --json and through MCP; %d outputs and %d files searched for 3 keys in %d spellings each; answers placed by route: %v",
			scenarios, strings.Join(providerModes, ", "), strings.Join(rpModes, ", "), len(names), strings.Join(names, ", "), outputs, files, len(spellings(envKey)), answered)
	})
	for i := range scenarios {
		pm, rm := providerModes[i%len(providerModes)], rpModes[i%len(rpModes)]
		// The runner's CLI is written before the scenarios start processes side by side: a program
		// written while a process is being started can be held open in that child and refuse to
		// start (ETXTBSY).
		cli := hostileRunner(t, t.TempDir(), i%2 == 1, claude.Dialect{}.Flags(), runnerKey, envKey, fileKey)
		t.Run(pm+"+"+rm, func(t *testing.T) {
			t.Parallel()
			prov := newProvider(t, envKey, intentID)
			rp := newRepoPrompt(t, fileKey)
			prov.set(pm)
			rp.set(rm)
			s := newScenario(t, prov, rp)
			route := []string{"--route", "ruthless-reviewer=economy@hostile", "--route", "intent-auditor=frontier@hostile"}

			// Connecting: the verification call is the first a provider answers.
			connect := []string{"ahoy", "connect", "hostile", "--base-url", prov.URL + "/v1", "--model", "m-1", "--tier", "economy=m-1", "--tier", "frontier=m-1", "--key-env", "HOSTILE_KEY"}
			doc := s.json(connect...)
			s.cli(append([]string{"ahoy", "connect", "hostile-text"}, connect[3:]...)...)
			if doc["name"] != "hostile" {
				// The verification failed, as this mode makes it: the provider is configured by hand
				// so the routes are still taken.
				var m map[string]any
				data, err := os.ReadFile(filepath.Join(s.home, "config.json"))
				assert.NilError(t, err)
				assert.NilError(t, json.Unmarshal(data, &m))
				m["oracle"].(map[string]any)["api"].(map[string]any)["hostile"] = map[string]any{"base_url": prov.URL + "/v1", "models": []any{"m-1"},
					"tiers": map[string]any{"economy": "m-1", "frontier": "m-1"}, "key_env": "HOSTILE_KEY"}
				data, _ = json.Marshal(m)
				assert.NilError(t, os.WriteFile(filepath.Join(s.home, "config.json"), data, 0o600))
			}
			s.cli("status")
			s.json("status")

			// A runner: its CLI's preflight and proving call echo every key abcd holds.
			s.json("ahoy", "connect", "--runner", "hostile-cc", "--cli", "claude", "--executable", cli, "--credential-env", "RUNNER_KEY")
			s.cli("ahoy", "connect", "--runner", "hostile-cc2", "--cli", "claude", "--executable", cli, "--credential-env", "RUNNER_KEY")

			// A review on a branch, and the intent's audit of it.
			s.git("checkout", "-q", "-b", "feature")
			s.write("feature.txt", "a feature\n")
			s.git("add", "feature.txt")
			s.git("commit", "-q", "-m", "feature")
			review := runOf(s.json(append([]string{"review", "--base", "main"}, route[:2]...)...))
			assert.Assert(t, review != "", "the review started: %v", s.outputs)
			s.cli("implement", "step", "--run", review)
			audit := runOf(s.json(append([]string{"intent", "audit", intentID, "--base", "main"}, route[2:]...)...))
			assert.Assert(t, audit != "")
			for _, run := range []string{review, audit} {
				s.cli("implement", "status", "--run", run)
				s.cli("implement", "record", "--run", run)
				rec := s.json("implement", "record", "--run", run)
				for _, v := range asList(rec["verdicts"]) {
					if ran, _ := v.(map[string]any)["ran"].(string); ran != "host" {
						mu.Lock()
						answered[ran]++
						mu.Unlock()
					}
				}
				s.playHost(run)
			}
			s.git("checkout", "-q", "main")
			// The audit wrote the intent's Audit Notes: implement start refuses a record its base
			// does not hold as it stands.
			s.git("commit", "-q", "--allow-empty", "-am", "the audit's notes")

			// A spec run: its reviews and its integration's audit take the routes.
			spec := runOf(s.json("implement", "start", specID))
			assert.Assert(t, spec != "")
			s.cli(append([]string{"implement", "step", "--run", spec}, route...)...)
			s.playHost(spec)
			s.cli("implement", "record", "--run", spec)
			s.json("implement", "record", "--run", spec)
			s.cli("implement", "status")
			s.json("implement", "status")
			s.cli("implement", "abandon", "--run", review)

			// MCP: the same verbs through the other door, on the branch again (the run's record kept).
			s.git("commit", "-q", "--allow-empty", "-am", "the run's notes")
			s.git("checkout", "-q", "feature")
			s.mcp(
				`{"name":"review","arguments":{"base":"main","routes":["ruthless-reviewer=economy@hostile"]}}`,
				`{"name":"implement_status","arguments":{}}`,
				`{"name":"implement_record","arguments":{"run":"`+audit+`"}}`,
				`{"name":"implement_record","arguments":{"run":"`+spec+`"}}`,
				`{"name":"status","arguments":{}}`,
				`{"name":"ahoy_connect","arguments":{"name":"hostile-mcp","base_url":"`+prov.URL+`/v1","model":"m-3","key_env":"HOSTILE_KEY"}}`,
				`{"name":"lint","arguments":{}}`,
			)
			// A review on the runner: its CLI names the key as its session and model and echoes every
			// key in its answer (or in its failure); what abcd records and prints of the step is
			// scrubbed, as of every other route.
			s.sendToRunner("ruthless-reviewer", "hostile-cc", cli)
			onRunner := runOf(s.json("review", "--base", "main", "--role", "ruthless-reviewer"))
			assert.Assert(t, onRunner != "", "the runner's review started: %v", s.outputs)
			s.cli("implement", "status", "--run", onRunner)
			s.cli("implement", "record", "--run", onRunner)
			tried := 0
			for _, f := range asList(s.json("implement", "record", "--run", onRunner)["fallbacks"]) {
				if f := f.(map[string]any); f["asked"] == "hostile-cc" && f["runner"] != nil {
					tried++
				}
			}
			assert.Check(t, is.Equal(tried, 1), "the runner took the review and fell back with its receipt: %v", s.json("implement", "record", "--run", onRunner)["fallbacks"])
			s.mcp(`{"name":"implement_record","arguments":{"run":"` + onRunner + `"}}`)

			s.cli("lint")
			s.json("lint")

			if os.Getenv("CANARY_DUMP") != "" {
				for k, v := range s.outputs {
					t.Logf("%s:\n%s", k, v)
				}
			}
			searched := s.search(f)
			mu.Lock()
			defer mu.Unlock()
			files += searched
			outputs += len(s.outputs)
			for v := range s.verbs {
				verbs[v] = true
			}
		})
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
