package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/ports/fake"
)

// shippedRoster parses the repository's agents/*.md, the roster the binary embeds.
func shippedRoster(t *testing.T) roster.Roster {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "agents", "*.md"))
	assert.NilError(t, err)
	assert.Assert(t, len(files) > 0)
	var agents []roster.Agent
	for _, f := range files {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		a, err := roster.Parse(filepath.Base(f), data)
		assert.NilError(t, err)
		agents = append(agents, a)
	}
	r, err := roster.New(agents)
	assert.NilError(t, err)
	return r
}

func promptServer(t *testing.T) (*Server, roster.Roster) {
	t.Helper()
	a := testApp(t)
	ros := shippedRoster(t)
	a.Roster = fake.Roster{R: ros}
	s, _ := newServer(t, a)
	return s, ros
}

type listedPrompt struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"arguments"`
}

type promptResult struct {
	Description string `json:"description"`
	Messages    []struct {
		Role    string `json:"role"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
	ResultType string          `json:"resultType"`
	TTLMs      *int64          `json:"ttlMs"`
	Meta       json.RawMessage `json:"_meta"`
}

func decodePrompt(t *testing.T, r reply) promptResult {
	t.Helper()
	assert.Assert(t, r.Error == nil, "want a result, got %s", r.line)
	var p promptResult
	dec := json.NewDecoder(strings.NewReader(string(r.Result)))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&p), r.line)
	assert.Assert(t, is.Len(p.Messages, 1), r.line)
	assert.Check(t, is.Equal(p.Messages[0].Role, "user"))
	assert.Check(t, is.Equal(p.Messages[0].Content.Type, "text"))
	return p
}

// TestPromptsListTheRosterAndTheDriver: one prompt per shipped agent, with its description and a
// required brief argument, and the driver with a required spec argument, in name order; the same
// bytes every time in each era, the modern one with caching hints.
func TestPromptsListTheRosterAndTheDriver(t *testing.T) {
	s, ros := promptServer(t)
	replies := exchange(t, s,
		initializeLine(1, Legacy20251125),
		notification("notifications/initialized", nil),
		request(2, "prompts/list", nil),
		request(3, "prompts/list", nil),
		request(4, "prompts/list", modernParams(nil)),
		request(5, "prompts/list", map[string]any{"cursor": "x"}),
	)
	first, second := byID(t, replies, "2"), byID(t, replies, "3")
	assert.Check(t, is.Equal(string(first.Result), string(second.Result)), "the same bytes every time")
	var list struct {
		Prompts []listedPrompt `json:"prompts"`
	}
	dec := json.NewDecoder(strings.NewReader(string(first.Result)))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&list), first.line)
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
		assert.Check(t, p.Description != "" && p.Title != "", "%s has a title and a description", p.Name)
		assert.Assert(t, is.Len(p.Arguments, 1), p.Name)
		assert.Check(t, p.Arguments[0].Required && p.Arguments[0].Description != "")
		if p.Name == DriverPrompt {
			assert.Check(t, is.Equal(p.Arguments[0].Name, "spec"))
			continue
		}
		a, ok := ros.Get(p.Name)
		assert.Assert(t, ok, "%s is a roster agent", p.Name)
		assert.Check(t, is.Equal(p.Description, a.Description))
		assert.Check(t, is.Equal(p.Arguments[0].Name, "brief"))
	}
	assert.Check(t, is.DeepEqual(names, append([]string{DriverPrompt}, ros.Names()...)))

	var modern struct {
		Prompts    []json.RawMessage `json:"prompts"`
		TTLMs      *int64            `json:"ttlMs"`
		CacheScope string            `json:"cacheScope"`
		ResultType string            `json:"resultType"`
	}
	assert.NilError(t, json.Unmarshal(byID(t, replies, "4").Result, &modern))
	assert.Check(t, is.Len(modern.Prompts, len(list.Prompts)))
	assert.Assert(t, modern.TTLMs != nil)
	assert.Check(t, is.Equal(*modern.TTLMs, int64(listTTLMs)))
	assert.Check(t, is.Equal(modern.CacheScope, "public"))
	assert.Check(t, is.Equal(modern.ResultType, "complete"))
	assert.Check(t, is.Equal(byID(t, replies, "5").Error.Code, codeInvalidParams), "no cursor was ever given out")
}

// TestPromptsCapabilityIsDeclaredInBothEras: initialize and server/discover both declare prompts.
func TestPromptsCapabilityIsDeclaredInBothEras(t *testing.T) {
	s, _ := promptServer(t)
	replies := exchange(t, s, initializeLine(1, Legacy20250618), request(2, "server/discover", modernParams(nil)))
	for _, id := range []string{"1", "2"} {
		var res struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		assert.NilError(t, json.Unmarshal(byID(t, replies, id).Result, &res))
		assert.Check(t, is.Equal(string(res.Capabilities["prompts"]), "{}"), "reply %s", id)
	}
}

