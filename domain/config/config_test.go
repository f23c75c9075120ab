package config

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/text"
)

func TestCheckStrictRefusals(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"not json", `{"a":`, "is not JSON"},
		{"an array", `[1]`, "must hold one JSON object"},
		{"a string", `"x"`, "must hold one JSON object"},
		{"duplicate at top", `{"a":1,"a":2}`, `names the key "a" twice`},
		{"duplicate at depth", `{"oracle":{"rp":{"url":"x","url":"y"}}}`, `names the key "oracle.rp.url" twice`},
		{"duplicate inside an array's object", `{"a":[{"b":1,"b":2}]}`, `names the key "a.b" twice`},
		{"trailing content", `{"a":1} {"b":2}`, "has content after its object"},
		{"trailing garbage", `{"a":1}x`, "has content after its object"},
		{"invalid utf-8", "{\"a\":\"\xff\"}", "is not valid UTF-8"},
		{"too deep", strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40), "nests deeper than 32 levels"},
		{"too large", `{"a":"` + strings.Repeat("x", MaxFileBytes) + `"}`, "is larger than"},
		{"unterminated", `{"a":1`, "is not JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckStrict("f.json", []byte(c.data))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("want a FileError, got %v", err)
			}
			if fe.File != "f.json" || !strings.Contains(fe.Msg, c.want) {
				t.Fatalf("got %q, want it to contain %q", err, c.want)
			}
		})
	}
	if err := CheckStrict("f.json", []byte(" {\"a\":{\"b\":[1,{\"c\":2}]},\"d\":\"e\"}\n")); err != nil {
		t.Fatalf("valid file refused: %v", err)
	}
}

