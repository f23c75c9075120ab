package cli

import (
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/setup"
)

// refusals are inputs every front door must say no to with exit 2, writing nothing.
var refusals = []struct {
	name string
	args []string
	code string // the refusal document's code
}{
	{"unknown command", []string{"frobnicate"}, "usage"},
	{"unknown flag", []string{"--bogus"}, "usage"},
	{"unknown shorthand flag", []string{"-x"}, "usage"},
	{"unknown flag on a verb", []string{"version", "--bogus"}, "usage"},
	{"argument to a verb that takes none", []string{"version", "extra"}, "usage"},
	{"schema show without a name", []string{"schema", "show"}, "usage"},
	{"schema show with two names", []string{"schema", "show", "refusal", "version.result"}, "usage"},
	{"schema show of an unknown name", []string{"schema", "show", "nope"}, "schema_unknown"},
	{"schema show of a malformed name", []string{"schema", "show", "../x"}, "schema_name_invalid"},
	{"schema show of an empty name", []string{"schema", "show", ""}, "schema_name_invalid"},
}

// checkDocument asserts stdout is one refusal document of the kind and exit code given, with every
// sentence a person needs filled in.
func checkDocument(t *testing.T, res result, kind refusal.Kind, exit int) refusal.Document {
	t.Helper()
	assert.Equal(t, res.code, exit, "stdout: %s stderr: %s", res.stdout, res.stderr)
	assert.Check(t, is.Equal(res.stderr, ""), "stderr must stay empty under --json")
	var doc refusal.Document
	decodeOne(t, res.stdout, &doc)
	assert.Check(t, is.Equal(doc.Kind, kind))
	assert.Check(t, is.Equal(doc.ExitCode, exit))
	assert.Check(t, doc.Code != "", "code is empty")
	assert.Check(t, doc.What != "", "what is empty")
	assert.Check(t, doc.Why != "", "why is empty")
	assert.Check(t, doc.Remedy != "", "remedy is empty")
	return doc
}

func TestRefusalsJSON(t *testing.T) {
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, newApp(factsInitialized), append(tc.args, "--json")...)
			doc := checkDocument(t, res, refusal.Refused, 2)
			assert.Check(t, is.Equal(string(doc.Code), tc.code))
		})
	}
}

// TestRefusalsJSONFlagFirst: --json before the offending word still gets the document.
func TestRefusalsJSONFlagFirst(t *testing.T) {
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, newApp(factsInitialized), append([]string{"--json"}, tc.args...)...)
			doc := checkDocument(t, res, refusal.Refused, 2)
			assert.Check(t, is.Equal(string(doc.Code), tc.code))
		})
	}
}

func TestRefusalsText(t *testing.T) {
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, newApp(factsInitialized), tc.args...)
			assert.Equal(t, res.code, 2, "stderr: %s", res.stderr)
			assert.Check(t, is.Equal(res.stdout, ""), "a refusal prints nothing on stdout")
			assert.Check(t, strings.HasPrefix(res.stderr, "abcd: refused: "), "stderr: %q", res.stderr)
			assert.Check(t, is.Contains(res.stderr, "\nremedy: "))
			assert.Check(t, strings.HasSuffix(res.stderr, "\n"))
		})
	}
}

// TestRefusalEchoIsClipped: a refusal quoting the input bounds it, so a hostile name cannot flood
// the output.
func TestRefusalEchoIsClipped(t *testing.T) {
	long := strings.Repeat("../", 1000)
	res := run(t, newApp(factsInitialized), "schema", "show", long, "--json")
	doc := checkDocument(t, res, refusal.Refused, 2)
	assert.Check(t, len(doc.Why) < 300, "why is %d bytes", len(doc.Why))
}

