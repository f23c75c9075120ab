package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
	"github.com/abcd-dev/abcd/frontdoors/cli"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
	"github.com/abcd-dev/abcd/frontdoors/mcp"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/mcpwire"
	"github.com/abcd-dev/abcd/ports/verb"
)

// binary is abcd built once for the end-to-end tests, as the Makefile builds it.
var binary string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) (code int) {
	dir, err := os.MkdirTemp("", "abcd-mcp-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, "removing the test binaries:", err)
			code = 1
		}
	}()
	// abcd and, beside it, the helper that holds its history store; built as the CLI's tests build
	// them, so the two packages share one link.
	bins, err := abcdtest.Build(dir, "-X main.version=9.9.9 -X main.commit=testcommit", "../cmd/abcd", "../cmd/abcd-history")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binary = bins[0]
	return m.Run()
}

// world is a temporary machine: a repository, an ABCD_HOME, a HOME and a folder outside both that no
// call may touch. A state is built once and restored byte for byte at the same paths before each
// run, so the CLI and the server meet the same repository.
type world struct {
	t                           *testing.T
	base, repo, home, dotHome   string
	outside, tpl, tplRepo, tplH string
	// extra are input values that reach what this state holds (its runs, a receipt's path), for
	// SamplesFor.
	extra map[string][]any
}

// The repository states the tests run in.
const (
	statePlain     = "plain"     // a folder, not a git repository
	stateGit       = "git"       // a fresh git repository
	stateInstalled = "installed" // after abcd ahoy install --yes
	stateRecord    = "record"    // installed, with an intent, an issue, a decision and a routing file
	statePlanned   = "planned"   // record, with the intent planned and its spec open
	stateBuilt     = "built"     // planned, with the spec closed
	stateLoop      = "loop"      // planned and filled in, committed, with an implement run and a review run, one reviewer's return written
	stateMerged    = "merged"    // record, with what two branches' merge can leave: the issue in both its folders, a second issue under its id
)

var allStates = []string{statePlain, stateGit, stateInstalled, stateRecord, statePlanned, stateBuilt, stateLoop, stateMerged}

func newWorld(t *testing.T, state string) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	assert.NilError(t, err)
	w := &world{t: t, base: base, repo: filepath.Join(base, "repo"), home: filepath.Join(base, "abcd-home"),
		dotHome: filepath.Join(base, "home"), outside: filepath.Join(base, "outside"), tpl: filepath.Join(base, "tpl")}
	w.tplRepo, w.tplH = filepath.Join(w.tpl, "repo"), filepath.Join(w.tpl, "abcd-home")
	for _, d := range []string{w.repo, w.dotHome, w.outside} {
		assert.NilError(t, os.MkdirAll(d, 0o755))
	}
	assert.NilError(t, os.Mkdir(w.home, 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(w.outside, "precious.txt"), []byte("do not touch\n"), 0o644))
	if state != statePlain {
		w.sh("git", "init", "-q")
	}
	if state != statePlain && state != stateGit {
		w.abcd(0, "ahoy", "install", "--yes")
	}
	if state == stateRecord || state == statePlanned || state == stateBuilt || state == stateLoop || state == stateMerged {
		w.abcd(0, "intent", "new", "First intent")
		w.abcd(0, "capture", "Something noticed", "--severity", "major")
		w.abcd(0, "decision", "new", "A ruling")
		assert.NilError(t, os.WriteFile(filepath.Join(w.home, "oracle-routing.json"),
			[]byte(`{"schema_version":1,"agents":{"security-reviewer":{"tier":"economy"}}}`+"\n"), 0o600))
	}
	if state == statePlanned || state == stateBuilt || state == stateLoop {
		w.abcd(0, "intent", "plan", "first")
	}
	w.extra = map[string][]any{"base": {"HEAD~1"}}
	if state == stateLoop {
		w.buildLoop()
	}
	if state == stateBuilt {
		w.abcd(0, "spec", "close", "first")
	}
	if state == stateMerged {
		w.merged()
	}
	assert.NilError(t, copyTree(w.repo, w.tplRepo))
	assert.NilError(t, copyTree(w.home, w.tplH))
	return w
}

var placeholder = regexp.MustCompile(`<!-- fill: (.*?) -->`)