// TestAgentPromptIsTheDefinitionWithTheBrief: prompts/get for an agent renders its definition (the
// agent file's body, whole) and the brief it is to follow.
func TestAgentPromptIsTheDefinitionWithTheBrief(t *testing.T) {
	s, ros := promptServer(t)
	brief := "/work/repo/.abcd/.work.local/run/run-2611300000000001/lane-1/validate/round-1/ruthless-reviewer/brief.md"
	replies := exchange(t, s, request(1, "prompts/get", modernParams(map[string]any{
		"name": "ruthless-reviewer", "arguments": map[string]any{"brief": brief}})))
	p := decodePrompt(t, byID(t, replies, "1"))
	a, _ := ros.Get("ruthless-reviewer")
	text := p.Messages[0].Content.Text
	assert.Check(t, strings.HasPrefix(text, strings.TrimSpace(a.Body)), "the definition comes first, whole")
	assert.Check(t, is.Contains(text, "Read the brief at `"+brief+"` whole"))
	assert.Check(t, is.Equal(p.Description, a.Description))
	assert.Check(t, is.Equal(p.ResultType, "complete"))
	assert.Check(t, p.TTLMs == nil, "a rendered prompt is not a list: no caching hint")
}

// toolMention is a word of the driver text that names a tool: lower case words joined by "_".
var toolMention = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// TestDriverPromptNamesOnlyServedTools: the driver text renders the spec it is given, and every
// tool it tells a harness to call is one this server serves, so following it can never fail on a
// name; it names the whole loop: start, step, receipt and record.
func TestDriverPromptNamesOnlyServedTools(t *testing.T) {
	s, _ := promptServer(t)
	replies := exchange(t, s,
		initializeLine(1, Legacy20251125),
		notification("notifications/initialized", nil),
		request(2, "prompts/get", map[string]any{"name": DriverPrompt, "arguments": map[string]any{"spec": "faster-cold-start"}}))
	text := decodePrompt(t, byID(t, replies, "2")).Messages[0].Content.Text
	assert.Check(t, is.Contains(text, `implement_start with {"spec": "faster-cold-start"}`))
	assert.Check(t, !strings.Contains(text, "{spec}"))
	seen := map[string]bool{}
	for _, w := range toolMention.FindAllString(text, -1) {
		if w == "ruthless_reviewer" || strings.Contains(w, "work_local") {
			continue
		}
		_, served := s.byName[w]
		// A name that is no tool is a refusal code the driver says what to do about: a declared one.
		declared := slices.ContainsFunc(refusal.Codes(), func(c refusal.Declared) bool { return string(c.Code) == w })
		assert.Check(t, served || declared, "the driver names %s, which is neither a served tool nor a declared refusal code", w)
		seen[w] = true
	}
	for _, w := range []string{"implement_start", "implement_step", "implement_receipt", "implement_status", "implement_record"} {
		assert.Check(t, seen[w], "the driver names %s", w)
	}
}

// TestPromptsGetRefusesWhatTheToolsRefuse: an unknown prompt, a missing, unknown or non-string
// argument, and a value the argument's own type refuses are each Invalid params.
func TestPromptsGetRefusesWhatTheToolsRefuse(t *testing.T) {
	s, _ := promptServer(t)
	get := func(id int, params map[string]any) string { return request(id, "prompts/get", modernParams(params)) }
	cases := []struct {
		params map[string]any
		says   string
	}{
		{map[string]any{"name": "nope"}, "no prompt is named nope"},
		{map[string]any{}, "needs params.name"},
		{map[string]any{"name": DriverPrompt}, "needs the argument spec"},
		{map[string]any{"name": DriverPrompt, "arguments": map[string]any{"spec": "x", "more": "y"}}, "takes no argument more"},
		{map[string]any{"name": DriverPrompt, "arguments": map[string]any{"spec": 7}}, "must be a string"},
		{map[string]any{"name": DriverPrompt, "arguments": []any{"x"}}, "must be an object"},
		{map[string]any{"name": DriverPrompt, "arguments": map[string]any{"spec": "--all"}}, "argument spec: is not a record ref"},
		{map[string]any{"name": "security-reviewer", "arguments": map[string]any{"brief": "../../etc/passwd"}}, "climbs out"},
		{map[string]any{"name": "security-reviewer", "arguments": map[string]any{"brief": "a\u202eb"}}, "argument brief"},
	}
	var lines []string
	for i, c := range cases {
		lines = append(lines, get(i+1, c.params))
	}
	replies := exchange(t, s, lines...)
	for i, c := range cases {
		r := byID(t, replies, jsonID(i+1))
		assert.Assert(t, r.Error != nil, "case %d: want an error, got %s", i+1, r.line)
		assert.Check(t, is.Equal(r.Error.Code, codeInvalidParams), r.line)
		assert.Check(t, is.Contains(r.Error.Message, c.says), r.line)
	}
}

