// Package instances generates, from a published schema alone and deterministically, a valid
// instance and mutations that break each keyword it uses, each judged by abcd's validator: the
// cases the differential test holds ajv to, and the cases every verb's typed input is held to.
package instances

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Case is one instance of one schema, and what abcd's validator says of it.
type Case struct {
	Schema   string `json:"schema"`             // the schema's file name in schemas/v1
	Name     string `json:"case"`               // where the instance differs from a valid one, and how
	Instance string `json:"instance"`           // the instance's JSON text, as both validators read it
	Intended *bool  `json:"intended,omitempty"` // the verdict the mutation was built to get, when it is sure
	Ours     bool   `json:"ours"`               // abcd's verdict
	Why      string `json:"why,omitempty"`      // abcd's refusal
}

// step is one step of a path into an instance: an object key, or an array index (key "").
type step struct {
	key   string
	index int
}

func pathString(path []step) string {
	var b strings.Builder
	for _, s := range path {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
}

// mutation is an instance built from the valid one, and what it was built to break.
type mutation struct {
	name     string
	value    any
	intended *bool
}

var (
	yes = ptr(true)
	no  = ptr(false)
)

func ptr(b bool) *bool { return &b }

// generator builds the instances of one schema deterministically: a minimal valid instance (the
// required members only), a full one (every member), and from the full one, mutations that break
// each keyword where it applies, one at a time, plus the boundary values each keyword allows.
type generator struct {
	root map[string]any
	out  []mutation
}

func generate(schema map[string]any) []mutation {
	g := &generator{root: schema}
	if v, ok := g.valid(schema, false, 0); ok {
		g.out = append(g.out, mutation{"valid: required members only", v, yes})
	}
	full, ok := g.valid(schema, true, 0)
	if !ok {
		return g.out
	}
	g.out = append(g.out, mutation{"valid: every member", full, yes})
	g.walk(full, schema, nil, full)
	return g.out
}

// resolve follows a local $ref.
func (g *generator) resolve(s map[string]any) map[string]any {
	for range 16 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		defs, _ := g.root["$defs"].(map[string]any)
		next, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if !ok {
			return s
		}
		s = next
	}
	return s
}

func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func num(s map[string]any, key string) (float64, bool) {
	n, ok := s[key].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func count(s map[string]any, key string) (int, bool) {
	f, ok := num(s, key)
	return int(f), ok
}

// valid makes a value the schema accepts: every member when full is set, else the required ones;
// variant picks among values, so items of a uniqueItems array differ.
func (g *generator) valid(s map[string]any, full bool, variant int) (any, bool) {
	s = g.resolve(s)
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[variant%len(enum)], true
	}
	if c, ok := s["const"]; ok {
		return c, true
	}
	if one, ok := s["oneOf"].([]any); ok && len(one) > 0 {
		sub, _ := one[0].(map[string]any)
		return g.valid(sub, full, variant)
	}
	ts := types(s)
	if len(ts) == 0 {
		return "any", true
	}
	switch ts[0] {
	case "object":
		return g.validObject(s, full, variant)
	case "array":
		items, _ := s["items"].(map[string]any)
		n := 1
		if !full {
			n = 0
		}
		if mi, ok := count(s, "minItems"); ok && mi > n {
			n = mi
		}
		if mx, ok := count(s, "maxItems"); ok && mx < n {
			n = mx
		}
		arr := []any{}
		for i := range n {
			if items == nil {
				arr = append(arr, json.Number(strconv.Itoa(i)))
				continue
			}
			v, ok := g.valid(items, full, variant+i)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
		}
		return arr, true
	case "string":
		return validString(s, variant)
	case "integer":
		n := 1 + variant
		if m, ok := num(s, "minimum"); ok {
			n = int(m) + variant
		}
		if m, ok := num(s, "maximum"); ok && float64(n) > m {
			n = int(m)
		}
		return json.Number(strconv.Itoa(n)), true
	case "number":
		f := 1.5 + float64(variant)
		if m, ok := num(s, "minimum"); ok && f < m {
			f = m + 0.5
		}
		if m, ok := num(s, "maximum"); ok && f > m {
			f = m
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
	case "boolean":
		return variant%2 == 0, true
	case "null":
		return nil, true
	}
	return nil, false
}

func (g *generator) validObject(s map[string]any, full bool, variant int) (any, bool) {
	obj := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if !full && !required[name] {
			continue
		}
		sub, _ := props[name].(map[string]any)
		v, ok := g.valid(sub, full, variant)
		if !ok {
			return nil, false
		}
		obj[name] = v
	}
	for name := range required {
		if _, ok := obj[name]; !ok {
			return nil, false // required but not described: no value can be made
		}
	}
	if add, ok := s["additionalProperties"].(map[string]any); ok && full {
		key, ok := g.freeKey(s, obj, variant)
		if ok {
			v, ok := g.valid(add, full, variant)
			if !ok {
				return nil, false
			}
			obj[key] = v
		}
	}
	return obj, true
}

