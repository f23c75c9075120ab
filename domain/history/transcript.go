package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Harness is a coding-agent harness whose session files abcd reads.
type Harness string

const (
	Claude Harness = "claude"
	Codex  Harness = "codex"
	Gemini Harness = "gemini"
)

// Harnesses are the harnesses abcd reads, in order.
var Harnesses = []Harness{Claude, Codex, Gemini}

// Bounds on what a transcript may be.
const (
	// MaxTranscriptBytes bounds one transcript file; a longer one is refused, never read in part.
	MaxTranscriptBytes = 64 << 20
	// MaxMessages bounds the messages read from one transcript.
	MaxMessages = 200_000
	// MaxMessageBytes bounds one message's text as it is kept for reading and searching.
	MaxMessageBytes = 64 << 10
)

// Roles are the roles a message may have.
func Roles() []string { return []string{"user", "assistant", "tool", "system"} }

// Message is one turn's text: what the person, an agent or a tool said.
type Message struct {
	// Role is user, assistant, tool (a tool's call or its result) or system.
	Role string
	// At is when it was said, as the harness wrote it (RFC 3339); "" when it did not say.
	At   string
	Text string
}

// Transcript is one session (or one sub-agent's part of one), as read from its harness's file.
type Transcript struct {
	Harness Harness
	Session string
	// Agent is a sub-agent's id, "" for a session's main agent; AgentType is its kind when said.
	Agent     string
	AgentType string
	// Parent is the session a sub-agent served.
	Parent string
	// Cwd is where the session ran, as the harness recorded it; "" when its file does not say.
	Cwd      string
	Started  string
	Ended    string
	Model    string
	Messages []Message
}

// Key names a transcript in the store: the harness, the session and, for a sub-agent, its id.
func (t Transcript) Key() string {
	k := string(t.Harness) + ":" + t.Session
	if t.Agent != "" {
		k += ":" + t.Agent
	}
	return k
}

// Title is the first thing the person asked, on one line, clipped.
func (t Transcript) Title() string {
	for _, m := range t.Messages {
		if m.Role == "user" && strings.TrimSpace(m.Text) != "" && !strings.HasPrefix(strings.TrimSpace(m.Text), "<") {
			return clipLine(m.Text, 120)
		}
	}
	for _, m := range t.Messages {
		if m.Role == "user" && strings.TrimSpace(m.Text) != "" {
			return clipLine(m.Text, 120)
		}
	}
	return ""
}

// ParseHarness reads a harness's name.
func ParseHarness(s string) (Harness, error) {
	for _, h := range Harnesses {
		if string(h) == s {
			return h, nil
		}
	}
	return "", fmt.Errorf("%q is not a harness abcd reads (claude, codex or gemini)", clipLine(s, 40))
}

// Parse reads a transcript in its harness's format. What it does not know (a line kind a newer
// version adds) it leaves out; what is not its format (not JSON, no session id) is an error.
func Parse(h Harness, data []byte) (Transcript, error) {
	if len(data) > MaxTranscriptBytes {
		return Transcript{}, fmt.Errorf("the transcript is %d bytes, over the %d abcd reads", len(data), MaxTranscriptBytes)
	}
	var (
		t   Transcript
		err error
	)
	switch h {
	case Claude:
		t, err = parseClaude(data)
	case Codex:
		t, err = parseCodex(data)
	case Gemini:
		t, err = parseGemini(data)
	default:
		return Transcript{}, fmt.Errorf("%q is not a harness abcd reads", h)
	}
	if err != nil {
		return Transcript{}, err
	}
	t.Harness = h
	if t.Session == "" {
		return Transcript{}, fmt.Errorf("the transcript names no session: not a %s session file", h)
	}
	if !safeID(t.Session) || (t.Agent != "" && !safeID(t.Agent)) || (t.Parent != "" && !safeID(t.Parent)) {
		return Transcript{}, fmt.Errorf("the transcript's session or agent id is not an id")
	}
	return t, nil
}

// safeID is an id a harness gives: letters, digits, - _ . and at most 128 of them.
func safeID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return s != "." && s != ".."
}

// lines calls each for every non-empty line of JSON lines; a line that is not JSON is an error
// naming it.
func lines(data []byte, each func(n int, v map[string]any) error) error {
	n := 0
	for len(data) > 0 {
		n++
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("line %d is not a JSON object", n)
		}
		if err := each(n, v); err != nil {
			return err
		}
	}
	return nil
}

