package roster

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseError is a refusal of one agent file. Line is 1-based; 0 means the
// file as a whole (for instance, its size). Msg names the remedy.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

const fence = "---"

// Parse reads one agent file: a front matter block between --- lines holding
// exactly the seven keys of FrontMatter as flat key: value lines, then a
// non-empty prompt body. file names the source in errors and must end in
// <name>.md; it may be a path. Every refusal is a *ParseError.
//
// Values a YAML reader would see differently from abcd (flow syntax, an inline
// " #" comment, a nested ": ") are refused rather than guessed at, so that the
// harness and abcd always agree on what a file says.
func Parse(file string, data []byte) (Agent, error) {
	fail := func(line int, format string, args ...any) (Agent, error) {
		return Agent{}, &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxFileBytes {
		return fail(0, "file is %d bytes, over the limit of %d (256 KiB): shorten the prompt", len(data), MaxFileBytes)
	}
	if off := invalidUTF8(data); off >= 0 {
		return fail(1+bytes.Count(data[:off], []byte("\n")), "invalid UTF-8: save the file as UTF-8")
	}

	r := lineReader{data: data}
	first, ok := r.next()
	switch {
	case !ok:
		return fail(1, "file is empty: start it with a --- line, the front matter keys, and a closing --- line")
	case strings.HasPrefix(first, "\ufeff"):
		return fail(1, "file starts with a byte-order mark: save it as UTF-8 without a BOM")
	case first != fence && strings.TrimRight(first, " \t") == fence:
		return fail(1, "opening --- has trailing whitespace: remove it")
	case first != fence:
		return fail(1, "line 1 must be --- to open the front matter: add a --- line before the first key")
	}

	seen := make(map[string]int, len(keys))
	values := make(map[string]string, len(keys))
	closing := 0
	fmBytes := 0
	for {
		start := r.pos
		line, ok := r.next()
		if !ok {
			return fail(1, "the front matter opened on line 1 is never closed: add a --- line after the last key")
		}
		n := r.line
		if line == fence {
			closing = n
			break
		}
		if fmBytes += r.pos - start; fmBytes > MaxFrontMatterBytes {
			return fail(n, "front matter exceeds %d bytes (8 KiB): shorten the description", MaxFrontMatterBytes)
		}
		if c, bad := controlChar(line); bad {
			return fail(n, "control character U+%04X in front matter: remove it", c)
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if strings.TrimRight(line, " \t") == fence {
			return fail(n, "closing --- has trailing whitespace: remove it")
		}
		key, rest, msg := splitKeyValue(line)
		if msg != "" {
			return fail(n, "%s", msg)
		}
		if !isKey(key) {
			return fail(n, "unknown key %q: allowed keys are %s", key, strings.Join(keys, ", "))
		}
		if prev, dup := seen[key]; dup {
			return fail(n, "duplicate key %q (first on line %d): keep one", key, prev)
		}
		seen[key] = n
		value, msg := unquote(strings.TrimSpace(rest))
		if msg != "" {
			return fail(n, "%s: %s", key, msg)
		}
		if strings.TrimSpace(value) == "" {
			return fail(n, "key %q has an empty value: give it a value", key)
		}
		values[key] = value
	}

	var missing []string
	for _, k := range keys {
		if _, ok := seen[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fail(closing, "missing required key(s) %s: add them before the closing ---", strings.Join(missing, ", "))
	}

	var a Agent
	a.File = file
	// Values are checked in key order so the first bad key reported is stable.
	for _, k := range keys {
		v, n := values[k], seen[k]
		var msg string
		switch k {
		case "name":
			a.Name, msg = v, checkName(file, v)
		case "description":
			a.Description = v
		case "prompt_version":
			a.PromptVersion, msg = parseVersion(v)
		case "reads_untrusted_input":
			a.ReadsUntrustedInput, msg = parseBool(k, v)
		case "capability_scope":
			msg = oneOf(k, v, scopes)
			a.CapabilityScope = CapabilityScope(v)
		case "tools":
			a.Tools, msg = parseTools(v)
		case "model":
			a.Model, msg = v, oneOf(k, v, models)
		}
		if msg != "" {
			return fail(n, "%s", msg)
		}
	}
	if a.CapabilityScope == ScopeReadOnly {
		for _, t := range a.Tools {
			if writeTools[toolName(t)] {
				return fail(seen["tools"], "a read-only agent lists %s, which writes files: remove it from tools or set capability_scope: read-write", t)
			}
		}
	}

	a.Body = string(data[r.pos:])
	if strings.TrimSpace(a.Body) == "" {
		return fail(closing, "no prompt body after the front matter: write the agent's prompt below the closing ---")
	}
	return a, nil
}

type lineReader struct {
	data []byte
	pos  int // offset of the next unread byte
	line int // 1-based number of the line last returned
}

// next returns the next line without its \n or \r\n ending.
func (r *lineReader) next() (string, bool) {
	if r.pos >= len(r.data) {
		return "", false
	}
	rest := r.data[r.pos:]
	raw := rest
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		raw = rest[:i]
		r.pos += i + 1
	} else {
		r.pos = len(r.data)
	}
	r.line++
	return string(bytes.TrimSuffix(raw, []byte("\r"))), true
}

func invalidUTF8(data []byte) int {
	for off := 0; off < len(data); {
		c, size := utf8.DecodeRune(data[off:])
		if c == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return -1
}

func controlChar(line string) (rune, bool) {
	for _, c := range line {
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return c, true
		}
	}
	return 0, false
}

func splitKeyValue(line string) (key, rest, msg string) {
	const notKV = "not a key: value line: write one key per line, unindented, as key: value (close the front matter with --- before the prompt body)"
	if line[0] == ' ' || line[0] == '\t' {
		return "", "", "indented line: the front matter is flat key: value lines, remove the indentation"
	}
	i := strings.IndexByte(line, ':')
	if i <= 0 || !keyPattern.MatchString(line[:i]) {
		return "", "", notKV
	}
	rest = line[i+1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", "no space after the colon: write key: value"
	}
	return line[:i], rest, ""
}

func isKey(k string) bool {
	for _, known := range keys {
		if k == known {
			return true
		}
	}
	return false
}

// unquote strips one pair of matching quotes, and refuses what a YAML reader
// would parse as something other than this plain string.
func unquote(v string) (string, string) {
	if v == "" {
		return "", ""
	}
	if q := v[0]; q == '"' || q == '\'' {
		if len(v) < 2 || v[len(v)-1] != q {
			return "", fmt.Sprintf("value opens a %c quote but does not end with one: close the quote, with nothing after it", q)
		}
		inner := v[1 : len(v)-1]
		if strings.IndexByte(inner, q) >= 0 {
			return "", fmt.Sprintf("value quoted with %c also contains %c: quote it with the other quote character", q, q)
		}
		if q == '"' && strings.IndexByte(inner, '\\') >= 0 {
			return "", "double-quoted value contains a backslash, which YAML reads as an escape: use single quotes"
		}
		return inner, ""
	}
	const remedy = "wrap the value in double quotes"
	if strings.IndexByte("[]{},#&*!|>%@`", v[0]) >= 0 {
		return "", fmt.Sprintf("value starts with %q, which YAML reads as syntax: %s", v[0], remedy)
	}
	if strings.IndexByte("-?:", v[0]) >= 0 && (len(v) == 1 || v[1] == ' ' || v[1] == '\t') {
		return "", fmt.Sprintf("value starts with %q, which YAML reads as syntax: %s", v[0], remedy)
	}
	if strings.Contains(v, ": ") || strings.Contains(v, ":\t") || strings.HasSuffix(v, ":") {
		return "", "value contains a colon followed by a space or line end, which YAML reads as a nested key: " + remedy
	}
	if strings.Contains(v, " #") || strings.Contains(v, "\t#") {
		return "", "value contains \" #\", which YAML reads as the start of a comment: " + remedy
	}
	return v, ""
}

func checkName(file, name string) string {
	if !ValidName(name) {
		return fmt.Sprintf("name %q does not match ^[a-z][a-z0-9-]{0,63}$: use lowercase letters, digits and hyphens, starting with a letter", name)
	}
	base := file[strings.LastIndexAny(file, `/\`)+1:]
	if want := strings.TrimSuffix(base, ".md"); name != want || want == base {
		return fmt.Sprintf("name %q does not match the file name %q: name the file %s.md, or set name to the file's base name", name, base, name)
	}
	return ""
}

func parseVersion(v string) (int, string) {
	bad := fmt.Sprintf("prompt_version %q is not a positive integer: write a whole number such as 1, without sign or leading zeros", v)
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, bad
		}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || v[0] == '0' {
		return 0, bad
	}
	return n, ""
}

func parseBool(key, v string) (bool, string) {
	switch v {
	case "true":
		return true, ""
	case "false":
		return false, ""
	}
	return false, fmt.Sprintf("%s %q is not a boolean: write true or false", key, v)
}

func oneOf(key, v string, allowed []string) string {
	for _, a := range allowed {
		if v == a {
			return ""
		}
	}
	return fmt.Sprintf("%s %q is not allowed: use one of %s", key, v, strings.Join(allowed, ", "))
}

func parseTools(v string) ([]string, string) {
	parts := strings.Split(v, ",")
	tools := make([]string, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	for i, p := range parts {
		t := strings.TrimSpace(p)
		switch {
		case t == "":
			return nil, fmt.Sprintf("tools entry %d is empty: list tool names separated by commas, such as Read, Grep, Glob", i+1)
		case !ValidTool(t):
			return nil, fmt.Sprintf("tools entry %q is not a tool name: write a name such as Read, optionally with one (specifier) such as Bash(git diff:*)", t)
		case seen[t]:
			return nil, fmt.Sprintf("tools lists %q twice: remove one", t)
		}
		seen[t] = true
		tools = append(tools, t)
	}
	return tools, ""
}

// toolName drops a (specifier): Edit(docs/**) still writes files.
func toolName(t string) string {
	if i := strings.IndexByte(t, '('); i >= 0 {
		return t[:i]
	}
	return t
}
