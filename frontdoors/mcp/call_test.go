package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/mcpwire"
	"github.com/abcd-dev/abcd/ports/verb"
)

func callLine(id any, tool string, args any) string {
	p := map[string]any{"name": tool}
	if args != nil {
		p["arguments"] = args
	}
	return request(id, "tools/call", p)
}

// nulls lists the paths in a JSON document that hold null.
func nulls(v any, path string) []string {
	switch x := v.(type) {
	case nil:
		return []string{path}
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, nulls(e, path+"."+k)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range x {
			out = append(out, nulls(e, path+"["+itoa(i)+"]")...)
		}
		return out
	}
	return nil
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// inProcessVerbs are the verbs whose use cases run entirely over the fakes testApp wires; every verb
// runs end to end against real files in the parity test.
var inProcessVerbs = []string{"status", "version", "schema_list", "schema_show", "config_show"}

// TestCallReturnsTheVerbsDocument: structuredContent is the bytes verb.Encode gives for the verb's
// result (what --json prints, without its newline), the text block is the same JSON, the document
// has no null and it validates against the tool's outputSchema.
func TestCallReturnsTheVerbsDocument(t *testing.T) {
	a := testApp(t)
	s, _ := newServer(t, a)
	n := 0
	for _, name := range inProcessVerbs {
		v, ok := app.Lookup(name)
		assert.Assert(t, ok, name)
		inDoc, _, _ := a.Schemas.Schema(name + ".input")
		outDoc, _, _ := a.Schemas.Schema(name + ".result")
		out, err := jsonschema.Compile(outDoc)
		assert.NilError(t, err)
		for _, sample := range samplesFor(t, v, inDoc, nil) {
			n++
			replies := exchange(t, s, initializeLine(0, Legacy20251125), callLine(1, name, sample))
			r := byID(t, replies, "1")
			res, runErr := a.Call(context.Background(), name, sample)
			if runErr != nil {
				doc := refusalOf(t, r)
				want, _ := verb.Encode(refusal.DocumentFor(runErr, Spelling))
				got, _ := json.Marshal(doc)
				assert.Check(t, is.Equal(decodeToolResult(t, r).Content[0].Text, strings.TrimSuffix(string(want), "\n")), "%s %v", name, sample)
				assert.Check(t, len(got) > 0)
				continue
			}
			want, err := verb.Encode(hint.Spell(res, Spelling))
			assert.NilError(t, err)
			tr := decodeToolResult(t, r)
			assert.Check(t, !tr.IsError, r.line)
			assert.Check(t, is.Equal(string(tr.StructuredContent), strings.TrimSuffix(string(want), "\n")), "%s %v", name, sample)
			assert.Check(t, is.Equal(tr.Content[0].Text, string(tr.StructuredContent)))
			tree, err := strictjson.Parse(tr.StructuredContent, strictjson.Limits{MaxDepth: 128})
			assert.NilError(t, err)
			assert.Check(t, is.Len(nulls(tree, "$"), 0), "%s: null where the schema promises a value", name)
			assert.Check(t, out.Validate(tree) == nil, "%s: %v", name, out.Validate(tree))
		}
	}
	assert.Check(t, n >= len(inProcessVerbs))
}

// guardedSetup fails the test on any write: a refused call must never reach one.
type guardedSetup struct {
	*fake.Setup
	t *testing.T
}

func (g guardedSetup) MkdirAll(rel string) (bool, error) {
	g.t.Errorf("MkdirAll(%s) on a refused call", rel)
	return false, nil
}
func (g guardedSetup) CreateFile(rel string, _ []byte) (bool, error) {
	g.t.Errorf("CreateFile(%s) on a refused call", rel)
	return false, nil
}
func (g guardedSetup) RemoveEmptyDir(rel string) (bool, error) {
	g.t.Errorf("RemoveEmptyDir(%s) on a refused call", rel)
	return false, nil
}
func (g guardedSetup) RemoveFileIf(rel string, _ []byte) (bool, error) {
	g.t.Errorf("RemoveFileIf(%s) on a refused call", rel)
	return false, nil
}
func (g guardedSetup) CreateMachineFile(name string, _ []byte) (bool, error) {
	g.t.Errorf("CreateMachineFile(%s) on a refused call", name)
	return false, nil
}

var _ ports.Setup = guardedSetup{}

// TestBadArgumentsAreToolErrors: for every tool, arguments that break its schema (an unknown field,
// a value of the wrong type, a string too long, a control character, a key named twice, nesting too
// deep) come back as isError results carrying a refusal, and the verb never runs.
func TestBadArgumentsAreToolErrors(t *testing.T) {
	t.Parallel() // its own server
	a := testApp(t)
	a.Setup = guardedSetup{fake.NewSetup("/work/repo", "/home/ada/.abcd"), t}
	s, _ := newServer(t, a)
	type hostile struct {
		line string
		code string
	}
	var cases []hostile
	overLong := strings.Repeat("x", mcpwire.MaxStringBytes+1) // one byte past the bound on any string
	id := 100
	add := func(line, code string) { cases = append(cases, hostile{line, code}); id++ }
	for _, name := range s.Tools() {
		v, _ := app.Lookup(name)
		inDoc, _, _ := a.Schemas.Schema(name + ".input")
		base := samplesFor(t, v, inDoc, nil)[0]
		with := func(k string, val any) map[string]any {
			m := map[string]any{}
			for bk, bv := range base {
				m[bk] = bv
			}
			m[k] = val
			return m
		}
		add(callLine(id, name, with("zz_not_a_field", "x")), "input_invalid")
		// The schema is checked before the string guard walks the arguments, so a field the tool does
		// not take is refused as unknown, whatever its name holds.
		add(callLine(id, name, with("bad\x00name", "x")), "input_invalid")
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		assert.NilError(t, json.Unmarshal(inDoc, &schema))
		props := make([]string, 0, len(schema.Properties))
		for p := range schema.Properties {
			props = append(props, p)
		}
		slices.Sort(props)
		for _, p := range props {
			for _, wrong := range wrongTypeValues(schema.Properties[p]) {
				add(callLine(id, name, with(p, wrong)), "input_invalid")
			}
			if schema.Properties[p]["type"] == "string" {
				add(callLine(id, name, with(p, overLong)), "input_too_large")
				// The field's own type refuses a control character, with its own code: the code the
				// CLI gives for the same value, since both decode through the type.
				for _, hostileText := range []string{"a\x00b", "a\x1b[31mred"} {
					args := with(p, hostileText)
					_, err := v.Decode(args)
					r, ok := refusal.As(err)
					if assert.Check(t, ok, "%s.%s takes %q", name, p, hostileText) {
						add(callLine(id, name, args), string(r.Code))
					}
				}
			}
		}
		// A key named twice, and nesting past the bound, are read before any schema applies.
		add(`{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"tools/call","params":{"name":"`+name+`","arguments":{"zz":1,"zz":2}}}`, "input_invalid")
		add(`{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"tools/call","params":{"name":"`+name+`","arguments":{"zz":`+strings.Repeat("[", 70)+strings.Repeat("]", 70)+`}}}`, "input_too_large")
	}
	lines := []string{initializeLine(0, Legacy20251125)}
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	replies := exchange(t, s, lines...)
	for i, c := range cases {
		r := byID(t, replies, itoa(100+i))
		doc := refusalOf(t, r)
		assert.Check(t, is.Equal(doc["code"], c.code), "%.200s -> %s", c.line, r.line)
		assert.Check(t, is.Equal(doc["kind"], "refused"))
		assert.Check(t, is.Equal(doc["exit_code"], float64(2)))
		assert.Check(t, doc["remedy"] != "", r.line)
		assert.Check(t, len(r.line) < 4096, "a refusal echoes bounded text: %d bytes", len(r.line))
	}
	assert.Check(t, len(cases) > 3*len(s.Tools()))
}

func TestMalformedCallsAreProtocolErrors(t *testing.T) {
	s := mustServer(t)
	replies := exchange(t, s, initializeLine(0, Legacy20251125),
		callLine(1, "no_such_tool", map[string]any{}),
		request(2, "tools/call", map[string]any{"arguments": map[string]any{}}),
		request(3, "tools/call", map[string]any{"name": 7}),
		callLine(4, "version", []any{}),
		callLine(5, "version", "x"),
		request(6, "tools/call", map[string]any{"name": "version", "arguments": nil}),
		request(7, "tools/call", nil),
		request(8, "tools/call", map[string]any{"name": "version"}), // arguments may be left out
	)
	for _, id := range []string{"1", "2", "3", "4", "5", "6", "7"} {
		r := byID(t, replies, id)
		assert.Assert(t, r.Error != nil, r.line)
		assert.Check(t, is.Equal(r.Error.Code, codeInvalidParams), r.line)
	}
	assert.Check(t, is.Contains(byID(t, replies, "1").Error.Message, "Unknown tool: no_such_tool"))
	assert.Check(t, !decodeToolResult(t, byID(t, replies, "8")).IsError)
}

// TestConsentIsNeverAskedOverMCP: the server's core has no Prompter, so a verb that needs consent
// refuses unless its input gives it, even when the front door that built the core could ask.
func TestConsentIsNeverAskedOverMCP(t *testing.T) {
	a := testApp(t)
	prompter := &fake.Prompter{TTY: true, Answers: []bool{true, true, true, true}}
	setup := fake.NewSetup("/work/repo", "/home/ada/.abcd")
	a.Prompter, a.Setup = prompter, setup
	s, _ := newServer(t, a)
	replies := exchange(t, s, initializeLine(0, Legacy20251125), callLine(1, "ahoy_install", map[string]any{}))
	doc := refusalOf(t, byID(t, replies, "1"))
	assert.Check(t, is.Equal(doc["code"], "consent_needed"))
	assert.Check(t, is.Len(prompter.Questions, 0))
	assert.Check(t, is.Len(prompter.Shown, 0))
	assert.Check(t, is.Len(setup.Files, 0))
	assert.Check(t, is.Len(setup.Dirs, 0))
	assert.Check(t, a.Prompter == prompter, "the caller's core is not changed")

	replies = exchange(t, s, initializeLine(0, Legacy20251125), callLine(2, "ahoy_install", map[string]any{"yes": true}))
	tr := decodeToolResult(t, byID(t, replies, "2"))
	assert.Check(t, !tr.IsError, byID(t, replies, "2").line)
	assert.Check(t, len(setup.Files) > 0)
	assert.Check(t, is.Len(prompter.Questions, 0))
}

// TestToolCallSentAsNotificationDoesNothing: a tools/call without an id is not a request; it is not
// run, so nothing is written for a result nobody could see.
func TestToolCallSentAsNotificationDoesNothing(t *testing.T) {
	a := testApp(t)
	a.Setup = guardedSetup{fake.NewSetup("/work/repo", "/home/ada/.abcd"), t}
	s, _ := newServer(t, a)
	replies := exchange(t, s, initializeLine(0, Legacy20251125),
		notification("tools/call", map[string]any{"name": "ahoy_install", "arguments": map[string]any{"yes": true}}),
		notification("tools/call", modernParams(map[string]any{"name": "ahoy_install", "arguments": map[string]any{"yes": true}})))
	assert.Check(t, is.Len(replies, 1))
}

type panickingInspector struct{}

func (panickingInspector) Inspect(context.Context) (ports.RepoFacts, error) { panic("boom") }

func TestAPanickingVerbIsAFaultAndTheServerServesOn(t *testing.T) {
	a := testApp(t)
	a.Inspector = panickingInspector{}
	s, log := newServer(t, a)
	replies := exchange(t, s, initializeLine(0, Legacy20251125), callLine(1, "status", map[string]any{}), callLine(2, "version", map[string]any{}))
	doc := refusalOf(t, byID(t, replies, "1"))
	assert.Check(t, is.Equal(doc["kind"], "fault"))
	assert.Check(t, is.Equal(doc["exit_code"], float64(1)))
	assert.Check(t, is.Contains(log.String(), "tool status panicked: boom"))
	assert.Check(t, !decodeToolResult(t, byID(t, replies, "2")).IsError)
}

// TestValuesAreRefusedByTheirTypes: the server guesses nothing from a field's name. Every value is
// checked by its input type as it is decoded, the same check the CLI runs, so a hostile value gets
// the type's own code here and on the command line.
func TestValuesAreRefusedByTheirTypes(t *testing.T) {
	s := mustServer(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		code string
	}{
		{"intent_show", map[string]any{"ref": "../../etc/passwd"}, "ref_invalid"},
		{"intent_show", map[string]any{"ref": ".."}, "ref_invalid"},
		{"intent_show", map[string]any{"ref": "/etc/passwd"}, "ref_invalid"},
		{"intent_show", map[string]any{"ref": "-rf"}, "ref_invalid"},
		{"intent_show", map[string]any{"ref": ".hidden"}, "ref_invalid"},
		{"intent_show", map[string]any{"ref": "~root"}, "ref_invalid"},
		{"spec_new", map[string]any{"intent": `..\..\x`, "title": "t"}, "ref_invalid"},
		{"capture", map[string]any{"text": "x", "related": []any{"ok", "a/b"}}, "ref_invalid"},
		{"decision_new", map[string]any{"title": "t", "supersedes": []any{"x\ny"}}, "ref_invalid"},
		{"intent_new", map[string]any{"title": "nul\x00here"}, "title_invalid"},
		{"intent_new", map[string]any{"title": "bell\x07"}, "title_invalid"},
		{"intent_new", map[string]any{"title": "c1\u0085x"}, "title_invalid"},
		{"intent_new", map[string]any{"title": "bidi\u202eevil"}, "title_invalid"},
		{"intent_new", map[string]any{"title": "zero\u200bwidth"}, "title_invalid"},
		{"capture", map[string]any{"text": "esc\x1b[31m"}, "text_invalid"},
		{"implement_status", map[string]any{"run": "../run-1"}, "run_invalid"},
		{"implement_receipt", map[string]any{"path": "../../etc/passwd"}, "receipt_path_invalid"},
		{"implement_receipt", map[string]any{"path": ".abcd/../../x"}, "receipt_path_invalid"},
		{"review", map[string]any{"base": "--upload-pack=evil"}, "revision_invalid"},
		{"review", map[string]any{"base": "main..HEAD"}, "revision_invalid"},
		{"review", map[string]any{"role": "intent-auditor"}, "role_unknown"},
		{"config_show", map[string]any{"key": "no.such.key"}, "config_key_unknown"},
		{"schema_show", map[string]any{"name": "../x"}, "schema_name_invalid"},
		{"intent_list", map[string]any{"lifecycle": "nope"}, "lifecycle_unknown"},
		{"intent_new", map[string]any{"title": "t", "force": true}, "input_invalid"},
		{"issue_close", map[string]any{"ref": "x"}, "input_missing"},
	} {
		replies := exchange(t, s, initializeLine(0, Legacy20251125), callLine(1, c.tool, c.args))
		doc := refusalOf(t, byID(t, replies, "1"))
		assert.Check(t, is.Equal(doc["code"], c.code), "%s %v: %v", c.tool, c.args, doc)
		assert.Check(t, is.Equal(doc["exit_code"], float64(2)), "%s %v", c.tool, c.args)
		for _, field := range []string{"what", "remedy"} {
			text, _ := doc[field].(string)
			assert.Check(t, !strings.Contains(text, "`abcd") && !strings.Contains(text, " --"),
				"%s %v: the %s speaks the command line's language over MCP: %q", c.tool, c.args, field, text)
		}
	}
}

// TestEncodingKeepsTheDocumentsBytes: a result's bytes reach the wire unchanged, HTML-significant
// characters included (the CLI does not escape them either).
func TestEncodingKeepsTheDocumentsBytes(t *testing.T) {
	a := testApp(t)
	s, _ := newServer(t, a)
	replies := exchange(t, s, initializeLine(0, Legacy20251125), callLine(1, "schema_list", map[string]any{}))
	tr := decodeToolResult(t, byID(t, replies, "1"))
	res, err := a.Call(context.Background(), "schema_list", map[string]any{})
	assert.NilError(t, err)
	want, _ := verb.Encode(res)
	assert.Check(t, bytes.Contains(want, []byte("<name>")), "the index describes files as <name>: the case this test is about")
	assert.Check(t, is.Equal(string(tr.StructuredContent)+"\n", string(want)))
}

// TestAHugeKeyOverManyValuesIsRefusedAtOnce: one line naming a 1 MiB field that holds 20,000 values
// once cost a 1 MiB path string per value (hours of CPU for a 16 MiB line, before any schema looked
// at it, with no way to cancel). The schema is checked first and refuses the unknown field without
// walking it: the decoder refuses the unknown field by name, clipped, before looking at its value.
func TestAHugeKeyOverManyValuesIsRefusedAtOnce(t *testing.T) {
	s := mustServer(t)
	key := strings.Repeat("k", 1<<20)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{"` + key + `":[` +
		strings.Repeat(`"x",`, 19_999) + `"x"]}}}`
	start := time.Now()
	replies := exchange(t, s, initializeLine(0, Legacy20251125), line, request(2, "ping", nil))
	elapsed := time.Since(start)
	r := byID(t, replies, "1")
	doc := refusalOf(t, r)
	assert.Check(t, is.Equal(doc["code"], "input_invalid"))
	assert.Check(t, is.Contains(doc["why"].(string), `takes no argument named "kkkk`))
	assert.Check(t, len(r.line) < 4096, "the refusal clips the key: %d bytes", len(r.line))
	assert.Check(t, is.Equal(string(byID(t, replies, "2").Result), `{}`))
	assert.Check(t, elapsed < time.Second, "answered in %s", elapsed)
	t.Logf("a 1 MiB key over 20,000 values refused in %s", elapsed)
}

