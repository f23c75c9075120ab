package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// toolInfo is what the agent said of one tool call: what kind of call it is and its raw input (a
// command, a path), which a permission request about the call may leave out.
type toolInfo struct {
	Kind      string
	Title     string
	RawInput  json.RawMessage
	Locations []location
}

type location struct {
	Path string `json:"path"`
}

// update is session/update's update: one of its kinds, with the members abcd reads.
type update struct {
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"`
	ToolCallID    string          `json:"toolCallId"`
	Title         *string         `json:"title"`
	Kind          *string         `json:"kind"`
	Status        *string         `json:"status"`
	RawInput      json.RawMessage `json:"rawInput"`
	Locations     []location      `json:"locations"`
	Entries       []planEntry     `json:"entries"`
}

// planEntry is one entry of the agent's plan.
type planEntry struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// plan tells the agent's plan: how far it is, and the entry it is on (the first not completed).
func (s *session) plan(entries []planEntry) {
	done, next := 0, ""
	for _, e := range entries {
		if e.Status == "completed" {
			done++
		} else if next == "" {
			next = e.Content
		}
	}
	line := fmt.Sprintf("plan: %d of %d done", done, len(entries))
	if next != "" {
		line += "; next: " + strings.Join(strings.Fields(next), " ")
	}
	s.tell(line)
}

// Updates abcd reads for nothing but knows: counted as known, never fatal.
var quietUpdates = map[string]bool{"user_message_chunk": true, "available_commands_update": true, "current_mode_update": true,
	"session_info_update": true, "config_option_update": true, "usage_update": true}

func (s *session) notification(m message) (runner.Event, error) {
	if m.Method != "session/update" {
		return runner.Event{Type: m.Method}, nil // a notification abcd does not know: counted, and let be
	}
	ev := runner.Event{Type: "session/update", Known: true}
	if err := s.ours(m.Params); err != nil {
		return ev, errors.New("a session/update " + err.Error())
	}
	var p struct {
		Update update `json:"update"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Update.SessionUpdate == "" {
		return ev, errors.New("a session/update carries no update abcd can read")
	}
	u := p.Update
	ev.Type = "session/update:" + text.Clip(u.SessionUpdate)
	switch u.SessionUpdate {
	case "agent_message_chunk":
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(u.Content, &c); err != nil {
			return ev, errors.New("an agent_message_chunk whose content is not a content block")
		}
		if c.Type == "text" {
			s.final.WriteString(c.Text)
			if s.said.Len() < maxSaid {
				s.said.WriteString(c.Text[:min(len(c.Text), maxSaid-s.said.Len())])
			}
		}
		s.turn(&ev)
	case "agent_thought_chunk":
		s.turn(&ev)
	case "tool_call":
		return s.toolCall(ev, u)
	case "tool_call_update":
		return s.toolCallUpdate(ev, u)
	case "plan":
		s.plan(u.Entries)
	default:
		ev.Known = quietUpdates[u.SessionUpdate]
	}
	return ev, nil
}

// turn marks the first output of a model turn: after the prompt, and after each tool call's end.
func (s *session) turn(ev *runner.Event) {
	if !s.inTurn {
		s.inTurn, ev.Turn = true, true
	}
}

func (s *session) toolCall(ev runner.Event, u update) (runner.Event, error) {
	if u.ToolCallID == "" {
		return ev, errors.New("a tool_call with no toolCallId")
	}
	s.turn(&ev)
	info := toolInfo{RawInput: u.RawInput, Locations: u.Locations}
	if u.Kind != nil {
		info.Kind = *u.Kind
	}
	if u.Title != nil {
		info.Title = *u.Title
	}
	delete(s.unopened, u.ToolCallID) // announced after all: it is opened now, and must be ended
	if s.asked[u.ToolCallID] {
		// Opened by abcd's allow before the agent announced it (codex-acp asks first): the
		// announcement adds what it says, and may end it.
		delete(s.asked, u.ToolCallID)
		return s.toolCallUpdate(ev, u)
	}
	s.tools[u.ToolCallID] = info
	s.tell(strings.TrimSuffix(fmt.Sprintf("tool call %s (%s) %s", u.ToolCallID, strings.TrimSpace(info.Kind+" "+info.Title), status(u.Status)), " "))
	// What a tool call is, for the ledger: its kind, title and input as the agent first gave them.
	content, err := json.Marshal([]any{info.Kind, info.Title, info.RawInput})
	if err != nil {
		return ev, err
	}
	s.final.Reset() // the answer is what the agent says after its last tool call
	if st := status(u.Status); st == "completed" || st == "failed" {
		ev.Whole = []runner.Call{{ID: u.ToolCallID, Content: content, Result: []byte(st)}}
		s.inTurn = false
		return ev, nil
	}
	ev.Opened = []runner.Call{{ID: u.ToolCallID, Content: content}}
	return ev, nil
}

func (s *session) toolCallUpdate(ev runner.Event, u update) (runner.Event, error) {
	if u.ToolCallID == "" {
		return ev, errors.New("a tool_call_update with no toolCallId")
	}
	if s.unopened[u.ToolCallID] {
		if st := status(u.Status); st == "failed" {
			delete(s.unopened, u.ToolCallID)
			s.tell(fmt.Sprintf("tool call %s failed", u.ToolCallID))
			return ev, nil
		}
		return ev, fmt.Errorf("an update of tool call %s, which abcd rejected before it began", text.Clip(u.ToolCallID))
	}
	info := s.tools[u.ToolCallID]
	if u.Kind != nil {
		info.Kind = *u.Kind
	}
	if u.Title != nil {
		info.Title = *u.Title
	}
	if u.RawInput != nil {
		info.RawInput = u.RawInput
	}
	if u.Locations != nil {
		info.Locations = u.Locations
	}
	s.tools[u.ToolCallID] = info
	if st := status(u.Status); st == "completed" || st == "failed" {
		// Closed on its end: a call never opened, or ended twice differently, breaks the ledger.
		s.tell(fmt.Sprintf("tool call %s %s", u.ToolCallID, st))
		ev.Closed = []runner.Call{{ID: u.ToolCallID, Result: []byte(st)}}
		s.inTurn = false
	}
	return ev, nil
}

func status(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