func str(v map[string]any, key string) string {
	s, _ := v[key].(string)
	return s
}

func obj(v map[string]any, key string) map[string]any {
	o, _ := v[key].(map[string]any)
	return o
}

func (t *Transcript) add(role, at, text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if len(t.Messages) >= MaxMessages {
		return fmt.Errorf("the transcript holds more than %d messages", MaxMessages)
	}
	t.Messages = append(t.Messages, Message{Role: role, At: at, Text: clipText(text, MaxMessageBytes)})
	return nil
}

func (t *Transcript) stamp(at string) {
	if at == "" {
		return
	}
	if t.Started == "" || at < t.Started {
		t.Started = at
	}
	if at > t.Ended {
		t.Ended = at
	}
}

// parseClaude reads Claude Code's project JSONL: a session's file, or a sub-agent's
// (subagents/agent-<id>.jsonl), whose lines carry agentId and the parent's sessionId.
func parseClaude(data []byte) (Transcript, error) {
	var t Transcript
	err := lines(data, func(_ int, v map[string]any) error {
		if s := str(v, "sessionId"); s != "" && t.Session == "" {
			t.Session = s
		}
		if a := str(v, "agentId"); a != "" && t.Agent == "" {
			t.Agent = a
		}
		if c := str(v, "cwd"); c != "" && t.Cwd == "" {
			t.Cwd = c
		}
		at := str(v, "timestamp")
		kind := str(v, "type")
		if kind != "user" && kind != "assistant" {
			return nil
		}
		t.stamp(at)
		msg := obj(v, "message")
		if msg == nil {
			return nil
		}
		if m := str(msg, "model"); m != "" && !strings.HasPrefix(m, "<") {
			t.Model = m
		}
		role := str(msg, "role")
		if role == "" {
			role = kind
		}
		switch c := msg["content"].(type) {
		case string:
			return t.add(role, at, c)
		case []any:
			for _, b := range c {
				block, _ := b.(map[string]any)
				if block == nil {
					continue
				}
				if err := t.claudeBlock(role, at, block); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if t.Agent != "" {
		t.Parent = t.Session
	}
	return t, err
}

func (t *Transcript) claudeBlock(role, at string, b map[string]any) error {
	switch str(b, "type") {
	case "text":
		return t.add(role, at, str(b, "text"))
	case "tool_use":
		return t.add("tool", at, toolCall(str(b, "name"), b["input"]))
	case "tool_result":
		return t.add("tool", at, contentText(b["content"]))
	}
	return nil
}

// contentText is the text of a content value: a string, or blocks holding text.
func contentText(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			switch b := e.(type) {
			case string:
				parts = append(parts, b)
			case map[string]any:
				if s := str(b, "text"); s != "" {
					parts = append(parts, s)
				} else if s := str(b, "output"); s != "" {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if s := str(x, "text"); s != "" {
			return s
		}
		if s := str(x, "output"); s != "" {
			return s
		}
		data, _ := json.Marshal(x)
		return string(data)
	}
	return ""
}

// toolCall is a tool call as one line: its name and its arguments.
func toolCall(name string, input any) string {
	args := ""
	switch x := input.(type) {
	case string:
		args = x
	case nil:
	default:
		data, _ := json.Marshal(x)
		args = string(data)
	}
	return strings.TrimSpace("→ " + name + " " + args)
}

// parseCodex reads a Codex rollout (sessions/YYYY/MM/DD/rollout-*.jsonl): session_meta, then
// response items (messages, function calls and their output).
func parseCodex(data []byte) (Transcript, error) {
	var t Transcript
	err := lines(data, func(_ int, v map[string]any) error {
		at := str(v, "timestamp")
		p := obj(v, "payload")
		if p == nil {
			return nil
		}
		switch str(v, "type") {
		case "session_meta":
			if t.Session == "" {
				t.Session = str(p, "id")
				t.Cwd = str(p, "cwd")
				t.Parent, t.AgentType = codexParent(p)
				if t.Parent != "" {
					t.Agent, t.Session = t.Session, t.Parent
				}
			}
			t.stamp(at)
		case "turn_context":
			if m := str(p, "model"); m != "" {
				t.Model = m
			}
		case "response_item":
			t.stamp(at)
			switch str(p, "type") {
			case "message":
				role := str(p, "role")
				if role == "developer" || role == "system" {
					return nil // the harness's own instructions
				}
				return t.add(role, at, contentText(p["content"]))
			case "function_call", "custom_tool_call", "local_shell_call":
				args := p["arguments"]
				if args == nil {
					args = p["input"]
				}
				return t.add("tool", at, toolCall(str(p, "name"), args))
			case "function_call_output", "custom_tool_call_output":
				return t.add("tool", at, contentText(p["output"]))
			}
		}
		return nil
	})
	return t, err
}

// codexParent finds the parent thread a sub-agent's rollout names, wherever its session_meta puts it.
func codexParent(p map[string]any) (parent, kind string) {
	if s := str(p, "parent_thread_id"); s != "" {
		return s, str(p, "agent_type")
	}
	if src := obj(p, "source"); src != nil {
		if sub := obj(src, "subagent"); sub != nil {
			for _, v := range sub {
				if o, ok := v.(map[string]any); ok {
					if s := str(o, "parent_thread_id"); s != "" {
						return s, str(o, "agent_role")
					}
				}
			}
		}
	}
	return "", ""
}

// parseGemini reads a Gemini CLI chat: JSON lines (a head naming the session, then messages and
// $set patches), or the older single JSON document holding every message.
func parseGemini(data []byte) (Transcript, error) {
	var t Transcript
	trimmed := bytes.TrimSpace(data)
	var whole map[string]any
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &whole) == nil {
		if _, ok := whole["messages"]; ok {
			t.Session = str(whole, "sessionId")
			t.geminiHead(whole)
			msgs, _ := whole["messages"].([]any)
			err := t.geminiMessages(msgs) // fills t: it runs before t is read
			return t, err
		}
	}
	var order []string
	byID := map[string]map[string]any{}
	keep := func(m map[string]any) {
		id := str(m, "id")
		if id == "" {
			id = fmt.Sprintf("#%d", len(order))
		}
		if _, seen := byID[id]; !seen {
			order = append(order, id)
		}
		byID[id] = m
	}
	err := lines(data, func(_ int, v map[string]any) error {
		if set := obj(v, "$set"); set != nil {
			if msgs, ok := set["messages"].([]any); ok {
				order, byID = nil, map[string]map[string]any{}
				for _, m := range msgs {
					if mm, ok := m.(map[string]any); ok {
						keep(mm)
					}
				}
			}
			t.geminiHead(set)
			return nil
		}
		if s := str(v, "sessionId"); s != "" && t.Session == "" {
			t.Session = s
			t.geminiHead(v)
			return nil
		}
		if str(v, "type") != "" {
			keep(v)
		}
		return nil
	})
	if err != nil {
		return t, err
	}
	var msgs []any
	for _, id := range order {
		msgs = append(msgs, byID[id])
	}
	err = t.geminiMessages(msgs) // fills t: it runs before t is read
	return t, err
}

func (t *Transcript) geminiHead(v map[string]any) {
	t.stamp(str(v, "startTime"))
	t.stamp(str(v, "lastUpdated"))
	if k := str(v, "kind"); k != "" && k != "main" {
		t.AgentType = k
	}
	if p := str(v, "parentSessionId"); p != "" {
		t.Parent = p
	}
}

func (t *Transcript) geminiMessages(msgs []any) error {
	for _, e := range msgs {
		m, _ := e.(map[string]any)
		if m == nil {
			continue
		}
		at := str(m, "timestamp")
		t.stamp(at)
		if model := str(m, "model"); model != "" {
			t.Model = model
		}
		role := "system"
		switch str(m, "type") {
		case "user":
			role = "user"
		case "gemini", "model":
			role = "assistant"
		}
		if err := t.add(role, at, contentText(m["content"])); err != nil {
			return err
		}
		calls, _ := m["toolCalls"].([]any)
		for _, c := range calls {
			call, _ := c.(map[string]any)
			if call == nil {
				continue
			}
			if err := t.add("tool", at, toolCall(str(call, "name"), call["args"])); err != nil {
				return err
			}
			if err := t.add("tool", at, contentText(call["result"])); err != nil {
				return err
			}
		}
	}
	if t.Parent != "" && t.Agent == "" {
		t.Agent, t.Session = t.Session, t.Parent
	}
	return nil
}

func clipText(s string, most int) string {
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func clipLine(s string, most int) string {
	return clipText(strings.Join(strings.Fields(s), " "), most)
}
