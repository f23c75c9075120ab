package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzParse holds the one decoder to encoding/json. What Parse accepts, encoding/json accepts and
// decodes to the same value. What Parse refuses as malformed, encoding/json refuses with the same
// words at the same place. Parse may refuse more, and only for its own rules: a key named twice,
// text that is not UTF-8 or a lone surrogate, and nesting beyond its bound. Check agrees with Parse
// on every input, and ParseOpaque reads a well-formed payload as its text.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxDepth: 1000}
		got, err := Parse(data, lim)
		if cerr := Check(data, lim); !sameError(err, cerr) {
			t.Fatalf("Parse says %v, Check says %v: %q", err, cerr, data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		stdErr := dec.Decode(&want)
		if stdErr == nil && dec.InputOffset() != int64(len(bytes.TrimRight(data, " \t\r\n"))) {
			stdErr = errors.New("content after the value")
		}
		if err == nil {
			if stdErr != nil {
				t.Fatalf("Parse accepted what encoding/json refuses (%v): %q", stdErr, data)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse read %#v, encoding/json %#v: %q", got, want, data)
			}
			if obj, ok := got.(map[string]any); ok {
				for k := range obj {
					v, err := ParseOpaque(data, lim, []string{k})
					if err != nil {
						t.Fatalf("ParseOpaque refused a valid document: %v", err)
					}
					if raw, ok := v.(map[string]any)[k].(json.RawMessage); !ok || !json.Valid(raw) {
						t.Fatalf("ParseOpaque kept %q as %#v", k, v.(map[string]any)[k])
					}
				}
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Parse refused with %T, want an *Error: %v", err, err)
		}
		switch e.why {
		case rDuplicate, rDepth, rEncoding, rSurrogate:
			return // rules of its own
		case rSyntax, rTrailing, rEnd:
		default:
			t.Fatalf("unexpected refusal without a limit: %v", e)
		}
		var se *json.SyntaxError
		if uerr := json.Unmarshal(data, new(any)); !errors.As(uerr, &se) {
			t.Fatalf("Parse refused as malformed (%v) what encoding/json reads (%v): %q", e, uerr, data)
		}
		wantOffset := int64(e.Offset + 1)
		if e.Offset == len(data) {
			wantOffset = int64(len(data))
		}
		if se.Error() != e.Msg || se.Offset != wantOffset {
			t.Fatalf("Parse says %q at %d, encoding/json %q after %d bytes: %q", e.Msg, e.Offset, se.Error(), se.Offset, data)
		}
	})
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y *Error
	if !errors.As(a, &x) || !errors.As(b, &y) {
		return false
	}
	return x.Kind == y.Kind && x.Msg == y.Msg && x.Offset == y.Offset && x.Path == y.Path
}
