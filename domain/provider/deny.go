package provider

import "strings"

// Denylist holds the models no provider may be asked for or answer with: vendor/* prefixes and model
// ids. It is matched ignoring case and a :variant suffix, so deepseek/deepseek-r1 also denies
// DeepSeek/DeepSeek-R1:free.
type Denylist struct {
	entries []string // as configured, for messages
	keys    []string // normalised, same order
}

// NewDenylist keeps entries (checked by the configuration layer) in order, repeats dropped.
func NewDenylist(entries []string) Denylist {
	var d Denylist
	seen := map[string]bool{}
	for _, e := range entries {
		k := normalise(e)
		if seen[k] {
			continue
		}
		seen[k] = true
		d.entries = append(d.entries, e)
		d.keys = append(d.keys, k)
	}
	return d
}

// Entries lists the entries in force.
func (d Denylist) Entries() []string { return append([]string(nil), d.entries...) }

// normalise folds case and cuts a :variant suffix (qwen2.5:7b is qwen2.5).
func normalise(s string) string {
	s = strings.ToLower(s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Denies reports whether the denylist denies model, and the entry that does.
func (d Denylist) Denies(model string) (entry string, denied bool) {
	m := normalise(model)
	for i, k := range d.keys {
		if vendor, ok := strings.CutSuffix(k, "/*"); ok {
			if strings.HasPrefix(m, vendor+"/") {
				return d.entries[i], true
			}
			continue
		}
		if m == k {
			return d.entries[i], true
		}
	}
	return "", false
}
