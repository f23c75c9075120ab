package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/text"
)

// FuzzHookPayload reads any bytes as a hook's payload: one JSON object read by its exact keys, or a
// refusal. What is read is what those exact keys hold, and a payload spelling a key it reads in
// another case is never read.
func FuzzHookPayload(f *testing.F) {
	for _, seed := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/w"}`,
		`{"tool_name":"Bash","tool_input":{"command":"rm -rf ~","Command":"ls"}}`,
		`{"tool_name":"Write","tool_input":{"file_path":"/w/.abcd/guard.json","content":"{}"}}`,
		`{"TOOL_NAME":"Bash","tool_name":"Read"}`, `{"tool_input":[]}`, `{"a":1,"a":2}`, `{}` + "{}", `"x"`, `{"tool_input":{"command":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseHookPayload(data)
		if err != nil {
			return
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("read a payload that is no JSON object: %q", data)
		}
		for k := range top {
			for _, want := range hookKeys {
				if k != want && strings.EqualFold(k, want) {
					t.Fatalf("read a payload with %q beside %q: %q", k, want, data)
				}
			}
		}
		var name string
		if raw, ok := top["tool_name"]; ok {
			if err := json.Unmarshal(raw, &name); err != nil || name != p.ToolName {
				t.Fatalf("tool_name read as %q, the payload holds %s", p.ToolName, raw)
			}
		} else if p.ToolName != "" {
			t.Fatalf("tool_name read as %q from a payload without it", p.ToolName)
		}
		if cmd, present, err := p.inputString("command"); present && err == nil {
			var in map[string]json.RawMessage
			if err := json.Unmarshal(top["tool_input"], &in); err != nil {
				t.Fatalf("read a command from a tool_input that is no object: %v", err)
			}
			var want string
			if json.Unmarshal(in["command"], &want) != nil || want != cmd {
				t.Fatalf("command read as %q, the payload holds %s", cmd, in["command"])
			}
		}
	})
}

// rustSpace is Rust's char::is_whitespace (the Unicode White_Space property), which Codex's
// str::trim uses on each patch line: listed here from Rust's definition, not from the guard's code.
func rustSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// codexHeaders are Codex's patch markers, spelled as Codex's parser spells them.
var codexHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Move to: ", "*** Delete File: "}

// FuzzPatchWrites reads any text as a Codex patch, against an oracle of what Codex itself writes:
// Codex trims each line and takes the path after a marker, so every such path must be in the line
// the guard checks, quoted as one word, unless the guard refused the patch. A patch whose every ***
// line is a well-formed header or Codex's own frame is never refused.
func FuzzPatchWrites(f *testing.F) {
	for _, seed := range []string{
		"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: src/a.go\n*** Move to: src/b.go\n@@\n-x\n+y\n*** Delete File: it's.txt\r\n*** End Patch\n",
		"*** Begin Patch\n*** End Patch\n", "*** Add File: ", "*** Delete File: $(rm -rf ~)\n", "",
		"*** Begin Patch\n  *** Add File: .claude/settings.json\n+{}\n*** End Patch\n",
		"*** Begin Patch\n*** Add File: .gemini/settings.json \n+{}\n*** End Patch\n",
		"*** Begin Patch\n\t*** Delete File: .abcd/guard.json\t\n*** End Patch\n",
		"*** Begin Patch\n\u00a0*** Update File: .abcd/guard.json\u00a0\n@@\n-a\n+b\n*** End Patch\n",
		"*** Begin Patch\r\n*** Add File: .mcp.json\r\n+{}\r\n*** End Patch\r\n",
		"<<'EOF'\n*** Begin Patch\n*** Add File: x\n+y\n*** End Patch\nEOF\n",
		"*** Begin Patch\n*** Update File: a\n  *** Move to:  .codex/config.toml \n*** End Patch\n",
		"*** Begin Patch\n***  Add File: .abcd/guard.json\n+{}\n*** End Patch\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		writes, err := patchWrites(patch)
		var lines []string
		for _, w := range writes {
			lines = append(lines, w.Lines("")...)
		}
		line := strings.Join(lines, "; ")
		headers, clean := 0, true
		for _, l := range strings.Split(patch, "\n") {
			l = strings.TrimFunc(l, rustSpace)
			if !strings.HasPrefix(l, "***") {
				continue
			}
			header := false
			for _, h := range codexHeaders {
				if file, ok := strings.CutPrefix(l, h); ok && file != "" {
					header = true
					headers++
					if err == nil && !strings.Contains(line, text.ShellQuote(file)) {
						t.Fatalf("Codex writes %q, which is not in the line %q", file, line)
					}
				}
			}
			if !header && l != "*** Begin Patch" && l != "*** End Patch" && l != "*** End of File" {
				clean = false
			}
		}
		if err == nil && headers == 0 && line == "" {
			t.Fatalf("a patch was allowed with nothing to check")
		}
		if clean && headers > 0 && err != nil {
			t.Fatalf("a well-formed patch naming %d files was refused: %v", headers, err)
		}
		if clean && headers == 0 && err == nil {
			t.Fatalf("a patch naming no file was read as %q", line)
		}
	})
}
