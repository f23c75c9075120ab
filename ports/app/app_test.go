package app_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/setup"
	"github.com/abcd-dev/abcd/ports/verb"
	"gotest.tools/v3/assert"
)

var verbName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func TestVerbTableDeclarations(t *testing.T) {
	var openWorld []string
	seen := map[string]bool{}
	paths := map[string]bool{}
	prev := ""
	for _, v := range app.Table() {
		assert.Assert(t, verbName.MatchString(v.Name), "verb name %q is not plain [a-z0-9_]", v.Name)
		assert.Assert(t, !seen[v.Name], "verb %s declared twice", v.Name)
		seen[v.Name] = true
		assert.Assert(t, v.Name > prev, "table not sorted at %s", v.Name)
		prev = v.Name
		assert.Assert(t, len(v.Path) > 0, "verb %s has no CLI path", v.Name)
		p := strings.Join(v.Path, " ")
		assert.Assert(t, !paths[p], "CLI path %q used twice", p)
		paths[p] = true
		assert.Assert(t, v.Summary != "" && !strings.HasSuffix(v.Summary, "."), "verb %s needs a one-line summary without a full stop", v.Name)
		assert.Assert(t, !(v.ReadOnly && v.Destructive), "verb %s cannot be read-only and destructive", v.Name)
		assert.Assert(t, v.InputType() != nil && v.ResultType() != nil, v.Name)
		assert.Equal(t, v.InputType().Kind().String(), "struct", "verb %s input must be an object", v.Name)
		assert.Equal(t, v.ResultType().Kind().String(), "struct", "verb %s result must be an object", v.Name)
		// A verb that can hand work to a route beside the host can send the repository's content (a
		// diff, a brief) off the machine: its MCP annotation says so.
		assert.Assert(t, len(v.Dispatches) == 0 || v.OpenWorld, "verb %s dispatches agents, so it is open-world", v.Name)
		if v.OpenWorld {
			openWorld = append(openWorld, v.Name)
		}
		got, ok := app.Lookup(v.Name)
		assert.Assert(t, ok)
		assert.Equal(t, got.Name, v.Name)
	}
	// implement receipt dispatches nothing itself, but the step it advances may call a route.
	assert.DeepEqual(t, openWorld, []string{"ahoy_connect", "implement_receipt", "implement_run", "implement_step", "intent_audit", "review"})
}

func TestRunRefusesAnInputOfTheWrongType(t *testing.T) {
	a := &app.App{}
	_, err := a.Run(context.Background(), "version", &setup.SchemaShowInput{})
	assert.ErrorContains(t, err, "verb version: input is *setup.SchemaShowInput")
	_, err = a.Call(context.Background(), "no_such_verb", nil)
	assert.ErrorContains(t, err, `no verb named "no_such_verb"`)
}

func TestNewInputIsAFreshPointer(t *testing.T) {
	v, _ := app.Lookup("schema_show")
	in, ok := v.NewInput().(*setup.SchemaShowInput)
	assert.Assert(t, ok)
	in.Name = "x"
	assert.Equal(t, v.NewInput().(*setup.SchemaShowInput).Name, setup.SchemaName(""))
}

func TestStatusPassesAFaultThrough(t *testing.T) {
	a := &app.App{Inspector: fake.Inspector{Err: errors.New("disk on fire")}}
	_, err := a.Call(context.Background(), "status", map[string]any{})
	assert.ErrorContains(t, err, "disk on fire")
}

func TestSchemaShow(t *testing.T) {
	a := &app.App{Schemas: fake.Schemas{Files: map[string][]byte{"refusal": []byte(`{"type":"object"}`)}}}
	run := func(name string) (setup.SchemaShowResult, error) {
		res, err := a.Call(context.Background(), "schema_show", map[string]any{"name": name})
		if err != nil {
			return setup.SchemaShowResult{}, err
		}
		return res.(setup.SchemaShowResult), nil
	}
	for _, name := range []string{"refusal", "refusal.schema.json", contract.ID("refusal")} {
		res, err := run(name)
		assert.NilError(t, err, name)
		assert.Equal(t, res.Name, "refusal")
		assert.Equal(t, res.ID, contract.ID("refusal"))
		assert.Equal(t, string(res.Schema), `{"type":"object"}`)
	}
	_, err := run("nope")
	r, ok := refusal.As(err)
	assert.Assert(t, ok)
	assert.Equal(t, r.Code, refusal.CodeSchemaUnknown)
	assert.DeepEqual(t, r.Remedy.Runs(), []refusal.Invocation{{Verb: "schema_list"}})

	for _, bad := range []string{"../etc/passwd", "Refusal", "", "a b", strings.Repeat("x", 300) + "/"} {
		_, err := run(bad)
		r, ok := refusal.As(err)
		assert.Assert(t, ok, bad)
		assert.Equal(t, r.Code, refusal.CodeSchemaNameInvalid)
		assert.Assert(t, len(r.Why) < 200, "a refusal bounds what it echoes")
	}
}

func TestSchemaListNeverNull(t *testing.T) {
	a := &app.App{Schemas: fake.Schemas{}}
	res, err := a.Call(context.Background(), "schema_list", map[string]any{})
	assert.NilError(t, err)
	data, err := verb.Encode(res)
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(data), "null"), string(data))
}

func TestEncodeIsCompactWithOneNewline(t *testing.T) {
	data, err := verb.Encode(map[string]string{"a": "<b>&"})
	assert.NilError(t, err)
	assert.Equal(t, string(data), "{\"a\":\"<b>&\"}\n")
}

func TestVersionDefaults(t *testing.T) {
	res, err := (&app.App{}).Call(context.Background(), "version", map[string]any{})
	assert.NilError(t, err)
	v := res.(setup.VersionResult)
	assert.Equal(t, v.Version, "dev")
	assert.Equal(t, v.SchemaNamespace, contract.Namespace)
}
