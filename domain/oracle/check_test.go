package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/text"
)

func inRoster(agent string) bool {
	_, ok := Proposal()[agent]
	return ok
}

func file(agents RoutingAgents) RoutingFile { return RoutingFile{SchemaVersion: 1, Agents: agents} }

func manySettings(n int) Settings {
	s := Settings{}
	for i := range n {
		s[fmt.Sprintf("k%d", i)] = `1`
	}
	return s
}

func TestCheckTableRefuses(t *testing.T) {
	tests := []struct {
		name      string
		file      RoutingFile
		agent     string
		field     string
		wantInMsg []string
	}{
		{"schema version 0", RoutingFile{Agents: RoutingAgents{}}, "", "schema_version", []string{"version 1"}},
		{"schema version 2", RoutingFile{SchemaVersion: 2}, "", "schema_version", []string{"is 2"}},
		{"tier missing", file(RoutingAgents{"intent-auditor": {FanOut: 1}}), "intent-auditor", "tier", []string{"required", TierList()}},
		{"tier outside the set", file(RoutingAgents{"intent-auditor": {Tier: "premium"}}), "intent-auditor", "tier", []string{`"premium"`, TierList()}},
		{"tier wrong case", file(RoutingAgents{"intent-auditor": {Tier: "Frontier"}}), "intent-auditor", "tier", []string{TierList()}},
		{"negative fan_out", file(RoutingAgents{"intent-auditor": {Tier: Local, FanOut: -1}}), "intent-auditor", "fan_out", []string{"-1", "below 0"}},
		{"17 settings", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: manySettings(17)}}), "intent-auditor", "settings", []string{"17", "16"}},
		{"key uppercase", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"Temp": `1`}}}), "intent-auditor", "settings", []string{`"Temp"`}},
		{"key starts with a digit", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"1temp": `1`}}}), "intent-auditor", "settings", []string{`"1temp"`}},
		{"key with a dash", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"max-tokens": `1`}}}), "intent-auditor", "settings", []string{`"max-tokens"`}},
		{"key 65 bytes", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k" + strings.Repeat("a", 64): `1`}}}), "intent-auditor", "settings", []string{"not a setting key"}},
		{"empty key", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"": `1`}}}), "intent-auditor", "settings", []string{`""`}},
		{"value null", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": `null`}}}), "intent-auditor", "settings.k", []string{"string, a number or a boolean"}},
		{"value object", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": `{}`}}}), "intent-auditor", "settings.k", []string{"string, a number or a boolean"}},
		{"value array", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": `[1]`}}}), "intent-auditor", "settings.k", []string{"string, a number or a boolean"}},
		{"value empty text", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": ``}}}), "intent-auditor", "settings.k", []string{"no value"}},
		{"value with whitespace around", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": ` 1`}}}), "intent-auditor", "settings.k", []string{"string, a number or a boolean"}},
		{"value two strings", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": `"a" "b"`}}}), "intent-auditor", "settings.k", []string{"JSON string"}},
		{"value 257 bytes", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": Scalar(`"` + strings.Repeat("a", 257) + `"`)}}}), "intent-auditor", "settings.k", []string{"257 bytes", "256"}},
		{"value over 256 bytes once decoded", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": Scalar(`"` + strings.Repeat(`\u00e9`, 129) + `"`)}}}), "intent-auditor", "settings.k", []string{"258 bytes"}},
		{"value invalid UTF-8", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": Scalar("\"a\xffb\"")}}}), "intent-auditor", "settings.k", []string{"UTF-8"}},
		// A setting a provider takes, with a value it refuses: every provider step would fall back.
		{"temperature as a string", file(RoutingAgents{"security-reviewer": {Tier: Economy, Settings: Settings{"temperature": `"0.2"`}}}), "security-reviewer", "settings.temperature", []string{`"0.2"`, "takes a number from 0 to 2"}},
		{"temperature out of range", file(RoutingAgents{"security-reviewer": {Tier: Economy, Settings: Settings{"temperature": `3`}}}), "security-reviewer", "settings.temperature", []string{"value 3 takes a number from 0 to 2"}},
		{"max_tokens as a string", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"max_tokens": `"100"`}}}), "intent-auditor", "settings.max_tokens", []string{"whole number"}},
		{"max_tokens a fraction", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"max_tokens": `1.5`}}}), "intent-auditor", "settings.max_tokens", []string{"whole number"}},
		{"top_p a boolean", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": `1`, "top_p": `true`}}}), "intent-auditor", "settings.top_p", []string{"from 0 to 1"}},
		{"stop a number", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"stop": `7`}}}), "intent-auditor", "settings.stop", []string{"stop"}},
		{"a bad row is refused before a later good one", file(RoutingAgents{"intent-auditor": {Tier: "x"}, "security-reviewer": {Tier: Local}}), "intent-auditor", "tier", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table, notices, err := CheckTable("repo.json", tc.file, inRoster)
			var re *RowError
			if !errors.As(err, &re) {
				t.Fatalf("CheckTable = %v, %v, %v; want a *RowError", table, notices, err)
			}
			if table != nil || notices != nil {
				t.Errorf("a refused file returned rows %v and notices %v", table, notices)
			}
			if re.Origin != "repo.json" || re.Agent != tc.agent || re.Field != tc.field {
				t.Errorf("RowError = %+v, want origin repo.json, agent %q, field %q", re, tc.agent, tc.field)
			}
			for _, w := range tc.wantInMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err.Error(), w)
				}
			}
		})
	}
}

