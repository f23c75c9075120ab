package cli

import (
	"encoding/json"
	"strings"
	"testing"
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

// FuzzPatchWrites reads any text as a Codex patch: every file a header names is one write (or one
// removal) in the line the guard reads, quoted as one word, and a patch naming no file is refused.
func FuzzPatchWrites(f *testing.F) {
	for _, seed := range []string{
		"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: src/a.go\n*** Move to: src/b.go\n@@\n-x\n+y\n*** Delete File: it's.txt\r\n*** End Patch\n",
		"*** Begin Patch\n*** End Patch\n", "*** Add File: ", "*** Delete File: $(rm -rf ~)\n", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		line, err := patchWrites(patch)
		headers := 0
		for _, l := range strings.Split(patch, "\n") {
			l = strings.TrimSuffix(l, "\r")
			for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Move to: ", "*** Delete File: "} {
				if file, ok := strings.CutPrefix(l, h); ok && strings.TrimSpace(file) != "" {
					headers++
					want := shellQuote(file)
					if !strings.Contains(line, want) {
						t.Fatalf("the file %q is not in the line %q", file, line)
					}
				}
			}
		}
		if headers == 0 {
			if err == nil {
				t.Fatalf("a patch naming no file was read as %q", line)
			}
			return
		}
		if err != nil {
			t.Fatalf("a patch naming %d files was refused: %v", headers, err)
		}
		if got := strings.Count(line, "; ") + 1; got < headers {
			t.Fatalf("%d files, %d commands in %q", headers, got, line)
		}
	})
}