// buildLoop fills in the record's placeholders the way a person would, commits, starts an
// implement run and a review run, and writes the ruthless reviewer's return, so every loop verb has
// something to act on.
func (w *world) buildLoop() {
	w.t.Helper()
	err := filepath.WalkDir(filepath.Join(w.repo, ".abcd", "development"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		filled := placeholder.ReplaceAllStringFunc(string(data), func(m string) string {
			hint := placeholder.FindStringSubmatch(m)[1]
			switch {
			case strings.Contains(hint, "numbered list"):
				return "1. Write the greeting.\n2. Test the greeting."
			case strings.Contains(hint, "ac-1:") || strings.Contains(hint, "ac-N"):
				return "- ac-1: Given a person, when they run hello, then it greets them."
			case strings.Contains(hint, "[ ] question"):
				return ""
			}
			return "Filled in for the test."
		})
		return os.WriteFile(p, []byte(filled), 0o644)
	})
	assert.NilError(w.t, err)
	w.sh("git", "add", "-A")
	w.sh("git", "commit", "-q", "-m", "the record")
	assert.NilError(w.t, os.WriteFile(filepath.Join(w.repo, "hello.txt"), []byte("hello\n"), 0o644))
	w.sh("git", "add", "-A")
	w.sh("git", "commit", "-q", "-m", "hello")
	var started, reviewing struct {
		Run struct {
			Run    string `json:"run"`
			Awaits []struct {
				Role   string `json:"role"`
				Return string `json:"return"`
			} `json:"awaits"`
		} `json:"run"`
	}
	assert.NilError(w.t, json.Unmarshal([]byte(w.abcd(0, "implement", "start", "first", "--json").stdout), &started))
	assert.NilError(w.t, json.Unmarshal([]byte(w.abcd(0, "review", "--base", "HEAD~1", "--json").stdout), &reviewing))
	var ret string
	for _, a := range reviewing.Run.Awaits {
		if a.Role == "ruthless-reviewer" {
			ret = a.Return
		}
	}
	assert.Assert(w.t, ret != "", "the review run awaits the ruthless reviewer")
	if filepath.IsAbs(ret) {
		// Runs name their paths absolutely, for agents in any folder; the samples use the relative form.
		rel, err := filepath.Rel(w.repo, ret)
		assert.NilError(w.t, err)
		ret = filepath.ToSlash(rel)
	}
	assert.NilError(w.t, os.WriteFile(filepath.Join(w.repo, ret), []byte("## Verdict\n\nSHIP\n\nNothing to fix.\n"), 0o644))
	w.extra["run"] = []any{started.Run.Run, reviewing.Run.Run}
	w.extra["path"] = []any{ret}

	// A harness session of this repository, captured: history has something to list, show and find.
	projects := filepath.Join(w.dotHome, ".claude", "projects", strings.ReplaceAll(w.repo, "/", "-"))
	assert.NilError(w.t, os.MkdirAll(projects, 0o700))
	line, err := json.Marshal(map[string]any{"type": "user", "sessionId": "hist-0001", "cwd": w.repo, "timestamp": "2026-11-30T00:00:00Z",
		"message": map[string]any{"role": "user", "content": "write the greeting for " + started.Run.Run}})
	assert.NilError(w.t, err)
	assert.NilError(w.t, os.WriteFile(filepath.Join(projects, "hist-0001.jsonl"), append(line, '\n'), 0o600))
	w.abcd(0, "history", "capture", "--all")
	w.extra["session"] = []any{"hist-0001"}
	w.extra["query"] = []any{"greeting"}
}

// merged leaves the record as two branches' merge can: an issue a move left in both its folders, and
// a second issue another clone made under the same id (mergedID, so samples can name them).
func (w *world) merged() {
	w.t.Helper()
	created := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	open := record.RenderIssue(record.NewIssue(mergedID, "Moved twice", "Closed on one branch.", "minor", "abcd capture", nil, created))
	closed, err := record.SetLifecycle(open, "closed")
	assert.NilError(w.t, err)
	for p, data := range map[string][]byte{
		".abcd/work/issues/open/" + record.FileName(mergedID, "moved-twice"):   open,
		".abcd/work/issues/closed/" + record.FileName(mergedID, "moved-twice"): closed,
		mergedTwin: record.RenderIssue(record.NewIssue(mergedID, "Twin of it", "Another thing.", "minor", "abcd capture", nil, created)),
	} {
		assert.NilError(w.t, os.WriteFile(filepath.Join(w.repo, p), data, 0o644))
	}
	w.extra["ref"] = []any{mergedID}
}

// mergedID is the id the merged state's records share; mergedTwin the second record under it,
// which the samples name.
const (
	mergedID   = mcp.MergedID
	mergedTwin = mcp.MergedTwin
)

// reset restores the state the world was built in.
func (w *world) reset() {
	w.t.Helper()
	for _, d := range []string{w.repo, w.home} {
		assert.NilError(w.t, os.RemoveAll(d))
	}
	assert.NilError(w.t, copyTree(w.tplRepo, w.repo))
	assert.NilError(w.t, copyTree(w.tplH, w.home))
}

func (w *world) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.dotHome, "ABCD_HOME=" + w.home, "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=abcd e2e", "GIT_AUTHOR_EMAIL=e2e@abcd.invalid", "GIT_COMMITTER_NAME=abcd e2e", "GIT_COMMITTER_EMAIL=e2e@abcd.invalid",
		"GIT_AUTHOR_DATE=2026-11-30T00:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T00:00:00Z"}
}

func (w *world) sh(name string, args ...string) {
	w.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = w.repo, w.env()
	out, err := cmd.CombinedOutput()
	assert.NilError(w.t, err, "%s %v: %s", name, args, out)
}

type runResult struct {
	code           int
	stdout, stderr string
}

// abcd runs the binary in the repository; want < 0 accepts any exit code.
func (w *world) abcd(want int, args ...string) runResult {
	w.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = w.repo, w.env()
	cmd.Stdin = strings.NewReader("")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		assert.NilError(w.t, err)
	}
	if want >= 0 {
		assert.Equal(w.t, code, want, "abcd %v\nstdout: %s\nstderr: %s", args, out.String(), errOut.String())
	}
	return runResult{code, out.String(), errOut.String()}
}

