package config

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/abcd-dev/abcd/domain/text"
)

// Stack resolves keys over the layers: flag, repository, machine, bundled.
type Stack struct {
	sources []Source // highest first
}

// NewStack builds a stack from the layers present; nil layers are absent. The bundled layer comes
// from Keys' defaults.
func NewStack(flag, repo, machine *Source) *Stack {
	s := &Stack{}
	for _, src := range []*Source{flag, repo, machine} {
		if src != nil {
			s.sources = append(s.sources, *src)
		}
	}
	bundled := Source{Layer: LayerBundled, Origin: "bundled default", Values: map[string]json.RawMessage{}}
	for _, k := range Keys() {
		if k.Default != nil {
			bundled.Values[k.Pattern] = k.Default
		}
	}
	s.sources = append(s.sources, bundled)
	return s
}

// Found is one layer's value for a key.
type Found struct {
	Layer  Layer
	Origin string
	Raw    json.RawMessage
}

// Lookup lists every layer's value for key, highest first.
func (s *Stack) Lookup(key string) []Found {
	var out []Found
	for _, src := range s.sources {
		if v, ok := src.Values[key]; ok {
			out = append(out, Found{src.Layer, src.Origin, v})
		}
	}
	return out
}

// InForce lists every key abcd reads that any layer sets, sorted. Keys under a namespace abcd does
// not claim belong to another tool and are left out.
func (s *Stack) InForce() []string {
	set := map[string]bool{}
	for _, src := range s.sources {
		for k := range src.Values {
			if _, ok := Match(k); ok {
				set[k] = true
			}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ValueError refuses a winning value; it never falls through to a lower layer.
type ValueError struct {
	Key    string
	Layer  Layer
	Origin string
	Msg    string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s (%s layer, %s): %s", text.Clip(e.Key), e.Layer, e.Origin, e.Msg)
}

// Value is a resolved value with the layer and origin that supplied it.
type Value[T any] struct {
	V      T
	Layer  Layer
	Origin string
	Set    bool // false when no layer sets the key
}

// Winner checks and returns the winning value of key: the highest layer's, which must pass the key's
// check. A key no layer sets returns Set false.
func (s *Stack) Winner(key string) (Found, bool, error) {
	found := s.Lookup(key)
	if len(found) == 0 {
		return Found{}, false, nil
	}
	w := found[0]
	k, ok := Match(key)
	if !ok {
		return Found{}, false, &ValueError{key, w.Layer, w.Origin, "is not a key abcd reads"}
	}
	if k.check != nil {
		if err := k.check(w.Raw); err != nil {
			return Found{}, false, &ValueError{key, w.Layer, w.Origin, err.Error()}
		}
	}
	return w, true, nil
}

// Get decodes the winning value of key into T.
func Get[T any](s *Stack, key string) (Value[T], error) {
	var v Value[T]
	w, ok, err := s.Winner(key)
	if err != nil || !ok {
		return v, err
	}
	if err := json.Unmarshal(w.Raw, &v.V); err != nil {
		return v, &ValueError{key, w.Layer, w.Origin, "does not decode: " + err.Error()}
	}
	v.Layer, v.Origin, v.Set = w.Layer, w.Origin, true
	return v, nil
}
