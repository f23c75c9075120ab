package oracle

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

var dispatchAll = []string{"intent-auditor", "ruthless-reviewer", "security-reviewer"}

func configuredOpenRouter(conn string) bool { return conn == "openrouter" || conn == "local-llm" }

func TestParseRoutesAccepts(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  map[string]FlagRoute
	}{
		{"no flags", nil, map[string]FlagRoute{}},
		{"a tier", []string{"intent-auditor=frontier"},
			map[string]FlagRoute{"intent-auditor": {Agent: "intent-auditor", Tier: Frontier, Text: "intent-auditor=frontier"}}},
		{"every tier", []string{"intent-auditor=local", "ruthless-reviewer=economy", "security-reviewer=host-decides"},
			map[string]FlagRoute{
				"intent-auditor":    {Agent: "intent-auditor", Tier: Local, Text: "intent-auditor=local"},
				"ruthless-reviewer": {Agent: "ruthless-reviewer", Tier: Economy, Text: "ruthless-reviewer=economy"},
				"security-reviewer": {Agent: "security-reviewer", Tier: HostDecides, Text: "security-reviewer=host-decides"},
			}},
		{"a connection", []string{"intent-auditor=economy@openrouter"},
			map[string]FlagRoute{"intent-auditor": {Agent: "intent-auditor", Tier: Economy, Connection: "openrouter", Text: "intent-auditor=economy@openrouter"}}},
		{"settings typed as strings, numbers and booleans",
			[]string{"ruthless-reviewer=frontier@local-llm?temperature=0.2,max_tokens=-1e3,stream=false,effort=high,seed=01,tag=a<b&c,eq=x=y,cap=True"},
			map[string]FlagRoute{"ruthless-reviewer": {Agent: "ruthless-reviewer", Tier: Frontier, Connection: "local-llm",
				Text: "ruthless-reviewer=frontier@local-llm?temperature=0.2,max_tokens=-1e3,stream=false,effort=high,seed=01,tag=a<b&c,eq=x=y,cap=True",
				Settings: Settings{"temperature": `0.2`, "max_tokens": `-1e3`, "stream": `false`, "effort": `"high"`,
					"seed": `"01"`, "tag": `"a<b&c"`, "eq": `"x=y"`, "cap": `"True"`}}}},
		{"a string value with a quote and a backslash", []string{`intent-auditor=local?note=say "hi"\n`},
			map[string]FlagRoute{"intent-auditor": {Agent: "intent-auditor", Tier: Local, Text: `intent-auditor=local?note=say "hi"\n`,
				Settings: Settings{"note": `"say \"hi\"\\n"`}}}},
		{"16 settings", []string{"intent-auditor=local?a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1,j=1,k=1,l=1,m=1,n=1,o=1,p=1"}, nil},
		{"1024 bytes", []string{"intent-auditor=local?note=" + strings.Repeat("x", 256) + ",n2=" + strings.Repeat("y", 256) +
			",n3=" + strings.Repeat("z", 256) + ",n4=" + strings.Repeat("w", 1024-26-256*3-12)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRoutes(tc.flags, dispatchAll, configuredOpenRouter)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("ParseRoutes returned a nil map")
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
			if len(got) != len(tc.flags) {
				t.Errorf("%d routes from %d flags", len(got), len(tc.flags))
			}
			for agent, fr := range got {
				if field, msg := checkSettings(fr.Settings); msg != "" {
					t.Errorf("%s: %s %s", agent, field, msg)
				}
			}
		})
	}
}

