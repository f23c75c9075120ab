package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

// Layer is where a value came from. Higher layers win.
type Layer int

const (
	LayerNone Layer = iota
	LayerBundled
	LayerMachine
	LayerRepo
	LayerFlag
)

// Layers lists every layer, highest first.
func Layers() []Layer { return []Layer{LayerFlag, LayerRepo, LayerMachine, LayerBundled, LayerNone} }

func (l Layer) String() string {
	switch l {
	case LayerBundled:
		return "bundled"
	case LayerMachine:
		return "machine"
	case LayerRepo:
		return "repository"
	case LayerFlag:
		return "flag"
	}
	return "none"
}

// Source is one layer's values, flattened to dotted keys (oracle.rp.url), each kept as its JSON text.
type Source struct {
	Layer  Layer
	Origin string // the file's path, or the flag text as typed
	Values map[string]json.RawMessage
}

// ParseConfig reads one configuration file strictly: one object, no duplicate key at any depth,
// nothing trailing, schema_version 1, and every leaf a string, a number or a boolean, except a list
// key's (oracle.api.<name>.models, oracle.denylist), which is an array checked when it is read.
func ParseConfig(layer Layer, file string, data []byte) (Source, error) {
	if err := CheckStrict(file, data); err != nil {
		return Source{}, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Source{}, &FileError{file, "is not a JSON object: " + err.Error()}
	}
	if err := checkSchemaVersion(file, top); err != nil {
		return Source{}, err
	}
	src := Source{Layer: layer, Origin: file, Values: map[string]json.RawMessage{}}
	delete(top, "schema_version")
	if err := flatten(file, "", top, src.Values); err != nil {
		return Source{}, err
	}
	return src, nil
}

func flatten(file, prefix string, obj map[string]json.RawMessage, out map[string]json.RawMessage) error {
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !validSegment(k) {
			return &FileError{file, fmt.Sprintf("key %q is not a name: use letters, digits, _ and -", text.Clip(join(prefix, k)))}
		}
		key := join(prefix, k)
		raw := bytes.TrimSpace(obj[k])
		switch {
		case len(raw) > 0 && raw[0] == '{':
			var child map[string]json.RawMessage
			if err := json.Unmarshal(raw, &child); err != nil {
				return &FileError{file, fmt.Sprintf("key %q: %v", text.Clip(key), err)}
			}
			if err := flatten(file, key, child, out); err != nil {
				return err
			}
		case len(raw) > 0 && raw[0] == '[' && isListKey(key):
			out[key] = json.RawMessage(raw) // checked with its key, when read
		case len(raw) > 0 && (raw[0] == '[' || raw[0] == 'n'):
			return &FileError{file, fmt.Sprintf("key %q holds %s: every key takes a string, a number or a boolean, and only %s take a list", text.Clip(key), kindOf(raw), listWords(listPatterns()))}
		default:
			out[key] = json.RawMessage(raw)
		}
	}
	return nil
}

func isListKey(key string) bool {
	k, ok := Match(key)
	return ok && k.List
}

// listPatterns names the keys that take a list, for a refusal.
func listPatterns() []string {
	var out []string
	for _, k := range Keys() {
		if k.List {
			out = append(out, k.Pattern)
		}
	}
	return out
}

// listWords joins words as English lists them: "a", "a and b", "a, b and c".
func listWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func kindOf(raw []byte) string {
	if raw[0] == '[' {
		return "an array"
	}
	return "null"
}

func validSegment(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// FlagSource is the flag layer built from key=value texts as typed; a value is a string unless it is
// true, false or a JSON number.
func FlagSource(origin string, values map[string]string) Source {
	src := Source{Layer: LayerFlag, Origin: origin, Values: map[string]json.RawMessage{}}
	for k, v := range values {
		src.Values[k] = ScalarText(v)
	}
	return src
}

// ScalarText turns typed text into a JSON scalar.
func ScalarText(v string) json.RawMessage {
	if v == "true" || v == "false" {
		return json.RawMessage(v)
	}
	var n json.Number
	if json.Unmarshal([]byte(v), &n) == nil && !strings.ContainsAny(v, " \t\"") {
		return json.RawMessage(v)
	}
	data, _ := json.Marshal(v)
	return data
}