// freeKey is a member name the object does not have that its propertyNames accept.
func (g *generator) freeKey(s map[string]any, obj map[string]any, variant int) (string, bool) {
	names, _ := s["propertyNames"].(map[string]any)
	for i := variant; i < variant+64; i++ {
		var key string
		if names != nil {
			v, ok := validString(g.resolve(names), i)
			if !ok {
				return "", false
			}
			key = v.(string)
		} else {
			key = "k" + strconv.Itoa(i)
		}
		if _, taken := obj[key]; !taken {
			if props, _ := s["properties"].(map[string]any); props[key] == nil {
				return key, true
			}
		}
	}
	return "", false
}

// formatSamples are values of each format abcd's schemas name: valid ones, then ones each
// validator must refuse, then the edge cases where validators are known to differ.
var formatSamples = map[string][]string{
	"date": {"2026-01-02", "2024-02-29", "2026-02-29", "2026-13-01", "2026-00-10", "2026-01-32", "2026-1-2",
		"20260102", "2026-01-02T00:00:00Z", "not a date", ""},
	"date-time": {"2026-01-02T15:04:05Z", "2026-01-02T15:04:05.123456789Z", "2026-01-02T15:04:05+01:00",
		"2026-01-02T15:04:05-0530", "2026-01-02t15:04:05z", "2026-01-02 15:04:05Z", "2026-01-02T15:04:05",
		"2026-01-02T24:00:00Z", "2026-01-02T23:59:60Z", "2026-06-30T23:59:60Z", "2026-01-02T23:59:60+01:00",
		"2024-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "2026-01-02T15:04Z", "2026-01-02T15:04:05+24:00",
		"2026-01-02", "not a time", ""},
	"uri": {"https://schemas.abcd.dev/v1/x.schema.json", "urn:isbn:0451450523", "mailto:someone@example.com",
		"http://[::1]:8080/path?q=1#frag", "http://127.0.0.1:7/", "file:///tmp/x", "a:b", "http://", "http:",
		"HTTPS://EXAMPLE.COM/", "https://example.com/%7Euser", "https://example.com/%zz", "https://exa mple.com/",
		"https://example.com/a b", "https://example.com/\u00fc", "https://[::1/", "1http://x", "//example.com/x",
		"/relative/path", "relative", "not a uri", "http://example.com:port/", "http://user@example.com/",
		"http://example.com/a\\b", ""},
}

// validString makes a string the schema accepts: from its enum, its format, or its pattern (the
// shortest match, grown to minLength), else letters.
func validString(s map[string]any, variant int) (any, bool) {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[variant%len(enum)], true
	}
	minLen, _ := count(s, "minLength")
	maxLen, hasMax := count(s, "maxLength")
	if !hasMax {
		maxLen = 1 << 30
	}
	if f, ok := s["format"].(string); ok {
		if samples := formatSamples[f]; len(samples) > 0 {
			return samples[0], true
		}
	}
	if p, ok := s["pattern"].(string); ok {
		return patternString(p, max(minLen, 1), maxLen, variant)
	}
	n := max(minLen, 1)
	if n > maxLen {
		return nil, false
	}
	return strings.Repeat(string(rune('a'+variant%26)), n), true
}

