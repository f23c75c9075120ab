package verb

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// Decode fills the verb's input from the arguments a front door collected, by field name (the CLI
// from its arguments and flags, MCP from the call's arguments). Every field is decoded through its
// type, and a value type checks itself as it is decoded, so the same value is refused the same way
// with the same code whichever door it came through. Refused: a field the input does not have, a
// required field that is missing, a value of the wrong JSON type, more items than a list allows, and
// whatever a field's own type refuses. Each refusal names the verb and the field.
func (v Verb) Decode(args map[string]any) (any, error) {
	in := reflect.New(v.inputType)
	fields := inputFields(v.inputType)
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	slices.Sort(names) // the first refusal is the same on every run
	for _, name := range names {
		if _, ok := fields[name]; !ok {
			return nil, refusal.New(refusal.CodeInputInvalid, "", fmt.Sprintf("takes no argument named %q", text.Clip(name)),
				"leave it out; ", refusal.Run("schema_show", refusal.With("name", v.Name+".input")), " lists what it takes").On(v.Name, "")
		}
	}
	for _, f := range sortedFields(fields) {
		raw, present := args[f.name]
		if !present {
			if f.required {
				return nil, refusal.New(refusal.CodeInputMissing, "", "is required", "give ", refusal.Field(v.Name, f.name)).On(v.Name, f.name)
			}
			continue
		}
		if err := f.decode(in.Elem().Field(f.index), raw); err != nil {
			if r, ok := refusal.As(err); ok {
				return nil, r.On(v.Name, f.name)
			}
			return nil, refusal.New(refusal.CodeInputInvalid, "", err.Error(), "give a value of the type its schema gives").On(v.Name, f.name)
		}
	}
	return in.Interface(), nil
}

// inputField is one field of an input type, as the decoder needs it.
type inputField struct {
	name     string
	index    int
	required bool
	maxItems int // 0: no bound
	typ      reflect.Type
}

var fieldCache sync.Map // reflect.Type -> map[string]inputField

// inputFields reads an input type's fields once: the JSON name, whether it is required (no
// omitempty), and a list's maxItems from the same tag the schema generator reads.
func inputFields(t reflect.Type) map[string]inputField {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]inputField)
	}
	m := map[string]inputField{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := inputField{name: name, index: i, required: !strings.Contains(opts, "omitempty"), typ: sf.Type}
		for _, part := range strings.Split(sf.Tag.Get("jsonschema"), ",") {
			if n, ok := strings.CutPrefix(part, "maxItems="); ok {
				f.maxItems, _ = strconv.Atoi(n)
			}
		}
		m[name] = f
	}
	fieldCache.Store(t, m)
	return m
}

func sortedFields(m map[string]inputField) []inputField {
	out := make([]inputField, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b inputField) int { return a.index - b.index })
	return out
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decode sets dst from one argument: a string, a bool, a number, or a list of strings.
func (f inputField) decode(dst reflect.Value, raw any) error {
	switch f.typ.Kind() {
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			return errors.New("must be a string")
		}
		return setString(dst, s)
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			return errors.New("must be a boolean")
		}
		dst.SetBool(b)
		return nil
	case reflect.Int:
		n, err := toInt(raw)
		if err != nil {
			return err
		}
		dst.SetInt(int64(n))
		return nil
	case reflect.Slice:
		list, ok := raw.([]any)
		if !ok {
			if ss, isStrings := raw.([]string); isStrings {
				for _, s := range ss {
					list = append(list, s)
				}
			} else {
				return errors.New("must be a list")
			}
		}
		if f.maxItems > 0 && len(list) > f.maxItems {
			return refusal.New(refusal.CodeInputInvalid, "", fmt.Sprintf("holds %d items; at most %d", len(list), f.maxItems), "give fewer")
		}
		out := reflect.MakeSlice(f.typ, len(list), len(list))
		for i, e := range list {
			s, ok := e.(string)
			if !ok || f.typ.Elem().Kind() != reflect.String {
				return fmt.Errorf("item %d must be a string", i)
			}
			if err := setString(out.Index(i), s); err != nil {
				return err
			}
		}
		dst.Set(out)
		return nil
	}
	return fmt.Errorf("has a type (%s) no front door can fill", f.typ)
}

// setString sets a string-kinded value, through its own check when its type has one.
func setString(dst reflect.Value, s string) error {
	if reflect.PointerTo(dst.Type()).Implements(textUnmarshaler) {
		return dst.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	dst.SetString(s)
	return nil
}

func toInt(raw any) (int, error) {
	switch n := raw.(type) {
	case int:
		return n, nil
	case float64:
		if n == float64(int(n)) {
			return int(n), nil
		}
	case json.Number:
		if i, err := strconv.Atoi(string(n)); err == nil {
			return i, nil
		}
		// A whole number JSON writes another way (2.0, 1e1) is still that number.
		if f, err := n.Float64(); err == nil && f == float64(int(f)) {
			return int(f), nil
		}
	}
	return 0, errors.New("must be a whole number")
}
