package roster

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/internal/frontmatter"
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

// Parse reads one agent file: a front matter block holding exactly the seven keys of FrontMatter,
// read by the one front matter reader records use (flat key: value lines; bare, or double-quoted
// values with JSON escapes), then a non-empty prompt body. file names the source in errors and must
// end in <name>.md; it may be a path. Every refusal is a *ParseError.
func Parse(file string, data []byte) (Agent, error) {
	fail := func(line int, format string, args ...any) (Agent, error) {
		return Agent{}, &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxFileBytes {
		return fail(0, "file is %d bytes, over the limit of %d (256 KiB): shorten the prompt", len(data), MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return fail(1+bytes.Count(data[:invalidAt(data)], []byte("\n")), "invalid UTF-8: save the file as UTF-8")
	}
	b, fe := frontmatter.Read(data, frontmatter.Spec{Noun: "agent", Keys: keys, MaxBytes: MaxFrontMatterBytes})
	if fe != nil {
		return fail(fe.Line, "%s: %s", fe.Problem, fe.Remedy)
	}
	a, line, msg := agentOf(file, &b)
	if msg != "" {
		return fail(line, "%s", msg)
	}
	a.Body = string(data[b.Size:])
	if strings.TrimSpace(a.Body) == "" {
		return fail(b.Close, "no prompt body after the front matter: write the agent's prompt below the closing ---")
	}
	return a, nil
}

// agentOf checks each key's value, in key order so the first bad key reported is stable, and the
// rules across keys; it returns the line of the first problem and what it is.
func agentOf(file string, b *frontmatter.Block) (Agent, int, string) {
	a := Agent{File: file}
	for _, k := range keys {
		fd := b.Field(k)
		v := fd.Value
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
		if msg == "" && strings.TrimSpace(v) == "" {
			msg = fmt.Sprintf("key %q has an empty value: give it a value", k)
		}
		if msg != "" {
			return Agent{}, fd.Line, msg
		}
	}
	if a.CapabilityScope == ScopeReadOnly {
		for _, t := range a.Tools {
			if writeTools[toolName(t)] {
				return Agent{}, b.Field("tools").Line, fmt.Sprintf("a read-only agent lists %s, which writes files: remove it from tools or set capability_scope: read-write", t)
			}
		}
	}
	return a, 0, ""
}

// invalidAt is the offset of the first byte of data that is not UTF-8.
func invalidAt(data []byte) int {
	for off := 0; off < len(data); {
		c, size := utf8.DecodeRune(data[off:])
		if c == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return len(data)
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
