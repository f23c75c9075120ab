// Command benchref measures the JSON Schema validator the MCP door runs (frontdoors/internal/
// jsonschema) beside github.com/santhosh-tekuri/jsonschema/v6, the maintained 2020-12 validator it
// could be replaced by, on abcd's own published schemas, in one run on one machine:
//
//   - agreement: both judge every instance of the differential test
//     (frontdoors/internal/jsonschema/differential), whose verdicts ajv confirms;
//   - cost: compiling every published schema, validating a typical tools/call argument set, and
//     validating a large result, in ns/op, B/op and allocs/op, with santhosh-tekuri's figure over
//     ours as the ratio.
//
// It is a module of its own, outside go.work, so the product never requires the reference: run it
// from this folder with GOWORK=off (make bench does).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
)

func main() {
	testing.Init()
	root := flag.String("root", filepath.Join("..", "..", "..", ".."), "the repository root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "benchref:", err)
		os.Exit(1)
	}
}

type schemaFile struct {
	name string
	id   string
	data []byte
}

func run(root string) error {
	files, err := readSchemas(filepath.Join(root, "schemas", "v1"))
	if err != nil {
		return err
	}
	ours, err := compileOurs(files)
	if err != nil {
		return err
	}
	theirs, err := compileTheirs(files)
	if err != nil {
		return err
	}
	if err := agreement(root, ours, theirs); err != nil {
		return err
	}

	args := mustParse(`{"text":"the status board resolves routes with an empty connection set while open uses the App's","severity":"major","source":"ruthless-reviewer","related":["itd-2611300000000001","spc-2611300000000002"]}`)
	large, err := largeResult(root)
	if err != nil {
		return err
	}
	fmt.Printf("JSON Schema validation: abcd's subset vs santhosh-tekuri/jsonschema v6.0.3 (%d published schemas; large result %d bytes)\n", len(files), large.size)
	fmt.Printf("%-40s %14s %12s %10s %14s %12s %10s %8s\n", "operation", "abcd ns/op", "B/op", "allocs/op", "santhosh ns/op", "B/op", "allocs/op", "ratio")
	compare("compile every published schema",
		func() { _, _ = compileOurs(files) },
		func() { _, _ = compileTheirs(files) })
	compare("validate capture arguments (tools/call)",
		func() { _ = ours["capture.input.schema.json"].Validate(args) },
		func() { _ = theirs["capture.input.schema.json"].Validate(args) })
	compare("validate a large schema_list result",
		func() { _ = ours["schema_list.result.schema.json"].Validate(large.value) },
		func() { _ = theirs["schema_list.result.schema.json"].Validate(large.value) })
	return nil
}

func readSchemas(dir string) ([]schemaFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no schemas in %s: %v", dir, err)
	}
	slices.Sort(paths)
	var out []schemaFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var head struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(data, &head); err != nil || head.ID == "" {
			return nil, fmt.Errorf("%s: no $id", p)
		}
		out = append(out, schemaFile{filepath.Base(p), head.ID, data})
	}
	return out, nil
}

func compileOurs(files []schemaFile) (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	for _, f := range files {
		s, err := jsonschema.Compile(f.data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.name, err)
		}
		out[f.name] = s
	}
	return out, nil
}

// compileTheirs compiles as a caller asserting formats would (formats are annotations by default in
// 2020-12; abcd and ajv-formats assert them).
func compileTheirs(files []schemaFile) (map[string]*santhosh.Schema, error) {
	c := santhosh.NewCompiler()
	c.AssertFormat()
	for _, f := range files {
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader(f.data))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(f.id, doc); err != nil {
			return nil, fmt.Errorf("%s: %v", f.name, err)
		}
	}
	out := map[string]*santhosh.Schema{}
	for _, f := range files {
		s, err := c.Compile(f.id)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.name, err)
		}
		out[f.name] = s
	}
	return out, nil
}

// agreement runs santhosh-tekuri over the differential test's instances and counts where its verdict
// differs from abcd's (which ajv's matches on every one, as the differential test requires).
func agreement(root string, ours map[string]*jsonschema.Schema, theirs map[string]*santhosh.Schema) error {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "run", "./frontdoors/internal/jsonschema/differential", "schemas/v1")
	cmd.Dir = absRoot
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(absRoot, "go.work"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("the differential cases: %v", err)
	}
	var cases []struct {
		Schema   string `json:"schema"`
		Name     string `json:"case"`
		Instance string `json:"instance"`
		Ours     bool   `json:"ours"`
	}
	if err := json.Unmarshal(out, &cases); err != nil {
		return err
	}
	var differ []string
	for _, c := range cases {
		v, err := santhosh.UnmarshalJSON(strings.NewReader(c.Instance))
		if err != nil {
			return fmt.Errorf("%s %s: %v", c.Schema, c.Name, err)
		}
		if got := theirs[c.Schema].Validate(v) == nil; got != c.Ours {
			differ = append(differ, fmt.Sprintf("  %s %s: santhosh-tekuri %s, ajv and abcd %s", c.Schema, c.Name, verdict(got), verdict(c.Ours)))
		}
	}
	fmt.Printf("agreement with ajv over the differential test's instances: abcd %d of %d, santhosh-tekuri %d of %d\n",
		len(cases), len(cases), len(cases)-len(differ), len(cases))
	for i, d := range differ {
		if i == 12 {
			fmt.Printf("  ... and %d more\n", len(differ)-i)
			break
		}
		fmt.Println(d)
	}
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "accepts"
	}
	return "refuses"
}

func mustParse(doc string) any {
	v, err := strictjson.Parse([]byte(doc), strictjson.Limits{})
	if err != nil {
		panic(err)
	}
	return v
}

type sized struct {
	value any
	size  int
}

// largeResult is a schema_list result of the published index's entries, repeated to about a
// thousand: a result the door checks against its outputSchema before answering.
func largeResult(root string) (sized, error) {
	data, err := os.ReadFile(filepath.Join(root, "schemas", "v1", "index.json"))
	if err != nil {
		return sized{}, err
	}
	var index struct {
		Namespace string           `json:"namespace"`
		Schemas   []map[string]any `json:"schemas"`
	}
	if err := json.Unmarshal(data, &index); err != nil {
		return sized{}, err
	}
	var entries []map[string]any
	for len(entries) < 1000 {
		entries = append(entries, index.Schemas...)
	}
	doc, err := json.Marshal(map[string]any{"namespace": index.Namespace, "schemas": entries})
	if err != nil {
		return sized{}, err
	}
	return sized{mustParse(string(doc)), len(doc)}, nil
}

func compare(name string, ours, theirs func()) {
	a := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ours()
		}
	})
	t := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			theirs()
		}
	})
	fmt.Printf("%-40s %14d %12d %10d %14d %12d %10d %7.1fx\n", name,
		a.NsPerOp(), a.AllocedBytesPerOp(), a.AllocsPerOp(),
		t.NsPerOp(), t.AllocedBytesPerOp(), t.AllocsPerOp(),
		float64(t.NsPerOp())/float64(max(a.NsPerOp(), 1)))
}
