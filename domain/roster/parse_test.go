package roster

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// validFM is a complete front matter; in doc() its keys sit on lines 2-8 and
// the closing --- on line 9.
const validFM = "name: x\n" +
	"description: \"Reviews things.\"\n" +
	"prompt_version: 1\n" +
	"reads_untrusted_input: true\n" +
	"capability_scope: read-only\n" +
	"tools: \"Read, Grep\"\n" +
	"model: inherit\n"

func doc(fm string) string { return "---\n" + fm + "---\nBody.\n" }

// withLine replaces the line of key in validFM; an empty line removes it.
func withLine(key, line string) string { return replaceLine(validFM, key, line) }

func replaceLine(fm, key, line string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(fm, "\n") {
		if strings.HasPrefix(l, key+":") {
			if line != "" {
				b.WriteString(line + "\n")
			}
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

func TestParseValid(t *testing.T) {
	want := Agent{
		FrontMatter: FrontMatter{
			Name:                "x",
			Description:         "Reviews things.",
			PromptVersion:       1,
			ReadsUntrustedInput: true,
			CapabilityScope:     ScopeReadOnly,
			Tools:               []string{"Read", "Grep"},
			Model:               "inherit",
		},
		File: "agents/x.md",
		Body: "Body.\n",
	}
	a, err := Parse("agents/x.md", []byte(doc(validFM)))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Parse = %+v\nwant %+v", a, want)
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		data  string
		check func(t *testing.T, a Agent)
	}{
		{
			name: "CRLF line endings",
			file: "x.md",
			data: strings.ReplaceAll(doc(validFM), "\n", "\r\n"),
			check: func(t *testing.T, a Agent) {
				if a.Description != "Reviews things." || a.Model != "inherit" || a.Body != "Body.\r\n" {
					t.Errorf("got %+v", a)
				}
			},
		},
		{
			name: "quoted values with JSON escapes",
			file: "x.md",
			data: doc(`name: "x"` + "\n" +
				`description: "Use when: a # b, \"quoted\" \\ ok \u00e9"` + "\n" +
				`prompt_version: "12"` + "\n" +
				`reads_untrusted_input: "false"` + "\n" +
				`capability_scope: "read-write"` + "\n" +
				`tools: "Read, Edit"` + "\n" +
				`model: "opus"` + "\n"),
			check: func(t *testing.T, a Agent) {
				want := FrontMatter{"x", `Use when: a # b, "quoted" \ ok é`, 12, false, ScopeReadWrite, []string{"Read", "Edit"}, "opus"}
				if !reflect.DeepEqual(a.FrontMatter, want) {
					t.Errorf("got %+v\nwant %+v", a.FrontMatter, want)
				}
			},
		},
		{
			name: "blank lines, other key order",
			file: "x.md",
			data: doc("\nmodel: haiku\n\n" + withLine("model", "")),
			check: func(t *testing.T, a Agent) {
				if a.Model != "haiku" || a.Name != "x" {
					t.Errorf("got %+v", a)
				}
			},
		},
		{
			name: "tool specifiers and spacing",
			file: "x.md",
			data: doc(withLine("tools", `tools:   "Read ,Bash(git diff:*),  Bash(git log:*) , mcp__rp__search  "`)),
			check: func(t *testing.T, a Agent) {
				want := []string{"Read", "Bash(git diff:*)", "Bash(git log:*)", "mcp__rp__search"}
				if !reflect.DeepEqual(a.Tools, want) {
					t.Errorf("Tools = %q, want %q", a.Tools, want)
				}
			},
		},
		{
			name: "read-write agent may list write tools",
			file: "x.md",
			data: doc(replaceLine(withLine("capability_scope", "capability_scope: read-write"), "tools", `tools: "Edit, Write, NotebookEdit"`)),
			check: func(t *testing.T, a Agent) {
				if a.CapabilityScope != ScopeReadWrite || len(a.Tools) != 3 {
					t.Errorf("got %+v", a.FrontMatter)
				}
			},
		},
		{
			name: "backslash path",
			file: `C:\repo\agents\x.md`,
			data: doc(validFM),
		},
		{
			name: "absolute path",
			file: "/repo/agents/x.md",
			data: doc(validFM),
		},
		{
			name: "body is everything after the closing line",
			file: "x.md",
			data: "---\n" + validFM + "---\n\n---\nname: not front matter\n\tindented",
			check: func(t *testing.T, a Agent) {
				if a.Body != "\n---\nname: not front matter\n\tindented" {
					t.Errorf("Body = %q", a.Body)
				}
			},
		},
		{
			name: "file exactly at the size limit",
			file: "x.md",
			data: doc(validFM) + strings.Repeat("a", MaxFileBytes-len(doc(validFM))),
		},
		{
			name: "front matter exactly at the size limit",
			file: "x.md",
			data: doc(withLine("description", `description: "`+strings.Repeat("a", MaxFrontMatterBytes-len(validFM)-6)+`"`)),
		},
		{
			name: "long name",
			file: strings.Repeat("a", 64) + ".md",
			data: doc(withLine("name", "name: "+strings.Repeat("a", 64))),
		},
		{
			name: "value with inner colon and hash without spaces",
			file: "x.md",
			data: doc(withLine("description", `description: "see https://example.com/a#b, C# code, it's fine"`)),
			check: func(t *testing.T, a Agent) {
				if a.Description != "see https://example.com/a#b, C# code, it's fine" {
					t.Errorf("Description = %q", a.Description)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse(tt.file, []byte(tt.data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if a.File != tt.file {
				t.Errorf("File = %q, want %q", a.File, tt.file)
			}
			if tt.check != nil {
				tt.check(t, a)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	long := strings.Repeat("a", MaxFrontMatterBytes)
	tests := []struct {
		name string
		file string // default agents/x.md
		data string
		line int
		msg  string // a substring of the message
	}{
		{"file too large", "", doc(validFM) + strings.Repeat("a", MaxFileBytes), 0, "256 KiB"},
		{"invalid UTF-8", "", doc(withLine("description", "description: \"a\xffb\"")), 3, "invalid UTF-8"},
		{"invalid UTF-8 in body", "", doc(validFM) + "ok\n\xc3", 12, "invalid UTF-8"},
		{"empty file", "", "", 1, "the file is empty"},
		{"byte-order mark", "", "\ufeff" + doc(validFM), 1, "byte-order mark"},
		{"no opening line", "", validFM + "---\nBody\n", 1, "line 1 is not ---"},
		{"opening with trailing space", "", "--- \n" + validFM + "---\nBody\n", 1, "opening --- has trailing white space"},
		{"never closed", "", "---\n" + validFM, 1, "never closed"},
		{"closing with trailing space", "", "---\n" + validFM + "---\t\nBody\n", 9, "closing --- has trailing white space"},
		{"body without closing line", "", "---\n" + validFM + "You review code.\n", 9, "not a key: value line"},
		{"not key value", "", doc("name x\n" + withLine("name", "")), 2, "not a key: value line"},
		{"key with space", "", doc("the name: x\n" + withLine("name", "")), 2, "not a key: value line"},
		{"quoted key", "", doc(`"name": x` + "\n" + withLine("name", "")), 2, "not a key: value line"},
		{"colon first", "", doc(": x\n" + validFM), 2, "not a key: value line"},
		{"comment", "", doc("# the agent\n" + validFM), 2, "comment line in the front matter"},
		{"indented key", "", doc("  name: x\n" + withLine("name", "")), 2, "remove the indentation"},
		{"no space after colon", "", doc("name:x\n" + withLine("name", "")), 2, "no space after the colon"},
		{"unknown key", "", doc(validFM + "color: red\n"), 9, "unknown key \"color\": remove it: the allowed keys are name, description, prompt_version, reads_untrusted_input, capability_scope, tools, model"},
		{"key case matters", "", doc("Name: x\n" + withLine("name", "")), 2, "unknown key \"Name\""},
		{"duplicate key", "", doc(validFM + "\nname: x\n"), 10, "key name appears twice (first on line 2)"},
		{"missing key", "", doc(withLine("model", "")), 8, "missing key(s) model: add them"},
		{"missing keys", "", doc(withLine("tools", "")[len("name: x\n"):]), 7, "missing key(s) name, tools:"},
		{"empty front matter", "", doc(""), 2, "missing key(s) name, description, prompt_version, reads_untrusted_input, capability_scope, tools, model"},
		{"empty value", "", doc(withLine("description", "description:")), 3, "has no value"},
		{"blank value", "", doc(withLine("description", "description:   ")), 3, "has no value"},
		{"empty quoted value", "", doc(withLine("description", `description: ""`)), 3, "empty value"},
		{"blank quoted value", "", doc(withLine("description", `description: "  "`)), 3, "empty value"},
		{"name pattern", "X.md", doc(withLine("name", "name: X")), 2, "does not match ^[a-z][a-z0-9-]{0,63}$"},
		{"name with underscore", "a_b.md", doc(withLine("name", "name: a_b")), 2, "does not match ^[a-z]"},
		{"name too long", strings.Repeat("a", 65) + ".md", doc(withLine("name", "name: "+strings.Repeat("a", 65))), 2, "does not match ^[a-z]"},
		{"name differs from file", "agents/y.md", doc(validFM), 2, `does not match the file name "y.md"`},
		{"file not markdown", "agents/x", doc(validFM), 2, "name the file x.md"},
		{"version zero", "", doc(withLine("prompt_version", "prompt_version: 0")), 4, "not a positive integer"},
		{"version negative", "", doc(withLine("prompt_version", "prompt_version: -1")), 4, "not a positive integer"},
		{"version signed", "", doc(withLine("prompt_version", "prompt_version: +1")), 4, "not a positive integer"},
		{"version leading zero", "", doc(withLine("prompt_version", "prompt_version: 01")), 4, "not a positive integer"},
		{"version decimal", "", doc(withLine("prompt_version", "prompt_version: 1.0")), 4, "not a positive integer"},
		{"version word", "", doc(withLine("prompt_version", "prompt_version: one")), 4, "not a positive integer"},
		{"version overflow", "", doc(withLine("prompt_version", "prompt_version: 99999999999999999999")), 4, "not a positive integer"},
		{"bool yes", "", doc(withLine("reads_untrusted_input", "reads_untrusted_input: yes")), 5, "write true or false"},
		{"bool capitalised", "", doc(withLine("reads_untrusted_input", "reads_untrusted_input: True")), 5, "write true or false"},
		{"scope outside enum", "", doc(withLine("capability_scope", "capability_scope: admin")), 6, "use one of read-only, read-write"},
		{"model outside enum", "", doc(withLine("model", "model: gpt-5")), 8, "use one of inherit, sonnet, opus, haiku"},
		{"tools empty entry", "", doc(withLine("tools", `tools: "Read,,Grep"`)), 7, "tools entry 2 is empty"},
		{"tools trailing comma", "", doc(withLine("tools", `tools: "Read, Grep,"`)), 7, "tools entry 3 is empty"},
		{"tools quoted leading comma", "", doc(withLine("tools", `tools: ", Read"`)), 7, "tools entry 1 is empty"},
		{"tools plain with spaces", "", doc(withLine("tools", "tools: Read, Grep")), 7, "wrap it in double quotes"},
		{"tools space separated", "", doc(withLine("tools", `tools: "Read Grep"`)), 7, `tools entry "Read Grep" is not a tool name`},
		{"tools leading digit", "", doc(withLine("tools", "tools: 1Read")), 7, "is not a tool name"},
		{"tools nested parens", "", doc(withLine("tools", `tools: "Bash(a(b))"`)), 7, "is not a tool name"},
		{"tools comma in specifier", "", doc(withLine("tools", `tools: "Bash(git diff, git log)"`)), 7, "is not a tool name"},
		{"tools duplicate", "", doc(withLine("tools", `tools: "Read, Grep, Read"`)), 7, `tools lists "Read" twice`},
		{"read-only with Edit", "", doc(withLine("tools", `tools: "Read, Edit"`)), 7, "read-only agent lists Edit"},
		{"read-only with Write specifier", "", doc(withLine("tools", `tools: "Read, Write(docs/**)"`)), 7, "read-only agent lists Write(docs/**)"},
		{"front matter too large", "", doc(withLine("description", `description: "`+long+`"`)), 3, "over 8192 bytes"},
		{"control character", "", doc(withLine("description", "description: \"a\x01b\"")), 3, "control character U+0001"},
		{"bare carriage return", "", doc(withLine("description", "description: \"a\rb\"")), 3, "control character U+000D"},
		{"C1 control", "", doc(withLine("description", "description: \"a\u0085b\"")), 3, "control character U+0085"},
		{"list value", "", doc(withLine("tools", "tools: [Read, Grep]")), 7, "tools is a list"},
		{"plain text", "", doc(withLine("description", "description: Use when reviewing")), 3, "wrap it in double quotes"},
		{"flow mapping", "", doc(withLine("description", "description: {a}")), 3, "wrap it in double quotes"},
		{"inline comment", "", doc(withLine("model", "model: inherit # default")), 8, "wrap it in double quotes"},
		{"unterminated quote", "", doc(withLine("description", `description: "abc`)), 3, "the quote is never closed"},
		{"single quotes", "", doc(withLine("description", `description: 'abc'`)), 3, "single-quoted value"},
		{"text after quote", "", doc(withLine("description", `description: "a" b`)), 3, "text after the closing quote"},
		{"unknown escape", "", doc(withLine("description", `description: "a\qb"`)), 3, `unknown escape \q`},
		{"no body", "", "---\n" + validFM + "---\n", 9, "no prompt body"},
		{"no body, no newline", "", "---\n" + validFM + "---", 9, "no prompt body"},
		{"whitespace body", "", "---\r\n" + validFM + "---\r\n \r\n\t\n", 9, "no prompt body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "agents/x.md"
			}
			a, err := Parse(file, []byte(tt.data))
			if err == nil {
				t.Fatalf("Parse accepted: %+v", a)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if pe.File != file || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %s:%d: %s\nwant %s:%d: ...%s...", pe.File, pe.Line, pe.Msg, file, tt.line, tt.msg)
			}
			if !reflect.DeepEqual(a, Agent{}) {
				t.Errorf("refusal returned a non-zero Agent: %+v", a)
			}
		})
	}
}

func TestParseErrorString(t *testing.T) {
	_, err := Parse("agents/x.md", []byte(doc(withLine("model", "model: gpt"))))
	want := `agents/x.md:8: model "gpt" is not allowed: use one of inherit, sonnet, opus, haiku`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestKeysIsACopy(t *testing.T) {
	k := Keys()
	k[0] = "changed"
	if Keys()[0] != "name" {
		t.Fatal("Keys exposes the package's slice")
	}
}
