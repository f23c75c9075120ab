package instances

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

// Cases generates every schema's instances and judges each with abcd's validator.
func Cases(dir string) ([]Case, error) { return CasesOf(dir, "*.schema.json") }

// CasesOf is Cases for the schemas in dir whose file names match glob ("*.input.schema.json").
func CasesOf(dir, glob string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, glob))
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
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		tree, err := strictjson.Parse(data, strictjson.Limits{MaxDepth: 128})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		schema, ok := tree.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", filepath.Base(f))
		}
		for _, m := range generate(schema) {
			text, err := Encode(m.value)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", filepath.Base(f), m.name, err)
			}
			c := Case{Schema: filepath.Base(f), Name: m.name, Instance: string(text), Intended: m.intended, Ours: true}
			// Judged from its text, as a front door judges what it reads.
			v, err := strictjson.Parse(text, strictjson.Limits{})
			if err != nil {
				return nil, fmt.Errorf("%s %s: the instance does not read back: %w", filepath.Base(f), m.name, err)
			}
			if verr := compiled.Validate(v); verr != nil {
				c.Ours, c.Why = false, verr.Error()
			}
			cases = append(cases, c)
		}
	}
	return cases, nil
}

// Encode is json.Marshal without HTML escaping, so an instance's text is exactly its characters.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