// TestCheckTableHiddenCharacters refuses every control, bidirectional-control and zero-width
// character in a value, whether written raw or as a JSON escape.
func TestCheckTableHiddenCharacters(t *testing.T) {
	var runes []rune
	for r := rune(0); r < 0x20; r++ {
		runes = append(runes, r)
	}
	runes = append(runes, 0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		runes = append(runes, r)
	}
	runes = append(runes, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c)
	runes = append(runes, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff)
	for _, r := range runes {
		raw, _ := json.Marshal("a" + string(r) + "b") // escapes C0 as \u00XX, writes the rest raw
		escaped := Scalar(fmt.Sprintf(`"a\u%04xb"`, r))
		for _, v := range []Scalar{Scalar(raw), escaped} {
			_, _, err := CheckTable("m.json", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": v}}}), inRoster)
			var re *RowError
			if !errors.As(err, &re) || re.Field != "settings.k" || !strings.Contains(re.Msg, fmt.Sprintf("U+%04X", r)) {
				t.Errorf("value %q: err = %v, want a refusal naming U+%04X", v, err, r)
			}
			if err != nil && strings.ContainsRune(err.Error(), r) {
				t.Errorf("value %q: the refusal echoes the hidden character raw", v)
			}
		}
	}
	// Neighbours of the refused ranges are fine.
	for _, r := range []rune{' ', '~', 0xa0, 0xe9, 0x2029, 0x2010, 0x2065, 0x206a, 0x200a, 0x2061, 0xfffd, 0x1f600} {
		v := Scalar(fmt.Sprintf(`"a%cb"`, r))
		if _, _, err := CheckTable("m.json", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: Settings{"k": v}}}), inRoster); err != nil {
			t.Errorf("value %q refused: %v", v, err)
		}
	}
}

