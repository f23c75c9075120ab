package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

// Mismatch says, in a person's words, where a well-formed JSON document does not fit the value v
// points to, as encoding/json decodes it with unknown fields refused: the path to the place
// ("agents.ruthless-reviewer.tier"), what it must be and what it is, or the unknown field and the
// fields there are. encoding/json's own errors name Go's types ("cannot unmarshal number into Go
// struct field Row.agents.tier of type oracle.Tier"), leave map keys out of the path and give no
// path for an unknown field; a refusal quotes this instead. It returns "" when it finds no
// mismatch (the caller then says what the decoder said). A type with its own UnmarshalJSON is
// decoded by it, and its error, already in the type's words, is given at its path.
func Mismatch(data []byte, v any) string {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return ""
	}
	return fit(data, t.Elem(), "", 0)
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// maxFitDepth bounds the walk, as the strict check bounds a document's nesting.
const maxFitDepth = 64

func fit(raw []byte, t reflect.Type, path string, depth int) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || depth > maxFitDepth {
		return "" // encoding/json leaves a null's target as it is
	}
	where := path
	if where == "" {
		where = "the document"
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
			return where + ": " + text.Clip(err.Error())
		}
		return ""
	}
	switch t.Kind() {
	case reflect.Pointer:
		return fit(raw, t.Elem(), path, depth+1)
	case reflect.Struct:
		return fitStruct(raw, t, path, where, depth)
	case reflect.Map:
		var members map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
			return mustBe(where, "an object", raw)
		}
		for _, k := range sortedKeys(members) {
			if m := fit(members[k], t.Elem(), join(path, k), depth+1); m != "" {
				return m
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return fitScalar(raw, t, where, "a base64 string")
		}
		var elems []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
			return mustBe(where, "an array", raw)
		}
		for i, e := range elems {
			if m := fit(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1); m != "" {
				return m
			}
		}
	case reflect.String:
		return fitScalar(raw, t, where, "a string")
	case reflect.Bool:
		return fitScalar(raw, t, where, "true or false")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fitScalar(raw, t, where, "a whole number")
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fitScalar(raw, t, where, "a whole number, 0 or more")
	case reflect.Float32, reflect.Float64:
		return fitScalar(raw, t, where, "a number")
	}
	return ""
}

// fitStruct checks an object's members against a struct's JSON fields: an unknown one first, then
// each known one in the order the struct declares them.
func fitStruct(raw []byte, t reflect.Type, path, where string, depth int) string {
	var members map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
		return mustBe(where, "an object", raw)
	}
	names, types := jsonFields(t)
	for _, k := range sortedKeys(members) {
		if !slices.Contains(names, k) {
			return fmt.Sprintf("%s has the unknown field %q: its fields are %s", where, text.Clip(k), strings.Join(names, ", "))
		}
	}
	for i, name := range names {
		if v, ok := members[name]; ok {
			if m := fit(v, types[i], join(path, name), depth+1); m != "" {
				return m
			}
		}
	}
	return ""
}

// fitScalar decodes one scalar into a fresh value of t: encoding/json's own check of the kind and
// the range, said as what it must be and what it is.
func fitScalar(raw []byte, t reflect.Type, where, want string) string {
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return mustBe(where, want, raw)
	}
	return ""
}

// jsonFields are a struct's members as encoding/json names them, with their types, embedded
// structs' members included, in declaration order.
func jsonFields(t reflect.Type) ([]string, []reflect.Type) {
	var names []string
	var types []reflect.Type
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				n, ty := jsonFields(ft)
				names, types = append(names, n...), append(types, ty...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names, types = append(names, name), append(types, f.Type)
	}
	return names, types
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// join adds a key to a path; a key that is not a plain name is quoted, so no character of it reaches
// a terminal unescaped.
func join(path, key string) string {
	k := text.Clip(key)
	if k == "" || strings.IndexFunc(k, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		k = strconv.Quote(k)
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

func mustBe(where, want string, raw []byte) string {
	return fmt.Sprintf("%s must be %s; it is %s", where, want, kindOf(raw))
}

// kindOf names a JSON value for a refusal, quoting a short string or a number.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return fmt.Sprintf("the string %q", text.Clip(s))
		}
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "the boolean " + string(raw)
	}
	return "the number " + text.Clip(string(raw))
}
