// Package arch enforces the dependency rule (docs/architecture.md) over the workspace's real import graph.
package arch

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Prefix is the workspace's one module path prefix.
const Prefix = "github.com/abcd-dev/abcd/"

// Package is what the rule needs of one package: its path and what it imports.
type Package struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// compositionRoots are the front-door packages that may reach adapters: abcd's, and the history
// store's helper binary's.
var compositionRoots = []string{Prefix + "frontdoors/cmd/abcd", Prefix + "frontdoors/cmd/abcd-history"}

// inner lists, per layer, the layers its production code may import.
var inner = map[string][]string{
	"domain":     {"domain"},
	"ports":      {"domain", "ports"},
	"adapters":   {"domain", "ports", "adapters", "schemas", "agents"},
	"frontdoors": {"domain", "ports", "frontdoors"},
	"gen":        {"domain", "ports", "gen"},
	"schemas":    {},
	"agents":     {},
	// tools drive adapters against real peers (the RepoPrompt client under the MCP conformance
	// suite, its benchmark); nothing imports tools.
	"tools": {"domain", "ports", "adapters", "tools"},
}

// outer lists, per layer, the third-party module prefixes its production code may import.
var outer = map[string][]string{
	// adapters/shell reads command lines with a real shell parser (mvdan.cc/sh's syntax package) for
	// the guard: a hand-written tokenizer is what lets bash -c, quotes and wrappers walk past a check.
	"adapters": {"mvdan.cc/sh/v3",
		// adapters/history keeps the agents' sessions in SQLite with FTS5, through modernc.org/sqlite
		// (pure Go): an embedded search engine rather than a home-made index. Only the helper binary
		// abcd-history links it (TestAbcdLinksNoDatabaseDriver).
		"modernc.org/sqlite", "modernc.org/libc", "modernc.org/mathutil", "modernc.org/memory",
		// adapters/sandbox fences a runner's processes with Landlock (landlock-lsm/go-landlock), and
		// builds its namespaces with golang.org/x/sys/unix, which go-landlock itself depends on: mounts,
		// descriptors passed over a socket, the loopback's flags, the capability sets.
		"github.com/landlock-lsm/go-landlock", "golang.org/x/sys",
		// adapters/otel exports runs as traces with the official OpenTelemetry Go SDK (go-logr is the
		// SDK's logging interface, silenced there), and OTLP/HTTP in its JSON encoding with an exporter
		// of its own: the SDK's exporters are refused below (unlinked); confined below.
		"go.opentelemetry.io/otel", "github.com/go-logr/logr"},
	"frontdoors": {"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/google/uuid"},
	"gen":        {"github.com/invopop/jsonschema"},
}

// confined are third-party modules only the packages named may import, whatever their layer allows
// (tests included): the OpenTelemetry SDK is adapters/otel's alone, and the OTLP protobuf
// definitions are its test receiver's (adapters/otel/otlptest), which the tests of adapters/otel and
// of the composition root use.
var confined = map[string][]string{
	"go.opentelemetry.io":        {Prefix + "adapters/otel", Prefix + "adapters/otel/otlptest"},
	"github.com/go-logr":         {Prefix + "adapters/otel"},
	"google.golang.org/protobuf": {Prefix + "adapters/otel/otlptest"},
}

// unlinked are module paths no package's code may import, only tests and test-support packages:
// the SDK's OTLP exporters import the OTLP protobuf types, and through them gRPC and grpc-gateway,
// whose package inits every abcd start (every hook call among them) would run, traces configured or
// not (454 linked packages against 313, 23 MB against 16; docs/performance.md).
var unlinked = []string{"go.opentelemetry.io/otel/exporters", "go.opentelemetry.io/proto", "google.golang.org/protobuf",
	"google.golang.org/grpc", "github.com/grpc-ecosystem"}

// testOnly may be imported by any layer's tests.
var testOnly = []string{"gotest.tools/v3", "github.com/google/go-cmp"}