// snapshot is every path under the world with its kind, mode and content; the templates are left
// out.
func (w *world) snapshot() map[string]string {
	w.t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(w.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == w.tpl {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(w.base, p)
		// git's journal of ref moves and its stat cache change when git merely looks; the refs and
		// objects they describe are compared.
		if rel == filepath.Join("repo", ".git", "logs") {
			return filepath.SkipDir
		}
		if rel == filepath.Join("repo", ".git", "index") || (filepath.Base(rel) == "index" && filepath.Dir(filepath.Dir(rel)) == filepath.Join("repo", ".git", "worktrees")) {
			return nil // each worktree's stat cache too
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		entry := info.Mode().String()
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entry += " " + string(data)
		}
		snap[rel] = entry
		return nil
	})
	assert.NilError(w.t, err)
	return snap
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.MkdirAll(dst, info.Mode().Perm()); err != nil {
				return err
			}
			return os.Chmod(dst, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, info.Mode().Perm())
		}
	})
}

// server is `abcd mcp serve` over stdio, with a reader that files replies by id.
type server struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	pending map[string]string
	stderr  *bytes.Buffer
	done    chan error
	raw     []string // every stdout line, in order
}

func (w *world) serve(args ...string) *server {
	w.t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp", "serve"}, args...)...)
	cmd.Dir, cmd.Env = w.repo, w.env()
	stdin, err := cmd.StdinPipe()
	assert.NilError(w.t, err)
	stdout, err := cmd.StdoutPipe()
	assert.NilError(w.t, err)
	s := &server{t: w.t, cmd: cmd, stdin: stdin, lines: make(chan string, 256), pending: map[string]string{},
		stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	assert.NilError(w.t, cmd.Start())
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	w.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return s
}

func (s *server) send(line string) {
	s.t.Helper()
	// Two writes, so a 20 MiB line is not copied to add its newline.
	_, err := io.WriteString(s.stdin, line)
	assert.NilError(s.t, err)
	_, err = io.WriteString(s.stdin, "\n")
	assert.NilError(s.t, err)
}

type wireReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	line string
}

// reply waits for the reply with this id (its JSON text).
func (s *server) reply(id string) wireReply {
	s.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if line, ok := s.pending[id]; ok {
			delete(s.pending, id)
			return decodeWire(s.t, line)
		}
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the server closed stdout before answering %s; stderr: %s", id, s.stderr.String())
			}
			s.raw = append(s.raw, line)
			r := decodeWire(s.t, line)
			s.pending[string(r.ID)] = line
		case <-deadline:
			s.t.Fatalf("no reply to %s within 30s; stderr: %s", id, s.stderr.String())
		}
	}
}

func decodeWire(t *testing.T, line string) wireReply {
	t.Helper()
	var r wireReply
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	var probe struct {
		JSONRPC string `json:"jsonrpc"`
		wireReply
	}
	assert.NilError(t, dec.Decode(&probe), "stdout carries only JSON-RPC responses: %q", line)
	assert.Equal(t, probe.JSONRPC, "2.0")
	r = probe.wireReply
	r.line = line
	return r
}

// close ends stdin and waits for a clean exit, then checks nothing but protocol reached stdout.
func (s *server) close() {
	s.t.Helper()
	assert.NilError(s.t, s.stdin.Close())
	waitErr := make(chan error, 1)
	go func() { waitErr <- s.cmd.Wait() }()
	select {
	case err := <-waitErr:
		assert.NilError(s.t, err, "stderr: %s", s.stderr.String())
	case <-time.After(30 * time.Second):
		s.t.Fatal("the server did not exit after stdin closed")
	}
	for line := range s.lines {
		s.raw = append(s.raw, line)
		decodeWire(s.t, line)
	}
}

func (s *server) initialize() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	r := s.reply(`"init"`)
	assert.Assert(s.t, r.Error == nil, r.line)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

var modernMeta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e", "version": "1"},
}

// callTool sends tools/call, in the handshake era or, with modern, in 2026-07-28.
func (s *server) callTool(id int, name string, args map[string]any, modern bool) wireReply {
	s.t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if modern {
		params["_meta"] = modernMeta
	}
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	assert.NilError(s.t, err)
	s.send(string(line))
	return s.reply(strconv.Itoa(id))
}

type callOutcome struct {
	isError bool
	doc     string // structuredContent, or the text of an error result
	text    string
}

func outcome(t *testing.T, r wireReply) callOutcome {
	t.Helper()
	assert.Assert(t, r.Error == nil, "a tool call is answered with a result: %s", r.line)
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	assert.NilError(t, json.Unmarshal(r.Result, &res))
	assert.Assert(t, len(res.Content) == 1 && res.Content[0].Type == "text", r.line)
	if res.IsError {
		assert.Assert(t, res.StructuredContent == nil, r.line)
		return callOutcome{isError: true, doc: res.Content[0].Text, text: res.Content[0].Text}
	}
	return callOutcome{doc: string(res.StructuredContent), text: res.Content[0].Text}
}

