package acp

import (
	"encoding/json"
	"fmt"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// An agent whose one way to reject is to abort (codex-acp 0.16.0 offers "abort", "No, provide
// feedback", as its reject_once option) ends its turn cancelled as soon as abcd rejects a call. abcd
// did not cancel that turn, and the work is not done: abcd prompts the agent again in the same
// session, in words of its own, saying the guard refused the call, why, and to go on without it.
//
// The agent cannot make this happen of its own accord: abcd prompts again only when the turn it did
// not cancel ended cancelled with nothing between abcd's reject_once answer and that end but the
// rejected call's own failure and updates that carry no work; at most maxReprompts times a step, each
// prompt's turns counted against the step's bound on turns, under its wall clock and silence bounds.
// A cancelled turn after abcd's own session/cancel, or after anything else, or a third abort, is the
// cause cancelled, as every other cancelled turn.

// maxReprompts bounds the prompts abcd sends again after an abort, a step.
const maxReprompts = 2

// Bounds of the agent's words abcd quotes back to it.
const (
	maxRepromptWhat = 200
	maxRepromptWhy  = 300
)

// rejection is a permission abcd answered reject_once: the call, what it asked for as abcd shows it
// (the command line, the path), and the guard's reason.
type rejection struct {
	callID, what, why string
}

// afterReject reports whether m may come between abcd's rejection and the agent's cancelled turn
// with the rejection still the last thing that happened: an update that carries no work, or the
// rejected call's own end as failed. Anything else (a message, a thought, a tool call, a plan,
// another request) is the agent moving on.
func (s *session) afterReject(m message) bool {
	if s.rejected == nil || m.Method != "session/update" {
		return false
	}
	var p struct {
		Update update `json:"update"`
	}
	if json.Unmarshal(m.Params, &p) != nil || s.ours(m.Params) != nil {
		return false
	}
	u := p.Update
	switch {
	case quietUpdates[u.SessionUpdate] && u.SessionUpdate != "user_message_chunk":
		return true
	case u.SessionUpdate == "tool_call_update" && u.ToolCallID == s.rejected.callID:
		return status(u.Status) == "failed"
	}
	return false
}

// reprompt sends the session a prompt of abcd's own after an abort of rej, and records it.
func (s *session) reprompt(rej rejection) (runner.Event, error) {
	s.reprompts++
	s.promptID, s.stage = idReprompt+s.reprompts-1, stagePrompt
	// What the agent says next is a turn of its own, counted against the step's bound, and its
	// answer is what it says after this prompt.
	s.inTurn = false
	s.final.Reset()
	what, why := s.quoted(rej.what, maxRepromptWhat), s.quoted(rej.why, maxRepromptWhy)
	s.keep(domain.Ask{Method: "session/prompt", CallID: rej.callID, What: rej.what, Answer: domain.AnswerDone,
		Why: fmt.Sprintf("abcd prompted the agent again (%d of %d): it ended its turn cancelled right after abcd rejected the call (%s)", s.reprompts, maxReprompts, rej.why)},
		domain.MaxAsks)
	s.tell(fmt.Sprintf("abcd prompted the agent again (%d of %d): its turn ended when abcd rejected %s", s.reprompts, maxReprompts, what))
	ev := runner.Event{Type: "session/prompt", Known: true}
	if s.open[rej.callID] {
		// Announced, then rejected, it never ran, and its turn is over: the agent that aborts says
		// no more of it (codex-acp leaves its patch open), so abcd ends it in the ledger as the agent
		// would have, failed. A later report of it completed conflicts with that.
		ev.Closed = []runner.Call{{ID: rej.callID, Result: []byte("failed")}}
		s.tell(fmt.Sprintf("tool call %s failed: abcd rejected it and its turn ended", rej.callID))
	}
	prompt := []map[string]string{{"type": "text", "text": repromptText(what, why)}}
	if err := s.request(s.promptID, "session/prompt", map[string]any{"sessionId": s.sessionID, "prompt": prompt}); err != nil {
		return runner.Event{Type: "session/prompt"}, err
	}
	return ev, nil
}

// quoted is a text of the agent's (or of the guard's, about the agent's call) as abcd writes it back
// to the agent: scrubbed of the step's credentials, one plain line, clipped to n bytes.
func (s *session) quoted(v string, n int) string {
	if s.c.Scrub != nil {
		v = s.c.Scrub(v)
	}
	return text.ClipAt(domain.Plain(v), n)
}

// repromptText is abcd's prompt after an abort: fixed words around the call as abcd showed it and the
// guard's reason.
func repromptText(what, why string) string {
	return "abcd's guard refused your last tool call, so it did not run: " + what + "\n" +
		"Why: " + why + "\n" +
		"Go on with your task without that call: do not ask for it again, nor for another way to do what it would have done. " +
		"When the rest of the task is done, end your turn."
}