// patternString is a string pattern matches of between minLen and maxLen characters.
func patternString(pattern string, minLen, maxLen, variant int) (any, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	check := regexp.MustCompile(pattern)
	// Each grow adds about one character, so the search starts where the least sample falls short of
	// minLen (scanning from zero made long minimums quadratic); where a grow adds several and steps
	// over the length, the whole scan follows.
	none := 0
	short := max(0, minLen-utf8.RuneCountInString(sample(re, &none, variant)))
	for _, span := range [][2]int{{short, short + 64}, {0, minLen + 64}} {
		for extra := span[0]; extra <= span[1]; extra++ {
			grow := extra
			s := sample(re, &grow, variant)
			n := utf8.RuneCountInString(s)
			if n >= minLen && n <= maxLen && check.MatchString(s) {
				return s, true
			}
			if n > maxLen {
				break
			}
		}
	}
	return nil, false
}

// preferred are the characters a sample takes from a class, in order, when the class has them:
// plain ones, so a sample reads as what a person would write.
const preferred = "abcdefghijklmnopqrstuvwxyz0123456789-_.ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// sample writes a string re matches: each repetition taken its least number of times, plus grow
// more spread from the first repetition that can take them; from each class, the variant-th
// preferred character it holds.
func sample(re *syntax.Regexp, grow *int, variant int) string {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune)
	case syntax.OpCharClass:
		return string(classRune(re.Rune, variant))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return "a"
	case syntax.OpCapture:
		return sample(re.Sub[0], grow, variant)
	case syntax.OpConcat:
		var b strings.Builder
		for _, sub := range re.Sub {
			b.WriteString(sample(sub, grow, variant))
		}
		return b.String()
	case syntax.OpAlternate:
		return sample(re.Sub[variant%len(re.Sub)], grow, variant)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		n := lo
		if *grow > 0 {
			more := *grow
			if hi >= 0 {
				more = min(more, hi-lo)
			}
			n += more
			*grow -= more
		}
		var b strings.Builder
		for i := range n {
			b.WriteString(sample(re.Sub[0], grow, variant+i))
		}
		return b.String()
	}
	return "" // anchors and empty matches
}

func classRune(ranges []rune, variant int) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if r >= ranges[i] && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	held := 0
	for _, r := range preferred {
		if in(r) {
			held++
		}
	}
	if held == 0 {
		return ranges[0]
	}
	want := variant % held
	for _, r := range preferred {
		if in(r) {
			if want == 0 {
				return r
			}
			want--
		}
	}
	return ranges[0] // not reached: held counted want's character
}