// verbCommands finds each verb's cobra command, for turning a tool input into CLI arguments.
func verbCommands(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	root := cli.NewRoot(&app.App{}, &cli.IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	out := map[string]*cobra.Command{}
	for _, v := range app.Table() {
		cmd, rest, err := root.Find(v.Path)
		assert.NilError(t, err, v.Name)
		assert.Assert(t, len(rest) == 0 && cmd.Annotations["verb"] == v.Name, "verb %s has no command at %v", v.Name, v.Path)
		out[v.Name] = cmd
	}
	return out
}

// cliArgs is the command line that gives a verb this input: each field becomes the flag of its name
// (underscores as dashes) or the positional argument its usage line names (TITLE for title).
func cliArgs(t *testing.T, cmd *cobra.Command, v verb.Verb, input map[string]any) []string {
	t.Helper()
	var positional []string
	words := strings.Fields(cmd.Use)[1:]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") {
			if f := cmd.Flags().Lookup(strings.TrimLeft(w, "-")); f != nil && f.Value.Type() != "bool" {
				i++ // the flag's own value
			}
			continue
		}
		positional = append(positional, strings.Trim(w, "[].<>\""))
	}
	values := make([]string, len(positional))
	args := append([]string{}, v.Path...)
	keys := make([]string, 0, len(input))
	for k := range input {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := input[k]
		flag := strings.ReplaceAll(k, "_", "-")
		if cmd.Flags().Lookup(flag) == nil && cmd.Flags().Lookup(strings.TrimSuffix(flag, "s")) != nil {
			flag = strings.TrimSuffix(flag, "s") // a repeatable flag is named in the singular: routes is --route
		}
		if f := cmd.Flags().Lookup(flag); f != nil {
			switch x := val.(type) {
			case []any:
				for _, e := range x {
					args = append(args, fmt.Sprintf("--%s=%v", flag, e))
				}
			default:
				args = append(args, fmt.Sprintf("--%s=%v", flag, x))
			}
			continue
		}
		i := slices.Index(positional, strings.ToUpper(k))
		if i < 0 && len(positional) == 1 && values[0] == "" && !slices.ContainsFunc(keys, func(o string) bool { return strings.ToUpper(o) == positional[0] }) {
			i = 0 // the one argument, named for what it holds (audit REF for the intent field)
		}
		assert.Assert(t, i >= 0, "input field %q of verb %s has no flag or argument on `abcd %s` (usage %q)", k, v.Name, strings.Join(v.Path, " "), cmd.Use)
		s, ok := val.(string)
		assert.Assert(t, ok, "positional %s of %s is not a string", k, v.Name)
		values[i] = s
	}
	args = append(args, "--json", "--")
	for _, val := range values {
		if val != "" {
			args = append(args, val)
		}
	}
	return args
}

var mintedID = regexp.MustCompile(`^([a-z]{3}-[0-9]{10,})(?:-|\.|$)`)