func TestCheckTableAccepts(t *testing.T) {
	tests := []struct {
		name        string
		agents      RoutingAgents
		want        Table
		wantNotices []Notice
	}{
		{"empty table", RoutingAgents{}, Table{}, nil},
		{"nil agents", nil, Table{}, nil},
		{"fan_out absent means the ceiling",
			RoutingAgents{"intent-auditor": {Tier: Economy}},
			Table{"intent-auditor": {Tier: Economy, FanOut: Ceiling}}, nil},
		{"fan_out at the ceiling",
			RoutingAgents{"intent-auditor": {Tier: Local, FanOut: 1}},
			Table{"intent-auditor": {Tier: Local, FanOut: 1}}, nil},
		{"fan_out above the ceiling is reported and clamped",
			RoutingAgents{"intent-auditor": {Tier: Local, FanOut: 8}},
			Table{"intent-auditor": {Tier: Local, FanOut: Ceiling}},
			[]Notice{{Origin: "r.json", Agent: "intent-auditor", Message: "agent intent-auditor: fan_out 8 is above the contract ceiling 1; clamped to 1"}}},
		{"an orphan row is reported and skipped; the rest apply",
			RoutingAgents{"graveyard-interpreter": {Tier: Economy}, "intent-auditor": {Tier: HostDecides}},
			Table{"intent-auditor": {Tier: HostDecides, FanOut: 1}},
			[]Notice{{Origin: "r.json", Agent: "graveyard-interpreter", Message: `agent "graveyard-interpreter" is not in the roster; row skipped`}}},
		{"an orphan row is skipped whatever it holds",
			RoutingAgents{"old-agent": {Tier: "nonsense", FanOut: -3, Settings: Settings{"BAD": `null`}}},
			Table{},
			[]Notice{{Origin: "r.json", Agent: "old-agent", Message: `agent "old-agent" is not in the roster; row skipped`}}},
		{"a malformed agent name is an orphan",
			RoutingAgents{"Intent Auditor\u202e": {Tier: Local}},
			Table{},
			[]Notice{{Origin: "r.json", Agent: "Intent Auditor\u202e", Message: `agent "Intent Auditor\u202e" is not in the roster; row skipped`}}},
		{"notices come in agent order",
			RoutingAgents{"zz": {Tier: Local}, "aa": {Tier: Local}, "security-reviewer": {Tier: Frontier, FanOut: 2}},
			Table{"security-reviewer": {Tier: Frontier, FanOut: 1}},
			[]Notice{
				{Origin: "r.json", Agent: "aa", Message: `agent "aa" is not in the roster; row skipped`},
				{Origin: "r.json", Agent: "security-reviewer", Message: "agent security-reviewer: fan_out 2 is above the contract ceiling 1; clamped to 1"},
				{Origin: "r.json", Agent: "zz", Message: `agent "zz" is not in the roster; row skipped`},
			}},
		{"settings of every kind, 16 of them, 256 bytes",
			RoutingAgents{"intent-auditor": {Tier: Frontier, Settings: Settings{
				"temperature": `0.2`, "max_tokens": `1e3`, "stream": `false`, "seed": `0`, "effort": `"high"`,
				"long": Scalar(`"` + strings.Repeat("é", 128) + `"`), "k1": `1`, "k2": `1`, "k3": `1`, "k4": `1`,
				"k5": `1`, "k6": `1`, "k7": `1`, "k8": `1`, "k9": `1`, "a" + strings.Repeat("b", 63): `true`,
			}}},
			Table{"intent-auditor": {Tier: Frontier, FanOut: 1, Settings: Settings{
				"temperature": `0.2`, "max_tokens": `1e3`, "stream": `false`, "seed": `0`, "effort": `"high"`,
				"long": Scalar(`"` + strings.Repeat("é", 128) + `"`), "k1": `1`, "k2": `1`, "k3": `1`, "k4": `1`,
				"k5": `1`, "k6": `1`, "k7": `1`, "k8": `1`, "k9": `1`, "a" + strings.Repeat("b", 63): `true`,
			}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table, notices, err := CheckTable("r.json", file(tc.agents), inRoster)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(table, tc.want) {
				t.Errorf("table = %#v\nwant    %#v", table, tc.want)
			}
			if !reflect.DeepEqual(notices, tc.wantNotices) {
				t.Errorf("notices = %#v\nwant      %#v", notices, tc.wantNotices)
			}
		})
	}
}

func TestCheckTableKnownNilKnowsEveryName(t *testing.T) {
	table, notices, err := CheckTable("r.json", file(RoutingAgents{"any-agent": {Tier: Local}, "Bad": {Tier: Local}}), nil)
	if err != nil || len(table) != 1 || table["any-agent"].Tier != Local || len(notices) != 1 || notices[0].Agent != "Bad" {
		t.Errorf("CheckTable(known=nil) = %v, %v, %v", table, notices, err)
	}
}

// TestCheckTableEchoIsBounded: keys, values and agent names echoed in messages are cut to 80 bytes
// on a rune boundary, with "…".
func TestCheckTableEchoIsBounded(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes; a cut at 80 bytes falls on a rune boundary only by care
	longOdd := "x" + long            // a cut at 80 bytes would split a rune
	for _, tc := range []struct {
		name  string
		agent string
		row   Row
		echo  string
	}{
		{"orphan agent", longOdd, Row{Tier: Local}, longOdd},
		{"tier", "intent-auditor", Row{Tier: Tier(longOdd)}, longOdd},
		{"key", "intent-auditor", Row{Tier: Local, Settings: Settings{longOdd: `1`}}, longOdd},
		{"value", "intent-auditor", Row{Tier: Local, Settings: Settings{"k": Scalar(`"` + longOdd + long + `"`)}}, longOdd + long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, notices, err := CheckTable("r.json", file(RoutingAgents{tc.agent: tc.row}), inRoster)
			var msg string
			switch {
			case err != nil:
				msg = err.Error()
			case len(notices) == 1:
				msg = notices[0].Message
				if len(notices[0].Agent) > 80+len("…") {
					t.Errorf("Notice.Agent is %d bytes", len(notices[0].Agent))
				}
			default:
				t.Fatalf("no message: %v %v", notices, err)
			}
			want := `"` + text.Prefix(tc.echo, 80) + `…"`
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks the bounded echo %q", msg, want)
			}
			if strings.Contains(msg, tc.echo[:100]) {
				t.Errorf("message echoes more than 80 bytes")
			}
			if !strings.Contains(msg, "x"+strings.Repeat("é", 39)+"…") {
				t.Errorf("message %q does not cut on a rune boundary", msg)
			}
		})
	}
}

