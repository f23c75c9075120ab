// Command differential writes the instances the differential test runs: for every schema published
// in schemas/v1, a valid instance and mutations that break each keyword it uses, generated from the
// schema alone and deterministically, each with abcd's own validator's verdict. The node test
// tools/contract/differential.test.mjs runs ajv over the same instances and requires the same
// verdict on every one.
//
//	go run ./frontdoors/internal/jsonschema/differential schemas/v1 > cases.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: differential SCHEMA_DIR")
		os.Exit(2)
	}
	cases, err := Cases(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(1)
	}
	out, err := encode(cases)
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

// Cases generates every schema's instances and judges each with abcd's validator.
func Cases(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("no schemas in %s", dir)
	}
	var cases []Case
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		compiled, err := jsonschema.Compile(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Base(f), err)
		}
		tree, err := strictjson.Parse(data, strictjson.Limits{MaxDepth: 128})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Base(f), err)
		}
		schema, ok := tree.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", filepath.Base(f))
		}
		for _, m := range generate(schema) {
			text, err := encode(m.value)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", filepath.Base(f), m.name, err)
			}
			c := Case{Schema: filepath.Base(f), Name: m.name, Instance: string(text), Intended: m.intended, Ours: true}
			// Judged from its text, as a front door judges what it reads.
			v, err := strictjson.Parse(text, strictjson.Limits{})
			if err != nil {
				return nil, fmt.Errorf("%s %s: the instance does not read back: %v", filepath.Base(f), m.name, err)
			}
			if verr := compiled.Validate(v); verr != nil {
				c.Ours, c.Why = false, verr.Error()
			}
			cases = append(cases, c)
		}
	}
	return cases, nil
}

// encode is json.Marshal without HTML escaping, so an instance's text is exactly its characters.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
