package setup

import (
	"context"
	"slices"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// ConfigShowInput optionally names one key.
type ConfigShowInput struct {
	Key config.KeyName `json:"key,omitempty"`
}

// ConfigShowResult is every key in force (or the one asked for), the value that won and every layer
// that sets it.
type ConfigShowResult struct {
	Files []ConfigFileStatus `json:"files"`
	Keys  []ConfigEntry      `json:"keys"`
}

// ConfigEntry is one key: the winning value, the layer and origin that supplied it, and every
// layer's value, highest first. Set is false for a key no layer sets.
type ConfigEntry struct {
	Key       string             `json:"key"`
	Set       bool               `json:"set"`
	Value     config.ValueText   `json:"value,omitempty"`
	Layer     string             `json:"layer"`
	Origin    string             `json:"origin"`
	Disagreed bool               `json:"disagreed"`
	Layers    []ConfigLayerValue `json:"layers"`
	Doc       string             `json:"doc"`
}

// ConfigLayerValue is one layer's value for a key.
type ConfigLayerValue struct {
	Layer  string           `json:"layer"`
	Origin string           `json:"origin"`
	Value  config.ValueText `json:"value"`
	Wins   bool             `json:"wins"`
	Agrees bool             `json:"agrees"`
}

func ConfigShowVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "config_show",
		Path:       []string{"config", "show"},
		Example:    "abcd config show\nabcd config show build.dod",
		Summary:    "Show every configuration key in force, the layer that won and every layer that disagreed",
		ReadOnly:   true,
		Idempotent: true,
	}, configShow)
}

func configShow(ctx context.Context, a *Deps, in *ConfigShowInput) (ConfigShowResult, error) {
	files, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return ConfigShowResult{}, err
	}
	res := ConfigShowResult{
		Files: []ConfigFileStatus{
			{Layer: config.LayerRepo.String(), Kind: fileConfig, Path: files.RepoConfig.Path, Present: files.RepoConfig.Present},
			{Layer: config.LayerMachine.String(), Kind: fileConfig, Path: files.MachineConfig.Path, Present: files.MachineConfig.Present},
		},
		Keys: []ConfigEntry{},
	}
	keys := allKeys(stack)
	if in.Key != "" {
		keys = []string{string(in.Key)}
	}
	for _, key := range keys {
		entry, err := configEntry(stack, key)
		if err != nil {
			return ConfigShowResult{}, err
		}
		res.Keys = append(res.Keys, entry)
	}
	return res, nil
}

func configEntry(stack *config.Stack, key string) (ConfigEntry, error) {
	e := ConfigEntry{Key: key, Layer: "none", Layers: []ConfigLayerValue{}}
	if k, ok := config.Match(key); ok {
		e.Doc = k.Doc
	}
	for _, k := range config.Keys() {
		if k.Pattern == key { // a pattern listed as itself, no file filling it yet
			e.Doc = k.Doc
		}
	}
	w, ok, err := stack.Winner(key)
	if err != nil {
		return e, core.ConfigRefusal(err)
	}
	if !ok {
		return e, nil
	}
	e.Set, e.Value, e.Layer, e.Origin = true, config.ValueText(w.Raw), w.Layer.String(), w.Origin
	for i, f := range stack.Lookup(key) {
		agrees := string(f.Raw) == string(w.Raw)
		e.Layers = append(e.Layers, ConfigLayerValue{Layer: f.Layer.String(), Origin: f.Origin, Value: config.ValueText(f.Raw), Wins: i == 0, Agrees: agrees})
		if !agrees {
			e.Disagreed = true
		}
	}
	return e, nil
}

// allKeys is every key config show lists: every key abcd reads, set or not, with its default; the
// keys a file sets under a pattern (a provider's, an agent's); and each pattern no file fills yet,
// as the pattern itself, so a person sees every key there is.
func allKeys(stack *config.Stack) []string {
	inForce := stack.InForce()
	seen := map[string]bool{}
	var out []string
	for _, k := range inForce {
		seen[k] = true
		out = append(out, k)
	}
	for _, k := range config.Keys() {
		if seen[k.Pattern] {
			continue
		}
		filled := false
		for _, f := range inForce {
			if m, ok := config.Match(f); ok && m.Pattern == k.Pattern {
				filled = true
				break
			}
		}
		if !filled {
			out = append(out, k.Pattern)
		}
	}
	slices.Sort(out)
	return out
}