// minted lists the record and run ids a run created: ids that name a new file or folder.
func minted(before, after map[string]string) []string {
	var ids []string
	for p := range after {
		if _, ok := before[p]; ok {
			continue
		}
		for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
			if m := mintedID.FindStringSubmatch(seg); len(m) > 1 && !slices.Contains(ids, m[1]) && !existed(before, m[1]) {
				ids = append(ids, m[1])
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// existed is true when an id already named something before the run.
func existed(before map[string]string, id string) bool {
	for p := range before {
		if strings.Contains(p, id) {
			return true
		}
	}
	return false
}

// normalizeIDs replaces each run's minted ids, in order, with placeholders: a record id carries the
// time and random digits, so two runs that create one record differ in that id and nothing else.
func normalizeIDs(s string, ids []string) string {
	for i, id := range ids {
		s = strings.ReplaceAll(s, id, fmt.Sprintf("<minted-%d>", i))
	}
	return s
}

var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// normalizeSnapshot applies normalizeIDs to a tree, and reads the moments files record (a run's
// created time) as one: two runs a second apart differ there and nowhere else.
func normalizeSnapshot(snap map[string]string, ids []string) map[string]string {
	out := map[string]string{}
	for p, v := range snap {
		out[normalizeIDs(p, ids)] = timestamp.ReplaceAllString(normalizeIDs(v, ids), "<time>")
	}
	return out
}

func publishedSchema(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "schemas", "v1", name+".schema.json"))
	assert.NilError(t, err, "verb schemas are published: %s", name)
	return data
}

// checkDocument holds a success document to its outputSchema and to never carrying null.
func checkDocument(t *testing.T, name, doc string) {
	t.Helper()
	out, err := jsonschema.Compile(publishedSchema(t, name+".result"))
	assert.NilError(t, err)
	tree, err := strictjson.Parse([]byte(doc), strictjson.Limits{MaxDepth: 128})
	assert.NilError(t, err)
	if e := out.Validate(tree); e != nil {
		t.Errorf("%s: structuredContent does not match its outputSchema: %v\n%s", name, e, doc)
	}
	if n := mcp.Nulls(tree, "$"); len(n) > 0 {
		t.Errorf("%s: null where the schema promises a value at %v", name, n)
	}
}

// TestParity: for every tool, every sample input and every repository state, structuredContent (or
// an error result's refusal document) is byte for byte what `abcd <verb> --json` prints for the
// same input on the same repository state, and the two leave the repository in the same state.
// Read-only tools run against one server per state; a mutating tool runs on a fresh copy of the
// state for each front door. The only difference allowed is a record id minted during the run,
// found from the files the run created.
func TestParity(t *testing.T) {
	cmds := verbCommands(t)
	verbs := app.Table()
	var mu sync.Mutex
	compared, successes := 0, map[string]int{}
	if testing.Short() {
		t.Skip("the CLI x MCP parity matrix runs without -short")
	}
	t.Run("states", func(t *testing.T) {
		for _, state := range allStates {
			t.Run(state, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, state)
				reads := w.serve()
				reads.initialize()
				id := 0
				for _, v := range verbs {
					for i, sample := range mcp.SamplesFor(t, v, publishedSchema(t, v.Name+".input"), w.extra) {
						id++
						modern := (id % 2) == 0
						args := cliArgs(t, cmds[v.Name], v, sample)
						var got callOutcome
						var ids []string
						var afterMCP map[string]string
						if v.ReadOnly {
							before := w.snapshot()
							got = outcome(t, reads.callTool(id, v.Name, sample, modern))
							after := w.snapshot()
							assert.Check(t, mapsEqual(before, after), "read-only tool %s wrote: %v", v.Name, diff(before, after))
						} else {
							w.reset()
							before := w.snapshot()
							s := w.serve()
							if !modern {
								s.initialize()
							}
							got = outcome(t, s.callTool(id, v.Name, sample, modern))
							s.close()
							afterMCP = w.snapshot()
							ids = minted(before, afterMCP)
							w.reset()
						}
						beforeCLI := w.snapshot()
						res := w.abcd(-1, args...)
						afterCLI := w.snapshot()
						assert.Assert(t, strings.HasSuffix(res.stdout, "\n") && strings.Count(res.stdout, "\n") == 1,
							"abcd %v prints one document: %q (stderr %s)", args, res.stdout, res.stderr)
						want := strings.TrimSuffix(res.stdout, "\n")
						cliIDs := minted(beforeCLI, afterCLI)
						assert.Check(t, len(cliIDs) == len(ids), "%s %v: the CLI minted %v, the server %v", v.Name, sample, cliIDs, ids)
						gotDoc, wantDoc := normalizeIDs(got.doc, ids), normalizeIDs(want, cliIDs)
						if got.isError && isRefusal(want) {
							// A refusal is the same refusal through both doors; its what and remedy are
							// spelled in each door's own terms (a command line, a tool and its
							// arguments), so they are held to that instead of to each other.
							gotDoc, wantDoc = doorNeutral(t, gotDoc, "mcp"), doorNeutral(t, wantDoc, "cli")
						} else if !got.isError {
							// So is a result's next step: its data is the same, its text the door's.
							gotDoc, wantDoc = nextNeutral(t, gotDoc, "mcp"), nextNeutral(t, wantDoc, "cli")
						}
						assert.Check(t, gotDoc == wantDoc, "%s sample %d in %s (modern %v):\n  mcp: %s\n  cli: %s\n  args: %q",
							v.Name, i, state, modern, got.doc, want, args)
						assert.Check(t, got.text == got.doc, "the text block is the same JSON")
						assert.Check(t, got.isError == isRefusal(want), "%s: isError %v but the CLI printed %s (exit %d)", v.Name, got.isError, want, res.code)
						mu.Lock()
						if !got.isError {
							successes[v.Name]++
						}
						compared++
						mu.Unlock()
						if !got.isError {
							checkDocument(t, v.Name, got.doc)
						}
						if afterMCP != nil {
							a, b := normalizeSnapshot(afterMCP, ids), normalizeSnapshot(afterCLI, cliIDs)
							assert.Check(t, mapsEqual(a, b), "%s %v: the server and the CLI left different trees: %v", v.Name, sample, diff(a, b))
							w.reset()
						}
					}
				}
				reads.close()
			})
		}
	})
	// Every verb returns its result at least once across the states, so parity covers results and
	// not only refusals.
	for _, v := range verbs {
		assert.Check(t, successes[v.Name] > 0, "verb %s never returned a result in any state: add a sample or a state that reaches it", v.Name)
	}
	t.Logf("compared %d calls across %d states; results per verb: %v", compared, len(allStates), successes)
}

// doorNeutral drops a refusal's door-spelled fields after checking they speak the door's language:
// over MCP no command line or flag, on the command line no tool call.
func doorNeutral(t *testing.T, doc, door string) string {
	t.Helper()
	var m map[string]any
	assert.NilError(t, json.Unmarshal([]byte(doc), &m))
	for _, field := range []string{"what", "remedy"} {
		text, _ := m[field].(string)
		checkDoorLanguage(t, "a refusal's "+field, text, door)
		delete(m, field)
	}
	out, err := json.Marshal(m)
	assert.NilError(t, err)
	return string(out)
}

// nextNeutral drops the door-spelled text of every next step in a result (a "next" member, or the
// items of one) after checking it speaks the door's language, as doorNeutral does for a refusal.
func nextNeutral(t *testing.T, doc, door string) string {
	t.Helper()
	var tree any
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	assert.NilError(t, dec.Decode(&tree))
	var walk func(v any, underNext bool)
	walk = func(v any, underNext bool) {
		switch x := v.(type) {
		case map[string]any:
			if text, ok := x["text"].(string); ok && underNext {
				checkDoorLanguage(t, "a next step's text", text, door)
				delete(x, "text")
			}
			for k, child := range x {
				walk(child, k == "next")
			}
		case []any:
			for _, child := range x {
				walk(child, underNext)
			}
		}
	}
	walk(tree, false)
	out, err := json.Marshal(tree)
	assert.NilError(t, err)
	return string(out)
}

