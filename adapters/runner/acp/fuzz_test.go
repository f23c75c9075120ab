package acp

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/strictjson"
)

// FuzzSession feeds an agent's lines, whatever they hold, to a session past its handshake, as the
// step does (each line first held to one strict JSON object): it never panics, a line that is no
// JSON-RPC message is an error, and no success comes of a line that is not session/prompt's answer.
func FuzzSession(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"a","kind":"execute","rawInput":{"command":"ls"}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"a","kind":"edit","rawInput":{"file_path":"/w/../x"}},"options":[{"optionId":"o","kind":"allow_once"}]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"fs/write_text_file","params":{"sessionId":"s","path":"/w/a","content":"c"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"terminal/output","params":{"sessionId":"s","terminalId":"t1"}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"1.0","method":"x"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strictjson.CheckObject([]byte(line), strictjson.Limits{MaxDepth: 64}) != nil {
			return // the step refuses it before the session sees it
		}
		s := newSession(runner.Conversation{Dir: "/w", Policy: domain.PolicyImplement, Send: func([]byte) error { return nil },
			Verdict: func(runner.Question) runner.Verdict { return runner.Verdict{Why: "fuzz"} },
			Run:     func([]string, string, io.Writer) (runner.Running, error) { return nil, errors.New("fuzz runs nothing") }})
		s.stage, s.sessionID = stagePrompt, "s"
		ev, err := s.Event([]byte(line))
		if _, _, perr := parse([]byte(line)); perr != nil && err == nil {
			t.Fatalf("a line that is no message was taken: %q", line)
		}
		if ev.Terminal != nil && ev.Terminal.Failure == nil && !strings.Contains(line, "end_turn") {
			t.Fatalf("a success without end_turn: %q", line)
		}
		s.Close()
	})
}

// FuzzAuthMethods feeds initialize's authMethods, whatever they hold: reading them never panics, at
// most maxAuthMethods are kept, and a method abcd would authenticate with is always an env_var one
// whose every required variable the runner passes.
func FuzzAuthMethods(f *testing.F) {
	f.Add(`[{"id":"chatgpt","name":"Login"},{"type":"env_var","id":"k","name":"K","vars":[{"name":"OPENAI_API_KEY"}]}]`)
	f.Add(`[{"type":"terminal","id":"t","name":"T","args":["--login"]},{"type":"env_var","id":"o","vars":[{"name":"A","optional":true}]}]`)
	f.Add(`[1,"x",{"id":""},{"id":"a\nb"}]`)
	passed := []string{"OPENAI_API_KEY", "A"}
	f.Fuzz(func(t *testing.T, list string) {
		var raw []json.RawMessage
		if json.Unmarshal([]byte(list), &raw) != nil {
			return
		}
		methods := authMethods(raw)
		if len(methods) > maxAuthMethods {
			t.Fatalf("%d methods kept", len(methods))
		}
		for _, m := range methods {
			if !m.usable(passed) {
				continue
			}
			if m.Type != "env_var" {
				t.Fatalf("a %q method is usable: %q", m.Type, list)
			}
			for _, v := range m.Vars {
				if !v.Optional && !slices.Contains(passed, v.Name) {
					t.Fatalf("a method needing %s is usable: %q", v.Name, list)
				}
			}
		}
	})
}