// walk adds the mutations of the value v at path, which schema s describes, to the instance
// root, then walks into v's members and items.
func (g *generator) walk(v any, s map[string]any, path []step, root any) {
	s = g.resolve(s)
	at := pathString(path)
	add := func(name string, value any, intended *bool) {
		g.out = append(g.out, mutation{at + ": " + name, replace(root, path, value), intended})
	}
	ts := types(s)
	if len(ts) > 0 {
		for _, wrong := range wrongTypes(ts) {
			add("type "+wrong.name, wrong.value, no)
		}
		if slices.Contains(ts, "integer") {
			if n, ok := v.(json.Number); ok {
				add("type integer written with a fraction", json.Number(string(n)+".0"), nil)
				add("type integer in exponent form", json.Number(string(n)+"e0"), nil)
			}
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		add("enum given a value outside it", outside(enum), no)
	}
	if one, ok := s["oneOf"].([]any); ok && len(one) > 0 {
		for _, wrong := range wrongTypes(nil) {
			add("oneOf given "+wrong.name, wrong.value, nil)
		}
	}
	switch x := v.(type) {
	case string:
		g.walkString(s, add)
	case json.Number:
		g.walkNumber(s, ts, add)
	case []any:
		g.walkArray(x, s, path, root, add)
	case map[string]any:
		g.walkObject(x, s, path, root, add)
	}
}

func (g *generator) walkString(s map[string]any, add func(string, any, *bool)) {
	minLen, hasMin := count(s, "minLength")
	maxLen, hasMax := count(s, "maxLength")
	pattern, hasPattern := s["pattern"].(string)
	format, hasFormat := s["format"].(string)
	_, hasEnum := s["enum"]
	free := !hasPattern && !hasFormat && !hasEnum // only the lengths constrain it
	if hasMin && minLen > 0 {
		add(fmt.Sprintf("minLength %d given %d characters", minLen, minLen-1), strings.Repeat("a", minLen-1), no)
		if hasPattern {
			if str, ok := patternString(pattern, minLen, minLen, 0); ok {
				add(fmt.Sprintf("minLength %d given exactly %d", minLen, minLen), str, yes)
			}
		}
	}
	if hasMax {
		over := strings.Repeat("a", maxLen+1)
		if hasPattern {
			if str, ok := patternString(pattern, maxLen+1, maxLen+1, 0); ok {
				over = str.(string)
			}
		}
		add(fmt.Sprintf("maxLength %d given %d characters", maxLen, maxLen+1), over, no)
		if free {
			// Length is counted in characters (code points), not bytes nor UTF-16 units.
			add(fmt.Sprintf("maxLength %d given %d two-byte characters", maxLen, maxLen), strings.Repeat("é", maxLen), yes)
			add(fmt.Sprintf("maxLength %d given %d characters outside the BMP", maxLen, maxLen), strings.Repeat("😀", maxLen), yes)
			add(fmt.Sprintf("maxLength %d given %d characters outside the BMP", maxLen, maxLen+1), strings.Repeat("😀", maxLen+1), no)
		}
	}
	if hasPattern {
		base, _ := patternString(pattern, max(minLen, 1), max(maxLen, 1<<30), 0)
		b, _ := base.(string)
		for _, c := range []struct{ name, value string }{
			{"pattern given an empty string", ""},
			{"pattern given punctuation", "!"},
			{"pattern given a space", " "},
			{"pattern given a capital", strings.ToUpper(b)},
			{"pattern given a trailing line feed", b + "\n"},
			{"pattern given a leading line feed", "\n" + b},
			{"pattern given a trailing carriage return", b + "\r"},
			{"pattern given a slash", b + "/"},
			{"pattern given a backslash", b + "\\"},
			{"pattern given a non-ASCII letter", b + "é"},
			{"pattern given a non-ASCII digit", b + "٣"},
			{"pattern given a line separator", b + "\u2028"},
			{"pattern given a NUL", b + "\x00"},
		} {
			add(c.name, c.value, nil)
		}
	}
	if hasFormat {
		for _, sample := range formatSamples[format] {
			add(fmt.Sprintf("format %s given %q", format, sample), sample, nil)
		}
	}
}

func (g *generator) walkNumber(s map[string]any, ts []string, add func(string, any, *bool)) {
	integer := slices.Contains(ts, "integer")
	if m, ok := num(s, "minimum"); ok {
		add("minimum given the minimum", json.Number(fmtNum(m)), yes)
		if integer {
			add("minimum given one less", json.Number(fmtNum(m-1)), no)
		} else {
			add("minimum given a little less", json.Number(fmtNum(m-0.001)), no)
		}
		add("minimum given a negative zero", json.Number("-0"), nil)
	}
	if m, ok := num(s, "maximum"); ok {
		add("maximum given the maximum", json.Number(fmtNum(m)), yes)
		add("maximum given one more", json.Number(fmtNum(m+1)), no)
	}
	add("type number given 1e300", json.Number("1e300"), nil)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (g *generator) walkArray(arr []any, s map[string]any, path []step, root any, add func(string, any, *bool)) {
	items, _ := s["items"].(map[string]any)
	item := func(i int) any {
		if items == nil {
			return json.Number(strconv.Itoa(i))
		}
		v, ok := g.valid(items, true, i)
		if !ok {
			return nil
		}
		return v
	}
	if mi, ok := count(s, "minItems"); ok && mi > 0 {
		short := []any{}
		for i := range mi - 1 {
			short = append(short, item(i))
		}
		add(fmt.Sprintf("minItems %d given %d items", mi, mi-1), short, no)
	}
	if mx, ok := count(s, "maxItems"); ok {
		long := []any{}
		for i := range mx + 1 {
			long = append(long, item(i))
		}
		add(fmt.Sprintf("maxItems %d given %d items", mx, mx+1), long, no)
		exact := slices.Clone(long[:mx])
		add(fmt.Sprintf("maxItems %d given %d items", mx, mx), exact, nil)
	}
	if unique, _ := s["uniqueItems"].(bool); unique && len(arr) > 0 {
		add("uniqueItems given the same item twice", []any{arr[0], arr[0]}, no)
		if n, ok := arr[0].(json.Number); ok {
			add("uniqueItems given one number written two ways", []any{n, json.Number(string(n) + ".0")}, no)
		}
	}
	if len(arr) > 0 && items != nil {
		g.walk(arr[0], items, append(slices.Clone(path), step{index: 0}), root)
	}
}

func (g *generator) walkObject(obj map[string]any, s map[string]any, path []step, root any, add func(string, any, *bool)) {
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			name, _ := r.(string)
			cut := maps.Clone(obj)
			delete(cut, name)
			add(fmt.Sprintf("required %q missing", name), cut, no)
		}
	}
	switch extra := s["additionalProperties"].(type) {
	case bool:
		if !extra {
			more := maps.Clone(obj)
			more["zz_not_a_member"] = true
			add("additionalProperties false given another member", more, no)
			if keys := slices.Sorted(maps.Keys(obj)); len(keys) > 0 {
				upper := maps.Clone(obj)
				upper[strings.ToUpper(keys[0])] = obj[keys[0]]
				add("additionalProperties false given a member in capitals", upper, nil)
			}
		}
	case map[string]any:
		if key, ok := g.freeKey(s, obj, 7); ok {
			for _, wrong := range wrongTypes(types(g.resolve(extra))) {
				bad := maps.Clone(obj)
				bad[key] = wrong.value
				add("additionalProperties given a member of type "+wrong.name, bad, nil)
			}
		}
	}
	if _, ok := s["propertyNames"]; ok {
		for _, key := range []string{"Bad Name!", "", "a.b", strings.Repeat("a", 65), "é"} {
			if _, taken := obj[key]; taken {
				continue
			}
			bad := maps.Clone(obj)
			if addl, ok := s["additionalProperties"].(map[string]any); ok {
				bad[key], _ = g.valid(addl, false, 0)
			} else {
				bad[key] = true
			}
			add(fmt.Sprintf("propertyNames given the name %q", key), bad, nil)
		}
	}
	if mx, ok := count(s, "maxProperties"); ok {
		full := maps.Clone(obj)
		addl, _ := s["additionalProperties"].(map[string]any)
		for i := 0; len(full) <= mx && i < mx+64; i++ {
			key, ok := g.freeKey(s, full, i)
			if !ok {
				break
			}
			full[key], _ = g.valid(addl, false, i)
		}
		if len(full) == mx+1 {
			add(fmt.Sprintf("maxProperties %d given %d members", mx, mx+1), full, no)
		}
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		sub, ok := props[name].(map[string]any)
		if !ok {
			if addl, ok := s["additionalProperties"].(map[string]any); ok {
				sub = addl
			} else {
				continue
			}
		}
		g.walk(obj[name], sub, append(slices.Clone(path), step{key: name}), root)
	}
}