// checkDoorLanguage holds text spelled for a door to its language: over MCP no command line or
// flag, on the command line no tool call.
func checkDoorLanguage(t *testing.T, what, text, door string) {
	t.Helper()
	if door == "mcp" {
		assert.Check(t, !strings.Contains(text, "`abcd") && !strings.Contains(text, " --") && !strings.HasPrefix(text, "abcd "),
			"over MCP, %s speaks the command line's language: %q", what, text)
	} else {
		assert.Check(t, !strings.Contains(text, "call ") && !strings.Contains(text, "tools/call"),
			"on the command line, %s speaks MCP's language: %q", what, text)
	}
}

func isRefusal(doc string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(doc), &m) != nil || len(m) != 6 {
		return false
	}
	for _, k := range []string{"kind", "code", "what", "why", "remedy", "exit_code"} {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "-"+k)
		} else if w != v {
			out = append(out, "~"+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "+"+k)
		}
	}
	sort.Strings(out)
	return out
}

// anyRefusal stands for any refusal of kind refused: a value its own input type refuses, with the
// type's code.
const anyRefusal = "*"

// hostileCase is one malformed or hostile message and the answer it must get: a tool result with a
// refusal code, a JSON-RPC error code, or no answer at all.
type hostileCase struct {
	name    string
	line    string
	id      string // the id its answer carries; empty when none can be read
	refusal string // the refusal code of an isError result
	rpc     int    // the JSON-RPC error code
	silent  bool   // never answered
}

