package runner

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/review"
)

func TestTheEnvironmentIsAnAllowlist(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin", "HOME=/home/ada", "LANG=C.UTF-8", "GIT_AUTHOR_NAME=Ada",
		"ANTHROPIC_API_KEY=sk-canary-0123456789", "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "OPENAI_API_KEY=sk-other",
		"CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli", "LD_PRELOAD=/tmp/x.so", "FORCE_COLOR=3", "TERM=xterm-256color",
		"NO_COLOR=", "GIT_DIR=/elsewhere", "BASH_ENV=/tmp/rc", "WEIRD", "=x",
	}
	r := Runner{CredentialEnv: []string{"ANTHROPIC_API_KEY"}, PassEnv: []string{"ANTHROPIC_BASE_URL", "HTTPS_PROXY"}}
	env, creds, missing := Environment(parent, r, map[string]string{"CLAUDE_CODE_MAX_RETRIES": "2"})
	assert.Check(t, is.DeepEqual(env, []string{
		"ANTHROPIC_API_KEY=sk-canary-0123456789", "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "CLAUDE_CODE_MAX_RETRIES=2",
		"GIT_AUTHOR_NAME=Ada", "GIT_EDITOR=true", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "HOME=/home/ada", "LANG=C.UTF-8",
		"NO_COLOR=1", "PAGER=cat", "PATH=/usr/bin", "TERM=dumb",
	}))
	assert.Check(t, is.DeepEqual(creds, []string{"sk-canary-0123456789"}))
	assert.Check(t, is.Len(missing, 0))
	_, creds, _ = Environment([]string{"ANTHROPIC_API_KEY=k-0123456789", "HTTPS_PROXY=http://ada:pr0xy-secret@proxy.example:3128"}, r, nil)
	assert.Check(t, is.DeepEqual(creds, []string{"k-0123456789", "pr0xy-secret", "ada:pr0xy-secret"}), "a passed URL's userinfo is scrubbed as a credential")
	assert.Check(t, is.Len(Userinfo("us-east-1"), 0))
	assert.Check(t, is.Len(Userinfo("https://api.example/v1"), 0))
	_, _, missing = Environment([]string{"ANTHROPIC_API_KEY="}, r, nil)
	assert.Check(t, is.DeepEqual(missing, []string{"ANTHROPIC_API_KEY"}))
}

func TestEveryNestedMarkerAndLoaderIsRefused(t *testing.T) {
	for _, name := range []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION_ID", "CODEX_SANDBOX", "GEMINI_CLI", "OPENCODE_X",
		"ABCD_HOME", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "NODE_OPTIONS", "BASH_ENV", "TERM", "HOME",
		"CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"} {
		assert.Check(t, EnvProblem(name) != "", name)
	}
	for _, name := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "HTTPS_PROXY", "OPENAI_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN", "GOOGLE_CLOUD_PROJECT", "GEMINI_API_KEY"} {
		assert.Check(t, is.Equal(EnvProblem(name), ""), name)
	}
}

func TestTheLedgerIgnoresARepeatAndFailsAConflict(t *testing.T) {
	l := NewLedger()
	assert.Check(t, l.Open("t1", []byte(`{"name":"Bash","input":{"command":"ls"}}`)) == nil)
	assert.Check(t, l.Open("t1", []byte(`{"name":"Bash","input":{"command":"ls"}}`)) == nil, "an exact repeat is ignored")
	f := l.Open("t1", []byte(`{"name":"Bash","input":{"command":"rm -rf /"}}`))
	assert.Assert(t, f != nil)
	assert.Check(t, is.Equal(f.Cause, CauseToolCallConflict))
	assert.Check(t, is.Equal(l.AtEnd().Cause, CauseOpenToolCall))
	assert.Check(t, l.Close("t1", []byte("ok")) == nil)
	assert.Check(t, l.Close("t1", []byte("ok")) == nil, "a repeated result is ignored")
	assert.Check(t, is.Equal(l.Close("t1", []byte("other")).Cause, CauseToolCallConflict))
	assert.Check(t, is.Equal(l.Close("t9", nil).Cause, CauseToolCallConflict), "a result for a call never opened")
	assert.Check(t, l.AtEnd() == nil)
	assert.Check(t, l.Whole("t2", []byte("a"), []byte("b")) == nil)
	assert.Check(t, is.Equal(l.Calls(), 2))
	assert.Check(t, is.Equal(l.Repeats(), 2))
	assert.Check(t, is.DeepEqual(l.IDs(), []string{"t1", "t2"}))
	assert.Check(t, is.Equal(l.Open("", nil).Cause, CauseBadLine))
	assert.Check(t, is.Equal(l.Open("a\x1b[31m", nil).Cause, CauseBadLine))
}