// TestCheckTableFromJSON reads a routing file as its JSON text would arrive.
func TestCheckTableFromJSON(t *testing.T) {
	const text = `{"schema_version": 1, "agents": {
		"ruthless-reviewer": {"tier": "economy", "fan_out": 3, "settings": {"temperature": 0.2, "effort": "high", "stream": true}},
		"lifeboat-reviewer": {"tier": "frontier"}
	}}`
	var f RoutingFile
	if err := json.Unmarshal([]byte(text), &f); err != nil {
		t.Fatal(err)
	}
	table, notices, err := CheckTable(".abcd/config/oracle-routing.json", f, inRoster)
	if err != nil {
		t.Fatal(err)
	}
	want := Table{"ruthless-reviewer": {Tier: Economy, FanOut: 1, Settings: Settings{"temperature": `0.2`, "effort": `"high"`, "stream": `true`}}}
	if !reflect.DeepEqual(table, want) {
		t.Errorf("table = %#v, want %#v", table, want)
	}
	var lines []string
	for _, n := range notices {
		lines = append(lines, n.String())
	}
	wantLines := []string{
		`.abcd/config/oracle-routing.json: agent "lifeboat-reviewer" is not in the roster; row skipped`,
		".abcd/config/oracle-routing.json: agent ruthless-reviewer: fan_out 3 is above the contract ceiling 1; clamped to 1",
	}
	if !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("notices = %q, want %q", lines, wantLines)
	}
}

// TestCheckTableDoesNotAlias: the accepted table does not share settings maps with the file.
func TestCheckTableDoesNotAlias(t *testing.T) {
	s := Settings{"k": `1`}
	table, _, err := CheckTable("r.json", file(RoutingAgents{"intent-auditor": {Tier: Local, Settings: s}}), inRoster)
	if err != nil {
		t.Fatal(err)
	}
	s["k"] = `2`
	if table["intent-auditor"].Settings["k"] != `1` {
		t.Error("the accepted row shares its settings with the file")
	}
}
