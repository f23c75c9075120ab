package oracle

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRequest(t *testing.T) {
	r := Route{
		Agent: "ruthless-reviewer", Row: Row{Tier: Frontier, FanOut: 1}, Connection: Harness(),
		Fallback: "no configured connection serves tier frontier; the harness takes the step",
		Source:   SourceFlag, Origin: "--route", Override: "ruthless-reviewer=frontier", Settings: Settings{},
	}
	want := RequestRouting{Agent: "ruthless-reviewer", Tier: Frontier, FanOut: 1, Source: SourceFlag, Origin: "--route",
		Override: "ruthless-reviewer=frontier", Connection: "host", Fallback: r.Fallback}
	if got := r.Request(); got != want {
		t.Errorf("Request() = %+v, want %+v", got, want)
	}
	// Every member is present, even empty.
	data, err := json.Marshal(Route{Agent: "intent-auditor", Row: Row{Tier: HostDecides, FanOut: 1}, Connection: Harness(), Source: SourceNone}.Request())
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"agent":"intent-auditor","tier":"host-decides","fan_out":1,"source":"none","origin":"","override":"","connection":"host","fallback":""}`
	if string(data) != wantJSON {
		t.Errorf("JSON = %s\nwant   %s", data, wantJSON)
	}
}

func TestReceipt(t *testing.T) {
	r := Route{
		Agent: "intent-auditor", Row: Row{Tier: Economy, FanOut: 1}, Connection: openrouter, Source: SourceRepository,
		Origin: "repo.json", Settings: Settings{"temperature": `0.2`},
	}
	got := r.Receipt("openrouter", "openrouter", "", "gpt-x")
	want := Receipt{Agent: "intent-auditor", TierAsked: Economy, ConnectionTried: "openrouter", ConnectionUsed: "openrouter",
		SettingsSent: Settings{"temperature": `0.2`}, ModelReported: "gpt-x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Receipt = %+v, want %+v", got, want)
	}
	got.SettingsSent["temperature"] = `1`
	if r.Settings["temperature"] != `0.2` {
		t.Error("the receipt shares its settings with the route")
	}

	// A fallback: the route's reason unless the caller gives one; the override verbatim.
	fb := Route{Agent: "ruthless-reviewer", Row: Row{Tier: Frontier, FanOut: 1}, Connection: Harness(),
		Fallback: "no configured connection serves tier frontier; the harness takes the step", Source: SourceFlag, Override: "ruthless-reviewer=frontier"}
	if got := fb.Receipt("", "host", "", ""); got.FallbackReason != fb.Fallback || got.Override != fb.Override || got.SettingsSent == nil {
		t.Errorf("Receipt = %+v", got)
	}
	if got := fb.Receipt("openrouter", "host", "openrouter timed out", ""); got.FallbackReason != "openrouter timed out" {
		t.Errorf("FallbackReason = %q", got.FallbackReason)
	}

	// Every member is present, settings_sent an object, never null.
	data, err := json.Marshal(Route{Agent: "intent-auditor", Row: Row{Tier: HostDecides, FanOut: 1}}.Receipt("", "host", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"agent":"intent-auditor","tier_asked":"host-decides","connection_tried":"","connection_used":"host","fallback_reason":"","override":"","settings_sent":{},"model_reported":""}`
	if string(data) != wantJSON {
		t.Errorf("JSON = %s\nwant   %s", data, wantJSON)
	}
}

func TestReceiptBoundsModelReported(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "claude-opus", "claude-opus"},
		{"exactly 200", strings.Repeat("m", 200), strings.Repeat("m", 200)},
		{"201", strings.Repeat("m", 201), strings.Repeat("m", 197) + "…"},
		{"multibyte cut on a rune boundary", "m" + strings.Repeat("é", 150), "m" + strings.Repeat("é", 98) + "…"},
		{"invalid UTF-8 replaced", "gpt\xff", "gpt\uFFFD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Route{}.Receipt("", "", "", tc.in).ModelReported
			if got != tc.want {
				t.Errorf("ModelReported = %q, want %q", got, tc.want)
			}
			if len(got) > MaxModelReported || !utf8.ValidString(got) {
				t.Errorf("ModelReported is %d bytes (valid UTF-8: %v)", len(got), utf8.ValidString(got))
			}
		})
	}
}

// TestJSONSchemaTags guards the tags the schema generator reads: its tag parser splits on commas, so
// a comma inside a value (a pattern's {0,63}) would silently cut it.
func TestJSONSchemaTags(t *testing.T) {
	known := map[string]bool{"enum": true, "pattern": true, "maxLength": true, "minLength": true, "minimum": true, "maximum": true}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[RoutingFile](), reflect.TypeFor[Row](), reflect.TypeFor[Receipt](),
		reflect.TypeFor[RequestRouting](), reflect.TypeFor[Notice](), reflect.TypeFor[Connection](),
	} {
		for f := range typ.Fields() {
			tag, ok := f.Tag.Lookup("jsonschema")
			if !ok {
				continue
			}
			for part := range strings.SplitSeq(tag, ",") {
				k, v, ok := strings.Cut(part, "=")
				if !ok || !known[k] || v == "" {
					t.Errorf("%s.%s: jsonschema tag %q has the part %q, which is not a known key=value", typ.Name(), f.Name, tag, part)
				}
				if k == "pattern" && (!strings.HasPrefix(v, "^") || !strings.HasSuffix(v, "$")) {
					t.Errorf("%s.%s: pattern %q is not anchored (or a comma cut it)", typ.Name(), f.Name, v)
				}
			}
		}
	}
}