// hostileCorpus builds the corpus for one mutating tool from its published input schema: every
// way to break the arguments, and every way to break the message around a call that would
// otherwise run. overLong adds a valid call on a line past the 16 MiB a line may hold.
func hostileCorpus(t *testing.T, v verb.Verb, base map[string]any, next func() int, overLong bool) []hostileCase {
	var cases []hostileCase
	inDoc := publishedSchema(t, v.Name+".input")
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	assert.NilError(t, json.Unmarshal(inDoc, &schema))
	call := func(args any, meta map[string]any) (string, string) {
		id := next()
		params := map[string]any{"name": v.Name, "arguments": args}
		if meta != nil {
			params["_meta"] = meta
		}
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
		assert.NilError(t, err)
		return string(b), strconv.Itoa(id)
	}
	with := func(k string, val any) map[string]any {
		m := map[string]any{}
		for bk, bv := range base {
			m[bk] = bv
		}
		m[k] = val
		return m
	}
	refused := func(name, code string, args any) {
		line, id := call(args, nil)
		cases = append(cases, hostileCase{name: name, line: line, id: id, refusal: code})
	}
	rpcErr := func(name string, code int, args any, meta map[string]any) {
		line, id := call(args, meta)
		cases = append(cases, hostileCase{name: name, line: line, id: id, rpc: code})
	}
	refused("unknown field", "input_invalid", with("zz_unknown", true))
	refused("unknown field named like an option", "input_invalid", with("force", true))
	props := make([]string, 0, len(schema.Properties))
	for p := range schema.Properties {
		props = append(props, p)
	}
	sort.Strings(props)
	for _, p := range props {
		ps := schema.Properties[p]
		for _, wrong := range mcp.WrongTypeValues(ps) {
			refused(fmt.Sprintf("%s as %T", p, wrong), "input_invalid", with(p, wrong))
		}
		isString := ps["type"] == "string"
		isStringArray := ps["type"] == "array"
		if isString {
			refused(p+" one byte past the bound on a string", "input_too_large", with(p, overLongString()))
			// The value's own type refuses these, with its own code: the one the CLI gives too.
			refused(p+" with NUL", anyRefusal, with(p, "a\x00b"))
			refused(p+" with an escape sequence", anyRefusal, with(p, "\x1b]0;pwned\x07"))
			if ml, ok := ps["maxLength"].(float64); ok {
				refused(p+" one past maxLength", anyRefusal, with(p, strings.Repeat("y", int(ml)+1)))
			}
		}
		if isStringArray {
			refused(p+" with NUL in an item", anyRefusal, with(p, []any{"a\x00b"}))
		}
	}
	rpcErr("arguments as an array", -32602, []any{base}, nil)
	rpcErr("arguments as a string", -32602, "yes", nil)
	rpcErr("arguments as null", -32602, nil, nil)
	rpcErr("no clientCapabilities in _meta", -32602, base, map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28"})
	rpcErr("an unsupported protocol version", -32022, base, map[string]any{"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": map[string]any{}})

	valid, _ := json.Marshal(map[string]any{"name": v.Name, "arguments": base})
	raw := func(name, line, id, refusal string, rpc int, silent bool) {
		cases = append(cases, hostileCase{name: name, line: line, id: id, refusal: refusal, rpc: rpc, silent: silent})
	}
	id := strconv.Itoa(next())
	raw("a key named twice in the arguments", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+v.Name+`","arguments":{"zz":1,"zz":2}}}`, id, "input_invalid", 0, false)
	id = strconv.Itoa(next())
	raw("arguments nested 80 deep", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+v.Name+`","arguments":{"zz":`+strings.Repeat("[", 80)+strings.Repeat("]", 80)+`}}}`, id, "input_too_large", 0, false)
	id = strconv.Itoa(next())
	raw("invalid UTF-8 around a valid call", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":`+strings.Replace(string(valid), `"name"`, "\"n\xffame\":1,\"name\"", 1)+`}`, id, "", -32700, false)
	id = strconv.Itoa(next())
	raw("a valid call in a batch", `[{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":`+string(valid)+`}]`, "", "", -32600, false)
	raw("a valid call sent as a notification", `{"jsonrpc":"2.0","method":"tools/call","params":`+string(valid)+`}`, "", "", 0, true)
	id = strconv.Itoa(next())
	raw("a notification with an id", `{"jsonrpc":"2.0","id":`+id+`,"method":"notifications/initialized"}`, id, "", -32601, false)
	id = strconv.Itoa(next())
	raw("a cancellation with an id", `{"jsonrpc":"2.0","id":`+id+`,"method":"notifications/cancelled","params":{"requestId":1}}`, id, "", -32601, false)
	if overLong {
		id = strconv.Itoa(next())
		raw("a 20 MiB line holding a valid call", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":`+string(valid)+`,"pad":"`+pad20MiB()+`"}`, id, "", -32600, false)
	}
	id = strconv.Itoa(next())
	raw("a truncated call", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":`+string(valid), "", "", -32700, false)
	id = strconv.Itoa(next())
	raw("the tool name with a trailing space", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+v.Name+` ","arguments":{}}}`, id, "", -32602, false)
	id = strconv.Itoa(next())
	raw("jsonrpc 1.0", `{"jsonrpc":"1.0","id":`+id+`,"method":"tools/call","params":`+string(valid)+`}`, id, "", -32600, false)
	return cases
}

// pad20MiB is the padding of the corpus's over-long lines, and overLongString a string one byte past
// the bound on any string in a message; each is made once.
var (
	pad20MiB       = sync.OnceValue(func() string { return strings.Repeat("z", 20<<20) })
	overLongString = sync.OnceValue(func() string { return strings.Repeat("x", mcpwire.MaxStringBytes+1) })
)

// TestFailClosedCorpus: every mutating tool, in every state where it could write, answers each
// malformed or hostile message as the corpus says, writes nothing anywhere (the whole temporary
// machine is byte-identical before and after), and is still serving afterwards.
func TestFailClosedCorpus(t *testing.T) {
	t.Parallel() // its own worlds
	var mutating []verb.Verb
	for _, v := range app.Table() {
		if !v.ReadOnly {
			mutating = append(mutating, v)
		}
	}
	assert.Assert(t, len(mutating) > 0)
	states := []string{stateGit, stateRecord, statePlanned}
	if testing.Short() {
		states = states[len(states)-1:] // the inner loop keeps the state where most verbs can write
	}
	for _, state := range states {
		t.Run(state, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, state)
			before := w.snapshot()
			s := w.serve()
			// Before initialize, a call without _meta is neither era's and runs nothing.
			s.send(`{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{"name":"` + mutating[0].Name + `","arguments":{}}}`)
			r := s.reply(`"early"`)
			assert.Check(t, r.Error != nil && r.Error.Code == -32602, r.line)
			s.initialize()
			n := 0
			next := func() int { n++; return n }
			answered := 0
			for i, v := range mutating {
				samples := mcp.SamplesFor(t, v, publishedSchema(t, v.Name+".input"), nil)
				// A line past 16 MiB is refused as it is read, before anything in it (the tool's name
				// included) is looked at, so under -short one tool's carries what every tool's would;
				// without -short each tool sends one.
				overLong := i == 0 || !testing.Short()
				for _, c := range hostileCorpus(t, v, samples[len(samples)-1], next, overLong) {
					s.send(c.line)
					if c.silent {
						continue
					}
					if c.id == "" {
						r := s.reply("") // an answer no id can reach
						assert.Check(t, r.Error != nil && r.Error.Code == c.rpc, "%s %s: %s", v.Name, c.name, r.line)
						answered++
						continue
					}
					r := s.reply(c.id)
					answered++
					if c.refusal != "" {
						got := outcome(t, r)
						var doc map[string]any
						assert.NilError(t, json.Unmarshal([]byte(got.doc), &doc))
						want := doc["code"] == c.refusal || c.refusal == anyRefusal && doc["kind"] == "refused"
						assert.Check(t, got.isError && want, "%s %s: want refusal %s, got %s", v.Name, c.name, c.refusal, text.ClipAt(r.line, 300))
						continue
					}
					assert.Check(t, r.Error != nil && r.Error.Code == c.rpc, "%s %s: want error %d, got %s", v.Name, c.name, c.rpc, text.ClipAt(r.line, 300))
				}
			}
			// Still serving: ping and a read.
			s.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
			assert.Check(t, string(s.reply(`"ping"`).Result) == "{}")
			got := outcome(t, s.callTool(next(), "status", map[string]any{}, true))
			assert.Check(t, !got.isError, got.doc)
			s.close()
			assert.Check(t, len(s.pending) == 0, "answers to no request: %v", s.pending)
			after := w.snapshot()
			assert.Check(t, mapsEqual(before, after), "the corpus wrote: %v", diff(before, after))
			t.Logf("%s: %d hostile messages answered, nothing written", state, answered)
		})
	}
}