// TestUnknownSubcommandIsRefused: a typo under a command group is refused like one at the top.
// Cobra returns help (exit 0, help text on stdout) for a group with no Run of its own before it
// checks the group's Args, so noArgs on the group never runs.
func TestUnknownSubcommandIsRefused(t *testing.T) {
	res := run(t, newApp(factsInitialized), "schema", "frobnicate", "--json")
	doc := checkDocument(t, res, refusal.Refused, 2)
	assert.Check(t, is.Equal(doc.Code, refusal.CodeUsage))
	assert.Check(t, is.Contains(doc.Why, "frobnicate"))

	text := run(t, newApp(factsInitialized), "schema", "frobnicate")
	assert.Check(t, is.Equal(text.code, 2))
	assert.Check(t, is.Equal(text.stdout, ""))
}

// TestJSONFlagSpellings: pflag takes --json=1, --json=t, --json=TRUE as true; a refusal must then be
// the JSON document too, not text on stderr.
func TestJSONFlagSpellings(t *testing.T) {
	for _, flag := range []string{"--json", "--json=true", "--json=1", "--json=t", "--json=TRUE"} {
		t.Run(flag, func(t *testing.T) {
			ok := run(t, newApp(factsInitialized), "version", flag)
			assert.Equal(t, ok.code, 0)
			var v setup.VersionResult
			decodeOne(t, ok.stdout, &v)

			refused := run(t, newApp(factsInitialized), flag, "frobnicate")
			checkDocument(t, refused, refusal.Refused, 2)
		})
	}
}

// TestJSONAfterDoubleDashIsAnArgument: after --, --json is an operand, not the flag.
func TestJSONAfterDoubleDashIsAnArgument(t *testing.T) {
	res := run(t, newApp(factsInitialized), "version", "--", "--json")
	assert.Equal(t, res.code, 2)
	assert.Check(t, is.Equal(res.stdout, ""))
	assert.Check(t, strings.HasPrefix(res.stderr, "abcd: refused: "))
}

func TestFault(t *testing.T) {
	a := newApp(factsInitialized)
	a.Inspector = fake.Inspector{Err: errors.New("disk on fire")}

	res := run(t, a, "--json")
	doc := checkDocument(t, res, refusal.Fault, 1)
	assert.Check(t, is.Contains(doc.Why, "disk on fire"))

	text := run(t, a)
	assert.Equal(t, text.code, 1)
	assert.Check(t, is.Equal(text.stdout, ""))
	assert.Check(t, strings.HasPrefix(text.stderr, "abcd: fault: "), "stderr: %q", text.stderr)
	assert.Check(t, is.Contains(text.stderr, "disk on fire"))
}

func TestContention(t *testing.T) {
	a := newApp(factsInitialized)
	a.Schemas = fake.Schemas{Err: refusal.Busy("catalog_busy", "abcd schema list",
		"another abcd is rewriting the catalog", "run `abcd schema list` again in a moment")}

	res := run(t, a, "schema", "list", "--json")
	doc := checkDocument(t, res, refusal.Contention, 3)
	assert.Check(t, is.Equal(doc.Code, refusal.Code("catalog_busy")))

	text := run(t, a, "schema", "list")
	assert.Equal(t, text.code, 3)
	assert.Check(t, is.Equal(text.stdout, ""))
	assert.Check(t, strings.HasPrefix(text.stderr, "abcd: contention: "), "stderr: %q", text.stderr)
}

// TestWrappedRefusalKeepsItsKind: a refusal wrapped by an adapter still decides the exit code.
func TestWrappedRefusalKeepsItsKind(t *testing.T) {
	a := newApp(factsInitialized)
	busy := refusal.Busy("lock_held", "abcd status", "a run holds the lock", "try again when it ends")
	a.Inspector = fake.Inspector{Err: errors.Join(errors.New("inspect"), busy)}
	res := run(t, a, "--json")
	doc := checkDocument(t, res, refusal.Contention, 3)
	assert.Check(t, is.Equal(doc.Code, refusal.Code("lock_held")))
}
