package jsonschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

// emitted is one keyword as gen writes it: its first value and where.
type emitted struct {
	value any
	where string
}

// schemaKeywords walks a schema document in its schema positions (not into the values of
// properties, enum, required and the like) and collects every keyword it uses.
func schemaKeywords(s any, where string, into map[string]emitted, formats, patterns map[string]string) {
	obj, ok := s.(map[string]any)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		at := where + "/" + k
		if _, seen := into[k]; !seen {
			into[k] = emitted{v, at}
		}
		switch k {
		case "properties", "patternProperties", "$defs":
			sub, _ := v.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(sub)) {
				schemaKeywords(sub[name], at+"/"+name, into, formats, patterns)
			}
		case "items", "additionalProperties", "propertyNames", "not":
			schemaKeywords(v, at, into, formats, patterns)
		case "allOf", "anyOf", "oneOf":
			arr, _ := v.([]any)
			for i, sub := range arr {
				schemaKeywords(sub, fmt.Sprintf("%s/%d", at, i), into, formats, patterns)
			}
		case "format":
			if f, ok := v.(string); ok {
				formats[f] = at
			}
		case "pattern":
			if p, ok := v.(string); ok {
				patterns[p] = at
			}
		}
	}
}

// TestEveryKeywordGenEmitsIsImplemented is the build-time check that the validator enforces the
// whole vocabulary gen writes into schemas/v1 (which the drift gate holds to gen's output): each
// keyword, with a value gen gave it, compiles on its own (an unknown keyword refuses to compile, so
// the failure names it); each format is one the validator asserts (ajv-formats asserts every format
// it knows, so an unasserted one would let the two disagree); and each pattern means the same to Go's
// RE2 and to ECMAScript, the engine ajv and every other reader of the schemas run.
func TestEveryKeywordGenEmitsIsImplemented(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "schemas", "v1", "*.schema.json"))
	if err != nil || len(files) < 10 {
		t.Fatalf("found %d schemas: %v", len(files), err)
	}
	keywords, formats, patterns := map[string]emitted{}, map[string]string{}, map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := strictjson.Parse(data, strictjson.Limits{MaxDepth: 128})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		schemaKeywords(doc, filepath.Base(f)+"#", keywords, formats, patterns)
	}
	for _, k := range slices.Sorted(maps.Keys(anyMap(keywords))) {
		e := keywords[k]
		one, err := json.Marshal(map[string]any{k: e.value})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Compile(one); err != nil {
			t.Errorf("gen emits the keyword %q (first at %s), which the validator does not implement: %v", k, e.where, err)
		}
	}
	for f, where := range formats {
		if checkFormat(f, "\x00") == "" {
			t.Errorf("gen emits the format %q (at %s), which the validator does not assert: assert it in format.go as ajv-formats does", f, where)
		}
	}
	for p, where := range patterns {
		if why := unportable(p); why != "" {
			t.Errorf("gen emits the pattern %q (at %s), which %s: Go and ECMAScript would read it differently", p, where, why)
		}
	}
	t.Logf("%d keywords, %d formats, %d patterns", len(keywords), len(formats), len(patterns))
}

func anyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// unportable says why a pattern may match differently under RE2 and ECMAScript, or "" when it is in
// the subset both read alike: literals, bracket classes, \d, anchors at the text's ends,
// alternation, groups and counted repetition.
func unportable(p string) string {
	// A non-capturing group reads the same in both; every other (? construct (flags, named groups,
	// look-arounds) does not.
	plain := strings.ReplaceAll(p, `(?:`, `(`)
	for _, esc := range []string{`\s`, `\S`, `\w`, `\W`, `\b`, `\B`, `\p`, `\P`, `\z`, `\Z`, `\A`, `(?`} {
		if strings.Contains(plain, esc) {
			return "uses " + esc
		}
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "does not parse: " + err.Error()
	}
	var why string
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			why = "uses . (the engines differ on which line breaks it matches)"
		case syntax.OpBeginLine, syntax.OpEndLine:
			why = "anchors at line ends"
		case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			why = "uses a word boundary"
		}
		if re.Flags&syntax.FoldCase != 0 {
			why = "folds case"
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	walk(re)
	return why
}

// TestUnportablePatternsAreNamed: the pattern check above can fail.
func TestUnportablePatternsAreNamed(t *testing.T) {
	for _, p := range []string{`^a.b$`, `^\s+$`, `(?i)^abc$`, `\bword`, `(?m)^a$`, `(?P<n>a)`, `(?:(?i)a)`} {
		if unportable(p) == "" {
			t.Errorf("%q passed as portable", p)
		}
	}
	for _, p := range []string{`^[a-z][a-z0-9-]{0,63}$`, `^[^/\\]*$`, `^\d{4}$`, `^(a|bc)?[.]x$`, `^[0-9a-f]{40}([0-9a-f]{24})?$`, `^a(?:[b-c]*d)?$`} {
		if why := unportable(p); why != "" {
			t.Errorf("%q refused: %s", p, why)
		}
	}
}
