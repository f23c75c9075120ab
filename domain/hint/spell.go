package hint

import (
	"reflect"
	"sync"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// Spell is v (a verb's result) with the Text of every next step in it spelled through r, at any
// depth: in a field, a pointer, a slice or an array. v itself is not changed. A result type that
// holds no step is returned as it is, without a walk, so a long listing costs nothing.
func Spell[T any](v T, r refusal.Renderer) T {
	out := reflect.ValueOf(&v).Elem()
	if !holds(out.Type()) {
		return v
	}
	spell(out, r)
	return v
}

var nextType = reflect.TypeFor[Next]()

// spell fills every Next under the addressable value v, copying what it changes (a pointer's
// target, a slice's elements) so the value it was handed keeps its own.
func spell(v reflect.Value, r refusal.Renderer) {
	t := v.Type()
	if !holds(t) {
		return
	}
	switch {
	case t == nextType:
		v.Set(reflect.ValueOf(v.Interface().(Next).Spelled(r)))
	case t.Kind() == reflect.Interface && !v.IsNil():
		inner := reflect.New(v.Elem().Type()).Elem()
		inner.Set(v.Elem())
		spell(inner, r)
		v.Set(inner)
	case t.Kind() == reflect.Pointer && !v.IsNil():
		inner := reflect.New(t.Elem())
		inner.Elem().Set(v.Elem())
		spell(inner.Elem(), r)
		v.Set(inner)
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				spell(v.Field(i), r)
			}
		}
	case t.Kind() == reflect.Slice && !v.IsNil():
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			spell(c.Index(i), r)
		}
		v.Set(c)
	case t.Kind() == reflect.Array:
		for i := range v.Len() {
			spell(v.Index(i), r)
		}
	}
}

// holdsCache remembers, per type, whether a value of it can hold a Next.
var holdsCache sync.Map

// holds reports whether a value of type t can hold a Next. An interface may hold anything.
func holds(t reflect.Type) bool {
	if known, ok := holdsCache.Load(t); ok {
		return known.(bool)
	}
	found := holdsWalk(t, map[reflect.Type]bool{})
	holdsCache.Store(t, found)
	return found
}

func holdsWalk(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == nextType || t.Kind() == reflect.Interface {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsWalk(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsWalk(f.Type, seen) {
				return true
			}
		}
	}
	return false
}
