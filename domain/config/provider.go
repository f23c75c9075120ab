package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/text"
)

// Bounds on the provider keys' values.
const (
	MaxModels       = 64  // a provider's allowlist
	MaxModelIDBytes = 200 // one model id, as a receipt's model_reported
	MaxDenyEntries  = 256 // one layer's denylist
	maxKeyFileBytes = 4096
)

// modelPattern is a model id as providers spell them: gpt-4o, meta-llama/Llama-3-70b, qwen2.5:7b,
// accounts/fireworks/models/x, @cf/meta/llama. No space, quote, control or URL punctuation.
var modelPattern = pattern.New(`^[A-Za-z0-9@][A-Za-z0-9._:/@+-]*$`)

// vendorPattern is the vendor part of a vendor/* denylist entry.
var vendorPattern = pattern.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ProviderSettings are the settings an OpenAI-compatible provider accepts, sorted. Any other is
// refused before a call, never dropped.
func ProviderSettings() []string {
	return []string{"frequency_penalty", "max_tokens", "presence_penalty", "seed", "stop", "temperature", "top_p"}
}

func isProviderSetting(s string) bool {
	for _, k := range ProviderSettings() {
		if s == k {
			return true
		}
	}
	return false
}

// CheckProviderSetting checks one setting's JSON value for a provider: its name must be one the
// provider accepts and its value in that setting's range. The refusal names the range, never the
// value.
func CheckProviderSetting(name string, v json.RawMessage) error {
	number := func(lo, hi float64) error {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) || f < lo || f > hi {
			return fmt.Errorf("takes a number from %g to %g", lo, hi)
		}
		return nil
	}
	whole := func(lo, hi float64) error {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) || f != math.Trunc(f) || f < lo || f > hi {
			return fmt.Errorf("takes a whole number from %.0f to %.0f", lo, hi)
		}
		return nil
	}
	switch name {
	case "frequency_penalty", "presence_penalty":
		return number(-2, 2)
	case "temperature":
		return number(0, 2)
	case "top_p":
		return number(0, 1)
	case "max_tokens":
		return whole(1, 1<<24)
	case "seed":
		return whole(-(1 << 53), 1<<53)
	case "stop":
		return stringMax(256)(v)
	}
	return fmt.Errorf("is not a setting a provider accepts: use one of %s", strings.Join(ProviderSettings(), ", "))
}

// ValidModelID reports whether s is a model id abcd will put in a request or a receipt. No model id
// holds //, so none reads as an address.
func ValidModelID(s string) bool {
	return s != "" && len(s) <= MaxModelIDBytes && modelPattern.MatchString(s) && !strings.Contains(s, "//")
}

const modelForm = "takes a model id of 1 to 200 bytes: letters, digits and . _ : / @ + - (such as gpt-4o or meta-llama/llama-3-70b)"

func modelID(v json.RawMessage) error {
	s, err := stringOf(v)
	if err != nil {
		return err
	}
	if !ValidModelID(s) {
		return fmt.Errorf("%s", modelForm)
	}
	return nil
}

// DecodeList decodes a list key's JSON array of strings.
func DecodeList(v json.RawMessage) ([]string, error) {
	var out []string
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &out) != nil {
		return nil, fmt.Errorf("takes a JSON array of strings")
	}
	return out, nil
}

func modelList(v json.RawMessage) error {
	ids, err := DecodeList(v)
	if err != nil {
		return err
	}
	if len(ids) < 1 || len(ids) > MaxModels {
		return fmt.Errorf("takes 1 to %d model ids; it holds %d", MaxModels, len(ids))
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if !ValidModelID(id) {
			return fmt.Errorf("item %d: %s", i, modelForm)
		}
		if seen[id] {
			return fmt.Errorf("item %d repeats %q: list each model once", i, id)
		}
		seen[id] = true
	}
	return nil
}

// ValidDenyEntry reports whether s is a denylist entry: vendor/* or a model id.
func ValidDenyEntry(s string) bool {
	if vendor, ok := strings.CutSuffix(s, "/*"); ok {
		return len(s) <= MaxModelIDBytes && vendorPattern.MatchString(vendor)
	}
	return ValidModelID(s)
}

func denyList(v json.RawMessage) error {
	entries, err := DecodeList(v)
	if err != nil {
		return err
	}
	if len(entries) > MaxDenyEntries {
		return fmt.Errorf("holds %d entries, over the limit of %d", len(entries), MaxDenyEntries)
	}
	for i, e := range entries {
		if !ValidDenyEntry(e) {
			return fmt.Errorf("item %d takes vendor/* or a model id (letters, digits and . _ : / @ + -, at most 200 bytes)", i)
		}
	}
	return nil
}

// absPath admits an absolute, clean path with no NUL; the file itself is checked when it is read.
func absPath(v json.RawMessage) error {
	s, err := stringOf(v)
	if err != nil {
		return err
	}
	if s == "" || len(s) > maxKeyFileBytes || !path.IsAbs(s) || path.Clean(s) != s || strings.ContainsRune(s, 0) {
		return fmt.Errorf("takes an absolute, clean path (such as /home/you/.abcd/openai.key)")
	}
	return nil
}

// Union lists every layer's entries for a list key, layers highest first, each layer's value
// checked: one that fails its check refuses, naming its layer. Entries repeat as the layers give
// them; a key no layer sets is an empty list.
func (s *Stack) Union(key string) ([]string, error) {
	k, ok := Match(key)
	if !ok || !k.List {
		return nil, &ValueError{key, LayerNone, "", "is not a list key"}
	}
	var out []string
	for _, f := range s.Lookup(key) {
		if k.check != nil {
			if err := k.check(f.Raw); err != nil {
				return nil, &ValueError{key, f.Layer, f.Origin, err.Error()}
			}
		}
		items, err := DecodeList(f.Raw)
		if err != nil {
			return nil, &ValueError{key, f.Layer, f.Origin, err.Error()}
		}
		out = append(out, items...)
	}
	return out, nil
}

// Members lists the names one segment takes under prefix in any layer: Members("oracle.api") is
// every provider name a file declares, sorted.
func (s *Stack) Members(prefix string) []string {
	set := map[string]bool{}
	for _, src := range s.sources {
		for k := range src.Values {
			rest, ok := strings.CutPrefix(k, prefix+".")
			if !ok {
				continue
			}
			name, _, _ := strings.Cut(rest, ".")
			set[name] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ValueText is one value as a file holds it: a scalar's JSON text, or a list key's array. It is
// written out as that JSON.
type ValueText string

// MarshalJSON writes the value's JSON text as it was given.
func (v ValueText) MarshalJSON() ([]byte, error) {
	if v == "" {
		return []byte(`""`), nil
	}
	return []byte(v), nil
}

// UnmarshalJSON keeps the value's JSON text as it is, so a document that carries one reads back to
// the same value it was written from.
func (v *ValueText) UnmarshalJSON(data []byte) error {
	*v = ValueText(append([]byte(nil), data...))
	return nil
}

// CheckValue checks one value against the rule of the key that governs it, as a read would: the
// one home of every key's rule, for a front door's value types and for a writer about to save it.
func CheckValue(key string, v json.RawMessage) error {
	k, ok := Match(key)
	if !ok {
		return fmt.Errorf("%s is not a key abcd reads", text.Clip(key))
	}
	if k.check == nil {
		return nil
	}
	return k.check(v)
}