// blockingSetup holds the first ahoy_install in its first step until released: a writing call in
// progress (a review a route works on, say). Later calls pass.
type blockingSetup struct {
	*fake.Setup
	first   *atomic.Bool
	started chan struct{}
	release chan struct{}
}

func (b blockingSetup) Root() (string, bool) {
	if b.first.CompareAndSwap(false, true) {
		b.started <- struct{}{}
		<-b.release
	}
	return b.Setup.Root()
}

// TestAWriterNeverWaitsOnTheServerForAnother: calls of verbs that write queue on the record's and the
// runs' locks (flocks, which serialise them within the process as between processes), never on the
// server: a second writing call is answered while the first is still in progress.
func TestAWriterNeverWaitsOnTheServerForAnother(t *testing.T) {
	a := testApp(t)
	setup := blockingSetup{fake.NewSetup("/work/repo", "/home/ada/.abcd"), &atomic.Bool{}, make(chan struct{}, 1), make(chan struct{})}
	a.Setup = setup
	s, _ := newServer(t, a)
	ls := startLive(t, s)
	released := false
	defer func() {
		if !released {
			close(setup.release)
		}
	}()
	ls.send(initializeLine(0, Legacy20251125))
	_, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	ls.send(callLine(1, "ahoy_install", map[string]any{"yes": true}))
	<-setup.started
	ls.sendWithin(callLine(2, "ahoy_install", map[string]any{"yes": true}), 5*time.Second)
	r, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(r.ID), "2"), "the second writer is answered while the first is in progress: %s", r.line)
	assert.Check(t, !decodeToolResult(t, r).IsError, r.line)

	close(setup.release)
	released = true
	r, err = ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(r.ID), "1"), r.line)
	assert.Check(t, !decodeToolResult(t, r).IsError, r.line)
}

// idFreed pings with id until the server accepts it (the request that held it has left), reading
// every reply meanwhile; nothing else may answer.
func idFreed(t *testing.T, ls *liveSession, id int, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		ls.sendWithin(request(id, "ping", nil), within)
		r, err := ls.next(within)
		assert.NilError(t, err)
		assert.Assert(t, is.Equal(string(r.ID), itoa(id)), r.line)
		if r.Error == nil {
			return true
		}
		assert.Check(t, is.Contains(r.Error.Message, "still in flight"), r.line)
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