func jsonID(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAnUnreadableRosterLeavesTheDriver: when the roster cannot be read the agents' prompts are not
// served, the driver still is, and the server says why on its log.
func TestAnUnreadableRosterLeavesTheDriver(t *testing.T) {
	a := testApp(t)
	a.Roster = fake.Roster{Err: errors.New("agents/x.md: line 2: no name")}
	s, log := newServer(t, a)
	replies := exchange(t, s, request(1, "prompts/list", modernParams(nil)))
	var list struct {
		Prompts []listedPrompt `json:"prompts"`
	}
	assert.NilError(t, json.Unmarshal(byID(t, replies, "1").Result, &list))
	assert.Check(t, is.Len(list.Prompts, 1))
	assert.Check(t, is.Equal(list.Prompts[0].Name, DriverPrompt))
	assert.Check(t, is.Contains(log.String(), "agents/x.md: line 2: no name"))
}

// TestPluginLoopCommandsAreTheDriverText: the Claude Code plugin's build, review and audit commands
// are the one driver text, each with its own first step, so they cannot drift from the drive prompt
// (go test -update rewrites them).
func TestPluginLoopCommandsAreTheDriverText(t *testing.T) {
	commands := []struct{ file, description, hint, body string }{
		{"build.md", "Build a spec with abcd's build loop to the end, one fresh agent per open await, and report the record", `"<spec>"`,
			DriverText("$ARGUMENTS")},
		{"review.md", "Review this branch with abcd's ruthless and security reviewers, and report their verdicts", `"[base branch]"`,
			driverText("Review the changes on the current branch with abcd's reviewers, to the end.",
				`Start the run: call review with {"base": "$ARGUMENTS"} when "$ARGUMENTS" names the branch the work started from, or with {} to review against the configured base. Keep the run id it returns (run.run).`)},
		{"audit.md", "Audit an intent's delivered work against its acceptance criteria with abcd's intent-auditor", `"<intent>"`,
			driverText("Audit the work delivered for intent $ARGUMENTS against its acceptance criteria, to the end.",
				`Start the run: call intent_audit with {"intent": "$ARGUMENTS"}. Keep the run id it returns (run.run). The auditor's verdicts land in the intent's Audit Notes.`)},
	}
	for _, c := range commands {
		path, err := filepath.Abs(filepath.Join("..", "..", "commands", c.file))
		assert.NilError(t, err)
		want := "---\ndescription: " + c.description + "\nargument-hint: " + c.hint + "\n---\n\n" + c.body
		golden.Assert(t, want, path)
	}
}

// FuzzPromptsGet: whatever a prompts/get names and passes, the answer is a prompt whose text holds
// each argument as given, or Invalid params; never a panic, never another error.
func FuzzPromptsGet(f *testing.F) {
	for _, seed := range [][3]string{
		{DriverPrompt, "spec", "faster-cold-start"},
		{DriverPrompt, "spec", "--all"},
		{"ruthless-reviewer", "brief", "/work/repo/.abcd/.work.local/run/run-1/lane-1/validate/round-1/ruthless-reviewer/brief.md"},
		{"security-reviewer", "brief", "../../etc/passwd"},
		{"intent-auditor", "brief", "a\x00b"},
		{"nope", "x", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	a := testApp(f)
	a.Roster = fake.Roster{R: fuzzRoster(f)}
	s, _ := newServer(f, a)
	f.Fuzz(func(t *testing.T, name, arg, value string) {
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
			"params": map[string]any{"name": name, "arguments": map[string]any{arg: value}}})
		if err != nil {
			t.Skip()
		}
		m, _, perr := parseMessage(line)
		if perr != nil {
			return // the wire refused the line: FuzzServeLine's ground
		}
		res, rerr := s.getPrompt(m, false)
		if rerr != nil {
			if rerr.Code != codeInvalidParams {
				t.Fatalf("want Invalid params, got %d %s", rerr.Code, rerr.Message)
			}
			return
		}
		var p struct {
			Messages []struct {
				Content struct{ Text string } `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(res, &p); err != nil || len(p.Messages) != 1 {
			t.Fatalf("not one message: %s", res)
		}
		// The value as the wire carried it: JSON holds no invalid UTF-8.
		var sent string
		b, _ := json.Marshal(value)
		_ = json.Unmarshal(b, &sent)
		if !strings.Contains(p.Messages[0].Content.Text, sent) {
			t.Fatalf("the text does not hold the argument %q", sent)
		}
	})
}

// fuzzRoster is the shipped roster for a fuzz target (testing.F has no *testing.T).
func fuzzRoster(f *testing.F) roster.Roster {
	files, err := filepath.Glob(filepath.Join("..", "..", "agents", "*.md"))
	if err != nil || len(files) == 0 {
		f.Fatal("no agents/*.md")
	}
	var agents []roster.Agent
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		a, err := roster.Parse(filepath.Base(file), data)
		if err != nil {
			f.Fatal(err)
		}
		agents = append(agents, a)
	}
	r, err := roster.New(agents)
	if err != nil {
		f.Fatal(err)
	}
	return r
}