type typed struct {
	name  string
	value any
}

// wrongTypes are values of every JSON type the types do not allow ("integer" allows integers,
// "number" allows both); nil types allow none.
func wrongTypes(ts []string) []typed {
	all := []typed{
		{"string", "x"}, {"integer", json.Number("7")}, {"number", json.Number("2.5")}, {"boolean", true},
		{"null", nil}, {"object", map[string]any{}}, {"array", []any{}},
	}
	var out []typed
	for _, t := range all {
		allowed := slices.Contains(ts, t.name) || t.name == "integer" && slices.Contains(ts, "number")
		if !allowed {
			out = append(out, t)
		}
	}
	return out
}

// outside is a value of the enum's type that the enum does not hold.
func outside(enum []any) any {
	if len(enum) > 0 {
		if _, ok := enum[0].(json.Number); ok {
			return json.Number("987654")
		}
	}
	return "zz-not-in-the-enum"
}

// replace returns a copy of root with the value at path set to v; the copy shares what it does
// not change.
func replace(root any, path []step, v any) any {
	if len(path) == 0 {
		return v
	}
	switch x := root.(type) {
	case map[string]any:
		out := maps.Clone(x)
		out[path[0].key] = replace(x[path[0].key], path[1:], v)
		return out
	case []any:
		out := slices.Clone(x)
		out[path[0].index] = replace(x[path[0].index], path[1:], v)
		return out
	}
	return root
}