func TestParseRoutesRefuses(t *testing.T) {
	long := "intent-auditor=local?note=" + strings.Repeat("x", 1024)
	tests := []struct {
		name       string
		flags      []string
		dispatches []string
		wantInMsg  []string
	}{
		{"over 1024 bytes", []string{long}, dispatchAll, []string{"1050 bytes", "1024"}},
		{"1025 bytes", []string{"intent-auditor=local?note=" + strings.Repeat("x", 999)}, dispatchAll, []string{"1025 bytes"}},
		{"not UTF-8", []string{"intent-auditor=local?note=\xff"}, dispatchAll, []string{"UTF-8"}},
		{"no =", []string{"intent-auditor"}, dispatchAll, []string{"bad syntax"}},
		{"empty", []string{""}, dispatchAll, []string{"bad syntax"}},
		{"empty agent", []string{"=frontier"}, dispatchAll, []string{"names no agent"}},
		{"malformed agent", []string{"Intent_Auditor=frontier"}, dispatchAll, []string{`"Intent_Auditor"`, "not an agent name"}},
		{"agent 65 bytes", []string{"a" + strings.Repeat("b", 64) + "=frontier"}, dispatchAll, []string{"not an agent name"}},
		{"empty tier", []string{"intent-auditor="}, dispatchAll, []string{"no tier", TierList()}},
		{"empty tier before @", []string{"intent-auditor=@openrouter"}, dispatchAll, []string{"no tier", TierList()}},
		{"tier outside the set", []string{"intent-auditor=premium"}, dispatchAll, []string{`"premium"`, TierList()}},
		{"tier in the wrong case", []string{"intent-auditor=Frontier"}, dispatchAll, []string{TierList()}},
		{"empty connection", []string{"intent-auditor=frontier@"}, dispatchAll, []string{"empty connection"}},
		{"empty connection before ?", []string{"intent-auditor=frontier@?k=v"}, dispatchAll, []string{"empty connection"}},
		{"two connections", []string{"intent-auditor=frontier@openrouter@local-llm"}, dispatchAll, []string{"bad syntax"}},
		{"= in the connection", []string{"intent-auditor=frontier@open=router"}, dispatchAll, []string{"bad syntax"}},
		{"? with nothing after", []string{"intent-auditor=frontier?"}, dispatchAll, []string{"no setting"}},
		{"a setting without =", []string{"intent-auditor=frontier?stream"}, dispatchAll, []string{`"stream"`, "not k=v"}},
		{"a setting with no value", []string{"intent-auditor=frontier?stream="}, dispatchAll, []string{"not k=v"}},
		{"a setting with no key", []string{"intent-auditor=frontier?=1"}, dispatchAll, []string{"not k=v"}},
		{"an empty setting", []string{"intent-auditor=frontier?a=1,,b=2"}, dispatchAll, []string{`""`, "not k=v"}},
		{"a bad key", []string{"intent-auditor=frontier?Max-Tokens=1"}, dispatchAll, []string{`"Max-Tokens"`, "not a setting key"}},
		{"a setting given twice", []string{"intent-auditor=frontier?a=1,a=2"}, dispatchAll, []string{"a is given twice"}},
		{"17 settings", []string{"intent-auditor=local?a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1,j=1,k=1,l=1,m=1,n=1,o=1,p=1,q=1"}, dispatchAll, []string{"17 settings"}},
		{"a value over 256 bytes", []string{"intent-auditor=local?note=" + strings.Repeat("x", 257)}, dispatchAll, []string{"257 bytes"}},
		{"a value with a control character", []string{"intent-auditor=local?note=a\tb"}, dispatchAll, []string{"U+0009"}},
		{"a value with a bidi control", []string{"intent-auditor=local?note=a\u202eb"}, dispatchAll, []string{"U+202E"}},
		{"a value with a zero-width character", []string{"intent-auditor=local?note=a\u200bb"}, dispatchAll, []string{"U+200B"}},
		{"an agent this invocation does not dispatch", []string{"security-reviewer=frontier"}, []string{"intent-auditor"},
			[]string{"this invocation dispatches intent-auditor, not security-reviewer"}},
		{"an agent, two dispatched", []string{"security-reviewer=frontier"}, []string{"intent-auditor", "ruthless-reviewer"},
			[]string{"this invocation dispatches intent-auditor, ruthless-reviewer, not security-reviewer"}},
		{"an invocation that dispatches nothing", []string{"security-reviewer=frontier"}, nil,
			[]string{"this invocation dispatches no agent, not security-reviewer"}},
		{"an agent routed twice", []string{"intent-auditor=frontier", "intent-auditor=economy"}, dispatchAll,
			[]string{`"intent-auditor=economy"`, "routed twice"}},
		{"a connection not configured", []string{"intent-auditor=frontier@groq"}, dispatchAll,
			[]string{`"groq"`, "not configured on this machine", "configure it in $ABCD_HOME/config.json under oracle.api.groq"}},
		{"the second flag is refused after a good first", []string{"intent-auditor=frontier", "ruthless-reviewer=nope"}, dispatchAll,
			[]string{`"ruthless-reviewer=nope"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRoutes(tc.flags, tc.dispatches, configuredOpenRouter)
			var re *RouteError
			if !errors.As(err, &re) {
				t.Fatalf("ParseRoutes = %v, %v; want a *RouteError", got, err)
			}
			if got != nil {
				t.Errorf("a refusal returned routes %v", got)
			}
			msg := err.Error()
			if !strings.Contains(msg, RouteGrammar) {
				t.Errorf("message %q does not quote the grammar", msg)
			}
			if len(re.Flag) > 80+len("…") {
				t.Errorf("RouteError.Flag is %d bytes, over the bound", len(re.Flag))
			}
			for _, w := range tc.wantInMsg {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestParseRoutesNilConfiguredConfiguresNothing(t *testing.T) {
	if _, err := ParseRoutes([]string{"intent-auditor=frontier@openrouter"}, dispatchAll, nil); err == nil {
		t.Error("a connection was accepted with nothing configured")
	}
	if _, err := ParseRoutes([]string{"intent-auditor=frontier"}, dispatchAll, nil); err != nil {
		t.Errorf("a flag without a connection was refused: %v", err)
	}
}

// TestRouteErrorQuotesTheFlagBounded: a long flag is quoted cut on a rune boundary, with "…".
func TestRouteErrorQuotesTheFlagBounded(t *testing.T) {
	flag := "intent-auditor=premium?note=" + strings.Repeat("é", 100)
	_, err := ParseRoutes([]string{flag}, dispatchAll, nil)
	var re *RouteError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
	want := text.Prefix(flag, 80) + "…"
	if re.Flag != want || !strings.HasPrefix(err.Error(), `--route "`+want+`": `) {
		t.Errorf("Flag %q, message %q; want the flag cut to %q", re.Flag, err.Error(), want)
	}
}

func TestRouteTextChecksOnlyItsSyntax(t *testing.T) {
	for in, want := range map[string]string{
		"ruthless-reviewer=frontier":           "",
		"nobody=local@somewhere?temperature=1": "", // dispatch and configuration are ParseRoutes' to check
		"ruthless-reviewer=mega":               "route_invalid",
		"=frontier":                            "route_invalid",
		"ruthless-reviewer":                    "route_invalid",
		strings.Repeat("r", MaxRouteBytes+1):   "route_invalid",
	} {
		var r RouteText
		err := r.UnmarshalText([]byte(in))
		got := ""
		if re, ok := refusal.As(err); ok {
			got = string(re.Code)
			if !strings.Contains(re.Remedy.String(), RouteGrammar) {
				t.Errorf("%q: the remedy does not quote the grammar: %s", in, re.Remedy)
			}
		} else if err != nil {
			got = "not a refusal"
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