// TestToolCallsStayInsideTheRepository: free text that looks like a path is text. Every mutating
// tool given path-like text in each free-text field writes, if at all, only inside the repository's
// .abcd folder and ABCD_HOME; nothing else on the machine changes.
func TestToolCallsStayInsideTheRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("every mutating tool with path-like text runs without -short")
	}
	w := newWorld(t, statePlanned)
	outsideFile := filepath.Join(os.TempDir(), fmt.Sprintf("abcd-escape-%d", time.Now().UnixNano()))
	pathy := []string{"../../outside/pwned", "../../../" + strings.TrimPrefix(outsideFile, "/"), outsideFile, `..\..\outside\pwned`}
	id := 0
	tried := 0
	for _, v := range app.Table() {
		if v.ReadOnly {
			continue
		}
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		assert.NilError(t, json.Unmarshal(publishedSchema(t, v.Name+".input"), &schema))
		samples := mcp.SamplesFor(t, v, publishedSchema(t, v.Name+".input"), nil)
		for p, ps := range schema.Properties {
			if ps["type"] != "string" || ps["enum"] != nil {
				continue
			}
			for _, text := range pathy {
				w.reset()
				before := w.snapshot()
				s := w.serve()
				args := map[string]any{}
				for k, val := range samples[len(samples)-1] {
					args[k] = val
				}
				args[p] = text
				id++
				outcome(t, s.callTool(id, v.Name, args, true))
				s.close()
				after := w.snapshot()
				for _, d := range diff(before, after) {
					path := d[1:]
					inside := strings.HasPrefix(path, filepath.Join("repo", ".abcd")+string(filepath.Separator)) || strings.HasPrefix(path, "abcd-home"+string(filepath.Separator))
					assert.Check(t, inside, "%s %s=%q changed %s", v.Name, p, text, d)
				}
				_, err := os.Lstat(outsideFile)
				assert.Check(t, os.IsNotExist(err), "%s %s=%q created %s", v.Name, p, text, outsideFile)
				tried++
			}
		}
	}
	assert.Check(t, tried > 0, "no mutating tool takes free text")
	t.Logf("%d calls with path-like text stayed inside the repository", tried)
}

// TestStdoutCarriesOnlyProtocol: a verb that warns (a routing row for an agent abcd does not have)
// writes its warning to stderr; stdout carries nothing but JSON-RPC messages, one per line.
func TestStdoutCarriesOnlyProtocol(t *testing.T) {
	t.Parallel() // its own world
	w := newWorld(t, stateRecord)
	assert.NilError(t, os.WriteFile(filepath.Join(w.home, "oracle-routing.json"),
		[]byte(`{"schema_version":1,"agents":{"no-such-agent":{"tier":"economy"}}}`+"\n"), 0o600))
	s := w.serve()
	s.initialize()
	for i, v := range app.Table() {
		if v.ReadOnly {
			samples := mcp.SamplesFor(t, v, publishedSchema(t, v.Name+".input"), nil)
			outcome(t, s.callTool(i+1, v.Name, samples[0], i%2 == 0))
		}
	}
	s.close()
	assert.Check(t, strings.Contains(s.stderr.String(), "no-such-agent"), "the warning reaches stderr: %q", s.stderr.String())
	assert.Check(t, len(s.raw) > 5)
	for _, line := range s.raw {
		assert.Check(t, strings.HasPrefix(line, `{"jsonrpc":"2.0",`) && strings.HasSuffix(line, "}\n") && strings.Count(line, "\n") == 1, "%q", text.ClipAt(line, 300))
	}
}

// TestServeAnotherRepository: --repo serves the repository it names, from anywhere.
func TestServeAnotherRepository(t *testing.T) {
	t.Parallel() // its own world
	elsewhere := newWorld(t, statePlain)
	target := newWorld(t, stateRecord)
	cmd := exec.Command(binary, "mcp", "serve", "--repo", target.repo)
	cmd.Dir, cmd.Env = elsewhere.repo, target.env()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}`
	cmd.Stdin = strings.NewReader(init + "\n" + call + "\n")
	out, err := cmd.Output()
	assert.NilError(t, err)
	var status struct {
		Repository struct{ Root string } `json:"repository"`
		Record     struct{ Total int }   `json:"record"`
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		r := decodeWire(t, line+"\n")
		if string(r.ID) == "2" {
			o := outcome(t, r)
			assert.NilError(t, json.Unmarshal([]byte(o.doc), &status))
		}
	}
	assert.Check(t, status.Repository.Root == target.repo, "served %q, want %q", status.Repository.Root, target.repo)
	assert.Check(t, status.Record.Total == 3, "the target's record: %d", status.Record.Total)

	for _, args := range [][]string{
		{"mcp", "serve", "--repo", filepath.Join(elsewhere.base, "no-such-folder")},
		{"mcp", "serve", "--repo", filepath.Join(elsewhere.outside, "precious.txt")},
		{"mcp", "serve", "--http", "0.0.0.0:0"},
		{"mcp", "serve", "--http", "192.168.0.1:8080"},
		{"mcp", "serve", "--http", "nonsense"},
	} {
		res := elsewhere.abcd(2, args...)
		assert.Check(t, res.stdout == "", "a refusal before serving goes to stderr: %q", res.stdout)
		assert.Check(t, strings.Contains(res.stderr, "remedy:"), "%v: %s", args, res.stderr)
	}
	res := elsewhere.abcd(2, "mcp", "serve", "--http", "0.0.0.0:0", "--json")
	assert.Check(t, isRefusal(strings.TrimSpace(res.stdout)), "under --json the refusal is the document: %q", res.stdout)
}
