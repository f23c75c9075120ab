package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// strict runs the shared strict JSON check (one object, no key twice at any depth, nothing after
// it, valid UTF-8, bounded nesting) over a document of at most limit bytes, naming it what. It
// reports false when the document cannot be decoded at all.
func strict(what string, data []byte, limit int, p *problems) bool {
	if len(data) > limit {
		p.add("%s is %d bytes, more than the %d it may be: shorten it", what, len(data), limit)
		if len(data) > config.MaxFileBytes {
			return false
		}
	}
	err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: config.MaxFileBytes, MaxDepth: 32})
	if err == nil {
		return true
	}
	msg := what + " " + strictjson.Describe(err)
	if e := (*strictjson.Error)(nil); errors.As(err, &e) && (e.Kind == strictjson.Shape || strings.HasPrefix(e.Describe(), "is not JSON")) {
		msg += ": write the JSON document alone, with no prose, markdown or code fence around it"
	}
	*p = append(*p, msg)
	return false
}

// field is one member of a JSON object a return must carry.
type field struct {
	name string
	into any    // a pointer the member's value is decoded into
	want string // what the value must be, for a refusal: "a string", "a whole number", ...
}

// decodeObject decodes one JSON object member by member, so every unknown, missing, null or
// mistyped member is named, not only the first. owner names the object in refusals ("the return",
// "verdicts[2]"); prefix is the members' path ("", "dod."). It returns the names of the members it
// decoded, or nil when raw is no object. Names match exactly: encoding/json's case-insensitive
// matching would let "Summary" stand for "summary".
func decodeObject(raw json.RawMessage, owner, prefix string, fields []field, p *problems) map[string]bool {
	return decodeObjectOptional(raw, owner, prefix, fields, nil, p)
}

// decodeObjectOptional is decodeObject with members that may be absent (optional names them); the
// caller says when one is needed after all.
func decodeObjectOptional(raw json.RawMessage, owner, prefix string, fields []field, optional []string, p *problems) map[string]bool {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		p.add("%s must be an object; it is %s", owner, describe(raw))
		return nil
	}
	decoded := map[string]bool{}
	known := make([]string, len(fields))
	for i, f := range fields {
		known[i] = f.name
	}
	var unknown []string
	for k := range members {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		p.add("%s has the unknown field %q: remove it (its fields are %s)", owner, text.Clip(k), strings.Join(known, ", "))
	}
	for _, f := range fields {
		v, ok := members[f.name]
		switch {
		case !ok && slices.Contains(optional, f.name):
		case !ok:
			p.add("%s has no %q: add it as %s", owner, f.name, f.want)
		case !decodeValue(v, f.into):
			p.add("%q must be %s; it is %s", prefix+f.name, f.want, describe(v))
		default:
			decoded[f.name] = true
		}
	}
	return decoded
}

// decodeArray decodes a JSON array into its elements, or names the value that is not one.
func decodeArray(raw json.RawMessage, name, want string, p *problems) ([]json.RawMessage, bool) {
	var elems []json.RawMessage
	if !decodeValue(raw, &elems) {
		p.add("%q must be %s; it is %s", name, want, describe(raw))
		return nil, false
	}
	return elems, true
}

// describe names a JSON value's kind for a refusal, quoting a number or a short string.
func describe(raw json.RawMessage) string {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 {
		return "missing"
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return fmt.Sprintf("the string %q", text.Clip(s))
		}
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + text.Clip(string(v))
}

// decodeValue decodes one JSON value into the pointer into, refusing null, which encoding/json
// would take as "leave it as it is".
func decodeValue(raw json.RawMessage, into any) bool {
	return !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) && json.Unmarshal(raw, into) == nil
}