func TestTheLedgerIsBounded(t *testing.T) {
	l := NewLedger()
	for i := 0; i < MaxToolCalls; i++ {
		assert.Assert(t, l.Open(strings.Repeat("x", 1+i%7)+string(rune('a'+i%26))+itoa(i), nil) == nil)
	}
	assert.Check(t, is.Equal(l.Open("one-more", nil).Cause, CauseToolCallLimit))
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func server(name string, tools ...MCPTool) MCPServer {
	return MCPServer{Name: name, Command: "/usr/local/bin/abcd", Args: []string{"mcp", "serve"}, Tools: tools}
}

func tool(name string) MCPTool {
	return MCPTool{Name: name, Description: "d", InputSchema: map[string]any{"type": "object"}}
}

func TestACatalogWithinItsBoundsIsBuilt(t *testing.T) {
	c, err := BuildCatalog([]MCPServer{server("abcd", tool("status"), tool("spec_show"))})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(c.Allowed, []string{"mcp__abcd__status", "mcp__abcd__spec_show"}))
	assert.Check(t, is.Equal(c.AllowedArg, "mcp__abcd__status,mcp__abcd__spec_show"))
	assert.Check(t, is.Equal(string(c.Servers[0].Tools[0].Definition), `{"name":"status","description":"d","inputSchema":{"type":"object"}}`))
	empty, err := BuildCatalog(nil)
	assert.NilError(t, err)
	assert.Check(t, is.Len(empty.Allowed, 0))
}

func TestEachCatalogBoundHasItsOwnRefusal(t *testing.T) {
	many := make([]MCPTool, MaxCatalogTools+1)
	for i := range many {
		many[i] = tool("t" + itoa(i))
	}
	big := strings.Repeat("x", MaxDefinitionBytes)
	half := strings.Repeat("y", MaxDefinitionBytes-200)
	var heavy []MCPTool
	for i := 0; i < 9; i++ {
		heavy = append(heavy, MCPTool{Name: "h" + itoa(i), Description: half, InputSchema: map[string]any{}})
	}
	var wide []MCPTool
	for i := 0; i < 60; i++ {
		wide = append(wide, tool(strings.Repeat("w", 150)+itoa(i)))
	}
	for _, c := range []struct {
		servers []MCPServer
		bound   Bound
	}{
		{[]MCPServer{server("abcd", many...)}, BoundToolCount},
		{[]MCPServer{server("ab_cd", tool("x"))}, BoundNamespace},
		{[]MCPServer{server("", tool("x"))}, BoundNamespace},
		{[]MCPServer{server("abcd"), server("abcd")}, BoundNamespace},
		{[]MCPServer{{Name: "abcd", Command: "abcd"}}, BoundNamespace},
		{[]MCPServer{server("abcd", tool("a b"))}, BoundName},
		{[]MCPServer{server("abcd", tool("x"), tool("x"))}, BoundName},
		{[]MCPServer{server("abcd", tool(""))}, BoundName},
		{[]MCPServer{server("abcd", tool(strings.Repeat("n", MaxToolNameBytes)))}, BoundNameBytes},
		{[]MCPServer{server("abcd", MCPTool{Name: "big", Description: big, InputSchema: map[string]any{}})}, BoundDefinitionBytes},
		{[]MCPServer{server("abcd", heavy...)}, BoundTotalBytes},
		{[]MCPServer{server("abcd", wide...)}, BoundArgvBytes},
	} {
		_, err := BuildCatalog(c.servers)
		var ce *CatalogError
		assert.Assert(t, errors.As(err, &ce), "%s: %v", c.bound, err)
		assert.Check(t, is.Equal(ce.Bound, c.bound))
	}
}

func TestAnUnexpectedErrorIsNotRewrittenAsARefusal(t *testing.T) {
	_, err := BuildCatalog([]MCPServer{server("abcd", MCPTool{Name: "nan", InputSchema: math.NaN()})})
	assert.Assert(t, err != nil)
	var ce *CatalogError
	assert.Check(t, !errors.As(err, &ce), "an encoding fault is an error, not a bound: %v", err)
}