// testOnlyFor are third-party modules the packages named may import in their code, every one of
// them a test-support package: the official OTLP protobuf definitions, to decode what the exporter
// sends as a real collector would.
var testOnlyFor = map[string][]string{
	Prefix + "adapters/otel/otlptest": {"go.opentelemetry.io/proto/otlp", "google.golang.org/protobuf"},
}

// binaryTests is the test-support package that builds the abcd binaries: tools' end-to-end tests
// drive the binary too, so their tests may import it (their code may not).
const binaryTests = Prefix + "frontdoors/abcdtest"

// testSupport are packages whose code exists only for tests (the worlds and helpers the families'
// tests share): their own imports are held to the rule for tests, and only tests may import them.
var testSupport = []string{Prefix + "ports/internal/apptest", Prefix + "adapters/otel/otlptest"}

// Check returns one line per import the rule does not allow, naming the importer and the import.
func Check(pkgs []Package) []string {
	var problems []string
	for _, p := range pkgs {
		layer := layerOf(p.ImportPath)
		if layer == "" {
			problems = append(problems, fmt.Sprintf("%s is outside the workspace's layers", p.ImportPath))
			continue
		}
		support := slices.Contains(testSupport, p.ImportPath)
		for _, imp := range p.Imports {
			if why := forbidden(p.ImportPath, layer, imp, support); why != "" {
				problems = append(problems, fmt.Sprintf("%s imports %s: %s", p.ImportPath, imp, why))
			}
		}
		for _, imp := range append(append([]string{}, p.TestImports...), p.XTestImports...) {
			if why := forbidden(p.ImportPath, layer, imp, true); why != "" {
				problems = append(problems, fmt.Sprintf("%s (test) imports %s: %s", p.ImportPath, imp, why))
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func layerOf(path string) string {
	rest, ok := strings.CutPrefix(path, Prefix)
	if !ok {
		return ""
	}
	layer, _, _ := strings.Cut(rest, "/")
	if _, known := inner[layer]; !known {
		return ""
	}
	return layer
}

func forbidden(from, layer, imp string, test bool) string {
	if isStd(imp) {
		return ""
	}
	if to := layerOf(imp); to != "" {
		if to == "gen" && layer != "gen" {
			return "nothing imports gen"
		}
		if to == "tools" && layer != "tools" {
			return "nothing imports tools"
		}
		if imp == Prefix+"ports/fake" && !test && from != imp {
			return "ports/fake is for tests"
		}
		if slices.Contains(testSupport, imp) && !test {
			return imp + " is for tests"
		}
		if imp == binaryTests && test && layer == "tools" {
			return ""
		}
		if layer == "frontdoors" && slices.Contains(compositionRoots, from) && (to == "adapters" || to == "schemas" || to == "agents") {
			return ""
		}
		for _, ok := range inner[layer] {
			if to == ok {
				return ""
			}
		}
		if layer == "frontdoors" && to == "adapters" {
			return "front doors reach adapters only in the composition root (frontdoors/cmd/abcd)"
		}
		return fmt.Sprintf("%s may import only %s", layer, strings.Join(inner[layer], ", "))
	}
	if strings.HasPrefix(imp, Prefix) {
		return "not a package of a known layer"
	}
	for _, mod := range unlinked {
		if !test && (imp == mod || strings.HasPrefix(imp, mod+"/")) {
			return mod + " is for tests only: it would link protobuf and gRPC into every abcd start"
		}
	}
	for mod, only := range confined {
		if (imp == mod || strings.HasPrefix(imp, mod+"/")) && !slices.Contains(only, from) {
			return fmt.Sprintf("%s is confined to %s", mod, strings.Join(only, ", "))
		}
	}
	allowed := outer[layer]
	if test {
		allowed = append(append([]string{}, allowed...), testOnly...)
	}
	allowed = append(append([]string{}, allowed...), testOnlyFor[from]...)
	for _, mod := range allowed {
		if imp == mod || strings.HasPrefix(imp, mod+"/") {
			return ""
		}
	}
	if layer == "domain" {
		return "domain is standard library only"
	}
	return fmt.Sprintf("third-party import not allowed in %s (allowed: %s)", layer, strings.Join(allowed, ", "))
}

// isStd reports a standard-library path: its first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
