package arch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

var layers = []string{"domain", "ports", "adapters", "frontdoors", "gen", "schemas", "agents", "tools"}

func workspaceRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	assert.NilError(t, err)
	return root
}

// goList runs go with args (a go list) in the workspace's root and returns its output.
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = workspaceRoot(t)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go %s: %v\n%s", args[0], err, ee.Stderr)
	}
	assert.NilError(t, err)
	return out
}

func listPackages(t *testing.T) []Package {
	t.Helper()
	args := []string{"list", "-json=ImportPath,Imports,TestImports,XTestImports"}
	for _, l := range layers {
		args = append(args, "./"+l+"/...")
	}
	out := goList(t, args...)
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			assert.NilError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestAbcdLinksNoDatabaseDriver: the history store's driver is linked into the helper binary alone,
// so abcd's start-up (and its hooks, which run on every prompt and shell command) never pays for it.
func TestAbcdLinksNoDatabaseDriver(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	deps := func(pkg string) string {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = workspaceRoot(t)
		out, err := cmd.Output()
		assert.NilError(t, err)
		return string(out)
	}
	linked := map[string]bool{}
	for _, line := range strings.Split(deps("./frontdoors/cmd/abcd"), "\n") {
		linked[line] = true
	}
	for _, pkg := range []string{"modernc.org/sqlite", "database/sql", Prefix + "adapters/history"} {
		assert.Check(t, !linked[pkg], "abcd links %s", pkg)
	}
	assert.Check(t, strings.Contains(deps("./frontdoors/cmd/abcd-history"), "modernc.org/sqlite"), "the helper holds the driver")
}

// TestAbcdLinksNoProtobuf: traces are exported by adapters/otel's own OTLP/JSON exporter, so abcd
// links neither the OTLP protobuf types nor gRPC (their inits would run at every start); only the
// tests' receiver decodes with them.
func TestAbcdLinksNoProtobuf(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	cmd := exec.Command("go", "list", "-deps", "./frontdoors/cmd/abcd")
	cmd.Dir = workspaceRoot(t)
	out, err := cmd.Output()
	assert.NilError(t, err)
	deps := strings.Fields(string(out))
	assert.Assert(t, slices.Contains(deps, "go.opentelemetry.io/otel/sdk/trace"), "abcd links the SDK")
	for _, pkg := range deps {
		for _, mod := range unlinked {
			assert.Check(t, pkg != mod && !strings.HasPrefix(pkg, mod+"/"), "abcd links %s", pkg)
		}
	}
}

func TestTheWorkspaceKeepsTheDependencyRule(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	pkgs := listPackages(t)
	assert.Assert(t, len(pkgs) > 10, "go list found too few packages: %d", len(pkgs))
	problems := Check(pkgs)
	assert.Assert(t, len(problems) == 0, "forbidden imports:\n%s", strings.Join(problems, "\n"))
}

func TestDomainRequiresNoModule(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir = filepath.Join(workspaceRoot(t), "domain")
	cmd.Env = append(cmd.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	assert.NilError(t, err)
	lines := strings.Fields(strings.TrimSpace(string(out)))
	assert.DeepEqual(t, lines, []string{Prefix + "domain"})
}

func TestCheckNamesEachForbiddenArrow(t *testing.T) {
	p := func(path string, imports ...string) Package { return Package{ImportPath: path, Imports: imports} }
	cases := []struct {
		pkg  Package
		want string
	}{
		{p(Prefix+"domain/oracle", Prefix+"ports"), "domain/oracle imports " + Prefix + "ports: domain may import only domain"},
		{p(Prefix+"domain/oracle", "github.com/google/uuid"), "domain is standard library only"},
		{p(Prefix+"ports/app", Prefix+"adapters/files"), "ports may import only domain, ports"},
		{p(Prefix+"frontdoors/cli", Prefix+"adapters/files"), "front doors reach adapters only in the composition root"},
		{p(Prefix+"frontdoors/mcp", Prefix+"schemas"), "frontdoors may import only domain, ports, frontdoors"},
		{p(Prefix+"adapters/files", Prefix+"frontdoors/cli"), "adapters may import only"},
		{p(Prefix+"adapters/files", "github.com/spf13/cobra"), "third-party import not allowed in adapters"},
		{p(Prefix+"ports/app", Prefix+"gen"), "nothing imports gen"},
		{p(Prefix+"ports/app", Prefix+"ports/fake"), "ports/fake is for tests"},
		{p(Prefix+"ports/app", "gotest.tools/v3/assert"), "third-party import not allowed in ports"},
		{p(Prefix+"tools/canary", Prefix+"frontdoors/abcdtest"), "tools may import only"},
		{p(Prefix+"ports/record", Prefix+"ports/internal/apptest"), "ports/internal/apptest is for tests"},
		{p(Prefix+"ports/internal/apptest", "github.com/google/uuid"), "third-party import not allowed in ports"},
		{p("example.com/elsewhere"), "outside the workspace's layers"},
		{p(Prefix+"adapters/runner", "go.opentelemetry.io/otel/trace"), "go.opentelemetry.io is confined to " + Prefix + "adapters/otel"},
		{p(Prefix+"ports/loop", "go.opentelemetry.io/otel"), "go.opentelemetry.io is confined to"},
		{Package{ImportPath: Prefix + "frontdoors/cmd/abcd", TestImports: []string{"go.opentelemetry.io/proto/otlp/trace/v1"}}, "go.opentelemetry.io is confined to"},
		{p(Prefix+"adapters/otel", "go.opentelemetry.io/proto/otlp/trace/v1"), "go.opentelemetry.io/proto is for tests only"},
		{p(Prefix+"adapters/otel", "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"), "go.opentelemetry.io/otel/exporters is for tests only"},
		{p(Prefix+"adapters/otel", "google.golang.org/grpc"), "google.golang.org/grpc is for tests only"},
		{p(Prefix+"adapters/otel", "google.golang.org/protobuf/proto"), "google.golang.org/protobuf is for tests only"},
		{Package{ImportPath: Prefix + "adapters/otel", TestImports: []string{"google.golang.org/protobuf/proto"}}, "google.golang.org/protobuf is confined to " + Prefix + "adapters/otel/otlptest"},
		{Package{ImportPath: Prefix + "frontdoors/cli", TestImports: []string{Prefix + "adapters/otel/otlptest"}}, "front doors reach adapters only in the composition root"},
		{p(compositionRoots[0], Prefix+"adapters/otel/otlptest"), "adapters/otel/otlptest is for tests"},
	}
	for _, c := range cases {
		got := Check([]Package{c.pkg})
		assert.Assert(t, is.Len(got, 1), "%v", c.pkg)
		assert.Assert(t, is.Contains(got[0], c.want))
	}
	allowed := []Package{
		p(compositionRoots[0], Prefix+"adapters/files", Prefix+"schemas", Prefix+"frontdoors/cli", "github.com/spf13/cobra"),
		{ImportPath: Prefix + "ports/app", Imports: []string{"context", Prefix + "domain/refusal"}, TestImports: []string{"gotest.tools/v3/assert", Prefix + "ports/fake"}},
		p(Prefix+"gen", Prefix+"ports/app", "github.com/invopop/jsonschema"),
		{ImportPath: Prefix + "tools/canary", XTestImports: []string{Prefix + "frontdoors/abcdtest"}},
		p(Prefix+"ports/internal/apptest", Prefix+"ports/fake", "gotest.tools/v3/assert", Prefix+"ports/app"),
		{ImportPath: Prefix + "ports/record", XTestImports: []string{Prefix + "ports/internal/apptest"}},
		p(Prefix+"adapters/otel", "go.opentelemetry.io/otel/sdk/trace", "github.com/go-logr/logr"),
		p(Prefix+"adapters/otel/otlptest", "go.opentelemetry.io/proto/otlp/collector/trace/v1", "google.golang.org/protobuf/encoding/protojson"),
		{ImportPath: compositionRoots[0], Imports: []string{Prefix + "adapters/otel"}, XTestImports: []string{Prefix + "adapters/otel/otlptest"}},
	}
	assert.Assert(t, is.Len(Check(allowed), 0))
}
