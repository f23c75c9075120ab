package loop

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// fullState is a spec run with something in every list: a failed round and its fix, a done lane,
// the auditor's verdict, open awaits, escalated tiers and a fallback.
func fullState(t testing.TB) State {
	h := newSpec(t, 3, 3)
	h.openPending()
	for lane := range 3 {
		h.implement(lane)
	}
	h.openPending()
	h.answer(0, RoleRuthless, false)
	h.answer(0, RoleSecurity, true)
	h.answer(1, RoleRuthless, true)
	h.answer(1, RoleSecurity, true)
	h.answer(2, RoleSecurity, true)
	h.openPending()
	h.implement(0)
	h.openPending()
	h.s.Fallbacks = append(h.s.Fallbacks, Fallback{At: at, Lane: "lane-1", Round: 2, Role: RoleRuthless, Asked: "rp",
		Reason: "unavailable", Detail: "connection refused <127.0.0.1:1> & \"quoted\" \u2028 é", Ran: "host"})
	h.s.Lanes[0].Findings += "\n<script>&amp;</script> \\ \t tab"
	return h.s
}

func TestDecode(t *testing.T) {
	valid := `{"schema_version":1,"run":"run-1","kind":"spec","lanes":[{"id":"lane-1","tiers":{"ruthless-reviewer":"economy"},` +
		`"awaits":[{"id":"await-1","routing":{"tier":"local"}}],"rounds":[{"n":1,"verdicts":[{"role":"ruthless-reviewer"}]}]}]}`
	const ok = "(accepted)"
	for _, c := range []struct {
		name, data string
		// says is a word the refusal must carry, "" for any refusal, or ok.
		says string
	}{
		{"minimal", `{"schema_version":1}`, ok},
		{"nested", valid, ok},
		{"trailing whitespace", valid + "\n\t \n", ok},
		{"leading whitespace", "\n " + valid, ok},
		{"explicit nulls for lists", `{"schema_version":1,"lanes":null,"criteria":null}`, ok},
		{"unknown top-level field", `{"schema_version":1,"bogus":true}`, "bogus"},
		{"unknown lane field", `{"schema_version":1,"lanes":[{"id":"lane-1","bogus":1}]}`, "bogus"},
		{"unknown routing field", `{"schema_version":1,"lanes":[{"awaits":[{"routing":{"model":"x"}}]}]}`, "model"},
		{"unknown verdict field", `{"schema_version":1,"lanes":[{"rounds":[{"n":1,"verdicts":[{"score":1}]}]}]}`, "score"},
		{"unknown fallback field", `{"schema_version":1,"fallbacks":[{"why":""}]}`, "why"},
		{"duplicate top-level key", `{"schema_version":1,"run":"a","run":"b"}`, "twice"},
		{"duplicate schema_version", `{"schema_version":1,"schema_version":1}`, "twice"},
		{"duplicate nested key", `{"schema_version":1,"lanes":[{"stage":"done","stage":"brief"}]}`, "twice"},
		{"duplicate tier key", `{"schema_version":1,"lanes":[{"tiers":{"r":"local","r":"frontier"}}]}`, "twice"},
		{"trailing object", `{"schema_version":1} {}`, "after"},
		{"trailing garbage", `{"schema_version":1}x`, ""},
		{"trailing bracket", `{"schema_version":1}]`, ""},
		{"two states", valid + valid, "after"},
		{"no schema_version", `{"run":"run-1"}`, "schema_version 0"},
		{"schema_version 0", `{"schema_version":0}`, "schema_version 0"},
		{"schema_version 2", `{"schema_version":2}`, ok},
		{"schema_version 3", `{"schema_version":3}`, "schema_version 3"},
		{"schema_version as text", `{"schema_version":"1"}`, ""},
		{"schema_version fraction", `{"schema_version":1.5}`, ""},
		{"an array", `[]`, ""},
		{"null", `null`, ""},
		{"a string", `"state"`, ""},
		{"empty", ``, ""},
		{"truncated", `{"schema_version":1,"lanes":[`, ""},
		{"wrong type", `{"schema_version":1,"lanes":{}}`, ""},
		{"text for a number", `{"schema_version":1,"counter":"3"}`, ""},
		{"invalid UTF-8", "{\"schema_version\":1,\"run\":\"\xff\"}", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Decode("state.json", []byte(c.data))
			if c.says == ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if s.SchemaVersion < oldestVersion || s.SchemaVersion > SchemaVersion || s.Lanes == nil || s.Criteria == nil || s.Validators == nil || s.Fallbacks == nil {
					t.Fatalf("decoded %+v", s)
				}
				for _, l := range s.Lanes {
					if l.Tiers == nil || l.Awaits == nil || l.Rounds == nil || l.Implementations == nil {
						t.Fatalf("decoded lane %+v has a nil list", l)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", s)
			}
			if !strings.Contains(err.Error(), "state.json") {
				t.Fatalf("the refusal does not name the file: %v", err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Fatalf("the refusal %q does not say %q", err, c.says)
			}
			if !reflect.DeepEqual(s, State{}) {
				t.Fatalf("a refusal returned a state: %+v", s)
			}
		})
	}
}

// Keys are matched exactly as the schema spells them: encoding/json folds case, so "Run" would
// otherwise be read as "run" (an unknown field accepted), and "run" with "Run" would be a duplicate
// key the strict check does not see.
func TestDecodeRefusesKeysInAnotherCase(t *testing.T) {
	for _, data := range []string{
		`{"schema_version":1,"run":"run-1","Run":"run-2"}`,
		`{"schema_version":1,"RUN":"run-1"}`,
		`{"Schema_Version":1}`,
		`{"schema_version":1,"lanes":[{"Stage":"done"}]}`,
	} {
		if s, err := Decode("state.json", []byte(data)); err == nil {
			t.Errorf("%s accepted as run %q", data, s.Run)
		}
	}
}

func TestDecodeBoundsTheSize(t *testing.T) {
	base := []byte(`{"schema_version":1}`)
	pad := func(n int) []byte {
		return append(append([]byte{}, base...), bytes.Repeat([]byte(" "), n-len(base))...)
	}
	if _, err := Decode("state.json", pad(MaxStateBytes+1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("a state of MaxStateBytes+1 bytes: %v", err)
	}
	if _, err := Decode("state.json", pad(16<<20)); err == nil {
		t.Fatal("a 16 MiB state was accepted")
	}
}

// A state within MaxStateBytes is read: the bound is the state file's 4 MiB, not the 1 MiB of a
// configuration file. A 20-lane run with a few rounds of reviewer findings (each return may be
// 256 KiB) passes 1 MiB.
func TestDecodeReadsAStateUpToMaxStateBytes(t *testing.T) {
	s := fullState(t)
	s.Lanes[0].Findings = strings.Repeat("a finding line of a reviewer's return\n", (2<<20)/38)
	data := Encode(s)
	if len(data) <= 1<<20 || len(data) > MaxStateBytes {
		t.Fatalf("the test state is %d bytes", len(data))
	}
	if _, err := Decode("state.json", data); err != nil {
		t.Errorf("a %d-byte state (MaxStateBytes is %d) is refused: %v", len(data), MaxStateBytes, err)
	}
	exact := Encode(fullState(t))
	exact = append(exact, bytes.Repeat([]byte(" "), MaxStateBytes-len(exact))...)
	if _, err := Decode("state.json", exact); err != nil {
		t.Errorf("a state of exactly MaxStateBytes is refused: %v", err)
	}
}

// Encode never writes null, whatever lists or maps the state left nil.
func TestEncodeNeverWritesNull(t *testing.T) {
	for name, s := range map[string]State{
		"zero":      {SchemaVersion: SchemaVersion},
		"zero lane": {SchemaVersion: SchemaVersion, Lanes: []Lane{{}}},
		"zero lists inside a lane": {SchemaVersion: SchemaVersion, Lanes: []Lane{{}, {
			Rounds:          []Round{{}, {N: 2}},
			Implementations: []Implementation{{}},
			Awaits:          []Await{{}},
		}}},
		"zero fallback": {SchemaVersion: SchemaVersion, Fallbacks: []Fallback{{}}},
		"new, no lanes": New(KindReview, Options{}, nil),
		"new":           New(KindSpec, Options{}, []LaneSpec{{}}),
	} {
		t.Run(name, func(t *testing.T) {
			out := Encode(s)
			if bytes.Contains(out, []byte("null")) {
				t.Fatalf("Encode wrote null:\n%s", out)
			}
			if !bytes.HasSuffix(out, []byte("}\n")) || !json.Valid(out) {
				t.Fatalf("Encode wrote:\n%s", out)
			}
			var generic any
			if err := json.Unmarshal(out, &generic); err != nil {
				t.Fatal(err)
			}
			if path := nullAt(generic, "$"); path != "" {
				t.Fatalf("null at %s", path)
			}
			d, err := Decode("state.json", out)
			if err != nil {
				t.Fatalf("Decode(Encode): %v", err)
			}
			if again := Encode(d); !bytes.Equal(again, out) {
				t.Fatalf("Encode(Decode(Encode)) differs:\n%s\nwas\n%s", again, out)
			}
		})
	}
}

// nullAt is the path of a null in a decoded JSON value, or "".
func nullAt(v any, path string) string {
	switch v := v.(type) {
	case nil:
		return path
	case map[string]any:
		for k, e := range v {
			if p := nullAt(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range v {
			if p := nullAt(e, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// Encode → Decode gives back the state the machine built, byte for byte on the next Encode.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	s := fullState(t)
	out := Encode(s)
	d, err := Decode("state.json", out)
	if err != nil {
		t.Fatalf("Decode(Encode): %v", err)
	}
	if !reflect.DeepEqual(d, s) {
		t.Fatalf("round trip differs:\n%+v\nwas\n%+v", d, s)
	}
	if again := Encode(d); !bytes.Equal(again, out) {
		t.Fatalf("Encode is not stable:\n%s\nwas\n%s", again, out)
	}
	// The decoded state carries on exactly like the original.
	if !reflect.DeepEqual(Pending(d), Pending(s)) || !reflect.DeepEqual(d.OpenAwaits(), s.OpenAwaits()) || d.Finished() != s.Finished() {
		t.Fatal("the decoded state plans differently")
	}
	for _, key := range []string{`"schema_version": 1`, `"fix_rounds": 3`, `"tiers": {`, `"fallbacks": [`, `"verdicts": [`, `"tier": "economy"`} {
		if !bytes.Contains(out, []byte(key)) {
			t.Fatalf("Encode wrote no %s:\n%s", key, out)
		}
	}
}

// A state as abcd writes it is read back as it was; the same bytes with one key in another case are
// refused, though encoding/json would match that key.
func TestDecodeReadsWhatEncodeWroteAndNoOtherCase(t *testing.T) {
	data := Encode(fullState(t))
	got, err := Decode("state.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Encode(got), data) {
		t.Errorf("read back differs:\n%s\nwant\n%s", Encode(got), data)
	}
	other := bytes.Replace(data, []byte(`"branch"`), []byte(`"Branch"`), 1)
	if bytes.Equal(other, data) {
		t.Fatal("the state written has no branch key to change")
	}
	if _, err := Decode("state.json", other); err == nil || !strings.Contains(err.Error(), "case-sensitive") {
		t.Errorf("a key in another case: %v, want the case-sensitive refusal", err)
	}
}

// A lane's worktree is where abcd makes it, in the lanes' folder, or where an earlier abcd made it,
// inside the run's folder (a state it wrote is stepped as it stands): nowhere else.
func TestCheckTakesALanesWorktreeWhereAbcdMakesItOrMadeIt(t *testing.T) {
	for wt, ok := range map[string]bool{
		"":                         true,
		".abcd-lanes/run-1/lane-1": true,
		".abcd/.work.local/run/run-1/worktrees/lane-1": true,
		".abcd-lanes/run-1/lane-2":                     false,
		".abcd-lanes/run-2/lane-1":                     false,
		".abcd/.work.local/run/run-2/worktrees/lane-1": false,
		".abcd/.work.local/run/run-1/lane-1":           false,
		"../elsewhere":                                 false,
		".abcd-lanes/run-1/lane-1/..":                  false,
	} {
		s := newSpec(t, 1, 3).s
		if s.Run != "run-1" || s.Lanes[0].ID != "lane-1" {
			t.Fatalf("the spec's run is %s, its lane %s", s.Run, s.Lanes[0].ID)
		}
		s.Base, s.Lanes[0].Worktree = strings.Repeat("b", 40), wt
		err := s.Check()
		if ok && err != nil {
			t.Errorf("%q refused: %v", wt, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), "worktree")) {
			t.Errorf("%q not refused for its worktree: %v", wt, err)
		}
	}
}