func TestParseConfig(t *testing.T) {
	src, err := ParseConfig(LayerRepo, "repo.json", []byte(`{"schema_version":1,"oracle":{"review":"rp"},"build":{"dod":"make test"},"setup_version":2}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"oracle.review": `"rp"`, "build.dod": `"make test"`, "setup_version": "2"}
	if len(src.Values) != len(want) {
		t.Fatalf("got %v", src.Values)
	}
	for k, v := range want {
		if string(src.Values[k]) != v {
			t.Errorf("%s = %s, want %s", k, src.Values[k], v)
		}
	}
	refusals := []struct{ data, want string }{
		{`{"oracle":{}}`, "declares no schema_version"},
		{`{"schema_version":2}`, "declares schema_version 2; this abcd reads version 1"},
		{`{"schema_version":"1"}`, `declares schema_version "1"`},
		{`{"schema_version":1,"build":{"dod":null}}`, `key "build.dod" holds null`},
		{`{"schema_version":1,"build":{"dod":["a"]}}`, `key "build.dod" holds an array`},
		{`{"schema_version":1,"a.b":1}`, `key "a.b" is not a name`},
		{`{"schema_version":1,"":1}`, `key "" is not a name`},
	}
	for _, r := range refusals {
		_, err := ParseConfig(LayerRepo, "repo.json", []byte(r.data))
		if err == nil || !strings.Contains(err.Error(), r.want) || !strings.HasPrefix(err.Error(), "repo.json: ") {
			t.Errorf("%s: got %v, want %q", r.data, err, r.want)
		}
	}
}

func TestValidateClaimsAndMachineOnlyKeys(t *testing.T) {
	src := func(layer Layer, kv ...string) Source {
		s := Source{Layer: layer, Origin: "f.json", Values: map[string]json.RawMessage{}}
		for i := 0; i < len(kv); i += 2 {
			s.Values[kv[i]] = json.RawMessage(kv[i+1])
		}
		return s
	}
	ok := []Source{
		src(LayerRepo, "oracle.review", `"rp"`, "build.dod", `"make test"`, "setup_version", "1"),
		src(LayerMachine, "oracle.rp.url", `"http://127.0.0.1:1"`, "oracle.api.local.tiers.economy", `"m"`, "oracle.roles.ruthless-reviewer.connection", `"local"`),
		src(LayerRepo, "someone_elses.key", `1`), // an unclaimed namespace is another tool's
	}
	for _, s := range ok {
		if err := Validate(s, "/home/me/.abcd/config.json"); err != nil {
			t.Errorf("refused: %v", err)
		}
	}
	bad := []struct {
		s    Source
		want string
	}{
		{src(LayerRepo, "oracle.reveiw", `"rp"`), `unknown key "oracle.reveiw": the oracle namespace takes oracle.api.*.base_url`},
		{src(LayerRepo, "build.dood", `"x"`), "the build namespace takes build.base, build.budget.minutes, build.budget.tokens, build.budget.usd, build.dod"},
		{src(LayerRepo, "color", `true`), "the top level takes setup_version"},
		{src(LayerMachine, "oracle.api.p.tiers.gigantic", `"m"`), `unknown key "oracle.api.p.tiers.gigantic"`},
		{src(LayerRepo, "oracle.rp.url", `"http://127.0.0.1:1"`), "only the machine file may declare: move it to /home/me/.abcd/config.json"},
		{src(LayerRepo, "oracle.api.p.base_url", `"https://x"`), "only the machine file may declare"},
		{src(LayerFlag, "oracle.roles.a.connection", `"p"`), "only the machine file may declare"},
	}
	for _, b := range bad {
		err := Validate(b.s, "/home/me/.abcd/config.json")
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("got %v, want %q", err, b.want)
		}
	}
}

func TestRefusalsNeverQuoteTheAddress(t *testing.T) {
	secret := "http://user:hunter2@example.com:9/x?token=abc"
	s := NewStack(nil, nil, &Source{Layer: LayerMachine, Origin: "m.json", Values: map[string]json.RawMessage{"oracle.rp.url": mustJSON(secret)}})
	_, _, err := s.Winner("oracle.rp.url")
	if err == nil {
		t.Fatal("a non-loopback address with credentials was accepted")
	}
	for _, leak := range []string{"hunter2", "example.com", "token"} {
		if strings.Contains(err.Error(), leak) {
			t.Fatalf("refusal quotes the address: %v", err)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

func TestKeyChecks(t *testing.T) {
	cases := []struct {
		key, value string
		ok         bool
	}{
		{"oracle.review", `"host"`, true},
		{"oracle.review", `"rp"`, true},
		{"oracle.review", `"api"`, false},
		{"oracle.review", `1`, false},
		{"oracle.rp.url", `"http://127.0.0.1:8765/mcp"`, true},
		{"oracle.rp.url", `"http://localhost:8765"`, true},
		{"oracle.rp.url", `"https://[::1]:8765/mcp"`, true},
		{"oracle.rp.url", `"http://10.0.0.1:8765"`, false},
		{"oracle.rp.url", `"http://127.0.0.1:8765/?a=b"`, false},
		{"oracle.rp.url", `"http://127.0.0.1:8765/#f"`, false},
		{"oracle.rp.url", `"ftp://127.0.0.1"`, false},
		{"oracle.rp.url", `"http://u:p@127.0.0.1"`, false},
		{"oracle.rp.tool", `"oracle_send"`, true},
		{"oracle.rp.tool", `"bad tool"`, false},
		{"oracle.api.p.base_url", `"https://api.example.com/v1"`, true},
		{"oracle.api.p.base_url", `"http://127.0.0.1:4010/v1"`, true},
		{"oracle.api.p.base_url", `"http://api.example.com/v1"`, false},
		{"oracle.api.p.key_env", `"OPENAI_API_KEY"`, true},
		{"oracle.api.p.key_env", `"sk-abc123"`, false},
		{"oracle.api.p.tiers.frontier", `"gpt-x"`, true},
		{"oracle.api.p.tiers.frontier", `""`, false},
		{"build.dod", `"make test"`, true},
		{"build.dod", `true`, false},
		{"build.dod_env", `["GOFLAGS","CI"]`, true},
		{"build.dod_env", `["sk-live-1234"]`, false},
		{"oracle.runner.r.sandbox", `"off"`, true},
		{"oracle.runner.r.sandbox", `"sometimes"`, false},
		{"oracle.runner.r.endpoints", `["https://gateway.example.com/v1","http://127.0.0.1:8080"]`, true},
		{"oracle.runner.r.endpoints", `["http://gateway.example.com/v1"]`, false},
		{"oracle.runner.r.endpoints", `["https://a.example.com","https://a.example.com"]`, false},
		{"oracle.runner.r.endpoints", `["https://u:p@a.example.com"]`, false},
		{"oracle.runner.r.endpoints", `["1","2","3","4","5","6","7","8","9"]`, false},
		{"setup_version", `1`, true},
		{"setup_version", `0`, false},
	}
	for _, c := range cases {
		s := NewStack(nil, nil, &Source{Layer: LayerMachine, Origin: "m.json", Values: map[string]json.RawMessage{c.key: json.RawMessage(c.value)}})
		_, _, err := s.Winner(c.key)
		if (err == nil) != c.ok {
			t.Errorf("%s = %s: err %v, want ok=%v", c.key, c.value, err, c.ok)
		}
	}
}

func TestPrecedenceAndProvenance(t *testing.T) {
	flag := FlagSource("--set oracle.review=host", map[string]string{"oracle.review": "host"})
	repo := Source{Layer: LayerRepo, Origin: "/r/.abcd/config.json", Values: map[string]json.RawMessage{"oracle.review": json.RawMessage(`"rp"`), "build.dod": json.RawMessage(`"make test"`)}}
	machine := Source{Layer: LayerMachine, Origin: "/h/config.json", Values: map[string]json.RawMessage{"oracle.review": json.RawMessage(`"rp"`), "build.dod": json.RawMessage(`"make ci"`)}}

	for _, c := range []struct {
		flag, repo, machine *Source
		layer               Layer
		value               string
	}{
		{&flag, &repo, &machine, LayerFlag, "host"},
		{nil, &repo, &machine, LayerRepo, "rp"},
		{nil, nil, &machine, LayerMachine, "rp"},
		{nil, nil, nil, LayerBundled, "host"},
	} {
		s := NewStack(c.flag, c.repo, c.machine)
		v, err := Get[string](s, "oracle.review")
		if err != nil {
			t.Fatal(err)
		}
		if v.Layer != c.layer || v.V != c.value || !v.Set {
			t.Errorf("got %s from %s, want %s from %s", v.V, v.Layer, c.value, c.layer)
		}
	}
	s := NewStack(&flag, &repo, &machine)
	found := s.Lookup("oracle.review")
	var layers []string
	for _, f := range found {
		layers = append(layers, f.Layer.String()+"@"+f.Origin)
	}
	want := []string{"flag@--set oracle.review=host", "repository@/r/.abcd/config.json", "machine@/h/config.json", "bundled@bundled default"}
	if !reflect.DeepEqual(layers, want) {
		t.Fatalf("lookup = %v, want %v", layers, want)
	}
	v, err := Get[string](s, "build.dod")
	if err != nil || v.V != "make test" || v.Origin != "/r/.abcd/config.json" {
		t.Fatalf("build.dod = %+v, %v", v, err)
	}
	none, err := Get[string](s, "oracle.rp.url")
	if err != nil || none.Set {
		t.Fatalf("unset key: %+v, %v", none, err)
	}
}

func TestABadWinningValueNeverFallsThrough(t *testing.T) {
	repo := Source{Layer: LayerRepo, Origin: "/r/.abcd/config.json", Values: map[string]json.RawMessage{"oracle.review": json.RawMessage(`"openai"`)}}
	machine := Source{Layer: LayerMachine, Origin: "/h/config.json", Values: map[string]json.RawMessage{"oracle.review": json.RawMessage(`"rp"`)}}
	_, err := Get[string](NewStack(nil, &repo, &machine), "oracle.review")
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Layer != LayerRepo || ve.Origin != "/r/.abcd/config.json" || !strings.Contains(ve.Msg, "host | rp") {
		t.Fatalf("got %v", err)
	}
}

func TestEchoedTextIsBounded(t *testing.T) {
	long := strings.Repeat("é", 100)
	if got := text.Clip(long); len(got) > 84 || !strings.HasSuffix(got, "…") {
		t.Fatalf("clip: %q (%d bytes)", got, len(got))
	}
	err := CheckStrict("f.json", []byte(`{"`+strings.Repeat("k", 300)+`":1,"`+strings.Repeat("k", 300)+`":2}`))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("refusal not bounded: %d bytes", len(err.Error()))
	}
}

func TestScalarText(t *testing.T) {
	for in, want := range map[string]string{"true": "true", "false": "false", "12": "12", "-1.5e3": "-1.5e3", "host": `"host"`, "1 2": `"1 2"`, "": `""`, `"q"`: `"\"q\""`} {
		if got := string(ScalarText(in)); got != want {
			t.Errorf("ScalarText(%q) = %s, want %s", in, got, want)
		}
	}
}

// The registry and the published config schema (File) must name the same keys.
func TestKeysMatchTheFileSchema(t *testing.T) {
	var paths []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Struct:
			for i := 0; i < typ.NumField(); i++ {
				name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
				walk(join(prefix, name), typ.Field(i).Type)
			}
		case reflect.Map:
			walk(join(prefix, "*"), typ.Elem())
		default:
			paths = append(paths, prefix)
		}
	}
	walk("", reflect.TypeFor[File]())
	var keys []string
	for _, k := range Keys() {
		keys = append(keys, k.Pattern)
	}
	keys = append(keys, "schema_version")
	sort.Strings(paths)
	sort.Strings(keys)
	if !reflect.DeepEqual(paths, keys) {
		t.Fatalf("config.File has %v\nKeys() has %v", paths, keys)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"oracle":{"review":"rp","rp":{"url":"http://127.0.0.1:1"}}}`))
	f.Add([]byte(`{"schema_version":1,"a":{"b":1,"b":2}}`))
	f.Add([]byte(`{"schema_version":1} []`))
	f.Add([]byte(`{"schema_version":1,"build":{"dod":"make test"}}`))
	f.Add([]byte(`{"schema_version":1,"oracle":{"denylist":["x/*"],"api":{"p":{"models":["m"],"tiers":{"local":"m"}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := ParseConfig(LayerRepo, "f.json", data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != "f.json" {
				t.Fatalf("error is not a FileError naming the file: %v", err)
			}
			return
		}
		// Whatever parses has no duplicate keys, so the standard decoder agrees on every value.
		for k, v := range src.Values {
			if !json.Valid(v) || len(v) == 0 || v[0] == '{' || (v[0] == '[' && !isListKey(k)) || v[0] == 'n' {
				t.Fatalf("%s holds %s", k, v)
			}
		}
		_ = Validate(src, "m.json")
	})
}