func TestEveryCauseHasAReasonAndASentence(t *testing.T) {
	seen := map[Cause]bool{}
	for _, c := range Causes() {
		assert.Check(t, !seen[c], c)
		seen[c] = true
		assert.Check(t, c.Valid())
		assert.Check(t, c.Reason().Valid(), c)
		assert.Check(t, !strings.Contains(c.Sentence(), "cause \""), c)
		assert.Check(t, !strings.HasSuffix(c.Sentence(), "."), c)
	}
	assert.Check(t, is.Equal(CauseNoTerminal.Reason(), review.Unparsable))
	assert.Check(t, is.Equal(CauseAuth.Reason(), review.Refused))
	assert.Check(t, is.Equal(CauseSilence.Reason(), review.Timeout))
	assert.Check(t, is.Equal(CauseInterrupted.Reason(), review.Interrupted))
	assert.Check(t, CauseOpenToolCall.Protocol() && !CauseAuth.Protocol())
	assert.Check(t, !Cause("teapot").Valid())
	for _, r := range review.Roles() {
		want := PolicyRead
		if r == review.Implementer {
			want = PolicyImplement
		}
		assert.Check(t, is.Equal(PolicyFor(r), want))
	}
}

func TestAReceiptIsChecked(t *testing.T) {
	ok := Receipt{Runner: "cc", CLI: Claude, CLIVersion: "2.1.332", ModelsReported: []string{"claude-x"}, TerminalEvent: "result",
		TerminalReason: "success", Outcome: Completed, ExitCode: 0, ModelAsked: "claude-x", Commits: []string{}}
	assert.NilError(t, ok.Check())
	var o Outcome
	o.Receipt = ok
	o.Fail(Failf(CauseNoTerminal, "the stream ended at http://127.0.0.1:1/x\nwith\x1b[31m no result"))
	assert.Check(t, is.Equal(o.Receipt.Outcome, Failed))
	assert.Check(t, is.Equal(o.Receipt.Reason, Reason(review.Unparsable)))
	assert.Check(t, !strings.Contains(o.Receipt.Detail, "://"))
	assert.NilError(t, o.Receipt.Check())
	o.Fail(Failf(CauseAuth, "later"))
	assert.Check(t, is.Equal(o.Receipt.Cause, CauseNoTerminal), "the first failure stands")
	long := Plain(strings.Repeat("é", 500))
	assert.Check(t, len(long) <= MaxDetailBytes)
	for _, broken := range []Receipt{
		{Runner: "cc", CLI: Claude, Outcome: Completed},
		{Runner: "cc", CLI: Claude, Outcome: Failed, Cause: "teapot"},
		{Runner: "cc", CLI: Claude, Outcome: Failed, Cause: CauseAuth, Reason: Reason(review.Timeout)},
		{Runner: "", CLI: Claude, Outcome: Completed, TerminalEvent: "result"},
		{Runner: "cc", CLI: "cursor", Outcome: Completed, TerminalEvent: "result"},
		{Runner: "cc", CLI: Claude, Outcome: Completed, TerminalEvent: "result", ExitCode: 300},
		{Runner: "cc", CLI: Claude, Outcome: Completed, TerminalEvent: "result", Detail: "see http://x"},
		{Runner: "cc", CLI: Claude, Outcome: Completed, TerminalEvent: "result", SessionID: "a\nb"},
		{Runner: "cc", CLI: Claude, Outcome: "maybe", TerminalEvent: "result"},
		{Runner: "cc", CLI: Claude, Outcome: Completed, TerminalEvent: "result", Commits: []string{"HEAD"}},
		{Runner: "cc", CLI: Claude, Outcome: Completed, TerminalEvent: "result", Commits: []string{strings.Repeat("a", 40), strings.Repeat("a", 40)}},
	} {
		assert.Check(t, broken.Check() != nil, "%+v", broken)
	}
}

func TestUnsetBoundsAreFilledNeverLeftOpen(t *testing.T) {
	got := Limits{Silence: 5, APIRetries: 0}.Or(Limits{WallClock: 1, FirstEvent: 2, Silence: 3, Turns: 4, APIRetries: 9})
	assert.Check(t, is.DeepEqual(got, Limits{WallClock: 1, FirstEvent: 2, Silence: 5, Turns: 4, APIRetries: 0}))
	want := DefaultLimits()
	want.APIRetries = 0
	assert.Check(t, is.DeepEqual(Limits{}.Or(DefaultLimits()), want))
}
