package acp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// Authentication. An agent lists its methods in initialize's answer and asks for one only when a
// request needs it: session/new answered with auth_required. abcd then authenticates with a method
// only when it knows the method needs nothing but what the step already passes the agent: a method
// that names the environment variables it reads (ACP's env_var descriptor, which codex-acp sends),
// each of them one of the runner's credential_env or pass_env variables, set. Every other method is
// one abcd cannot vouch for: a method of the agent's own (no type, or "agent") may open a browser or
// ask a person, and a "terminal" one runs the agent interactively; abcd runs unattended, so it never
// picks one, and an agent that asks for authentication offering no other fails with the cause auth.

// maxAuthMethods bounds the methods abcd reads of initialize's answer.
const maxAuthMethods = 32

// authMethod is one of initialize's authMethods, with the members abcd reads.
type authMethod struct {
	ID   string    `json:"id"`
	Name string    `json:"name"`
	Type string    `json:"type"`
	Vars []authVar `json:"vars"`
}

// authVar is an environment variable an env_var method reads.
type authVar struct {
	Name     string `json:"name"`
	Optional bool   `json:"optional"`
}

// authMethods reads the methods listed, skipping one that is not a method abcd can name, as the
// protocol's schema skips an invalid item.
func authMethods(raw []json.RawMessage) []authMethod {
	var out []authMethod
	for _, r := range raw {
		var m authMethod
		if json.Unmarshal(r, &m) != nil || m.ID == "" || len(m.ID) > 128 || text.LineProblem(m.ID) != "" {
			continue
		}
		if out = append(out, m); len(out) == maxAuthMethods {
			break
		}
	}
	return out
}

// usable says whether abcd may authenticate with m: an env_var method whose every variable it needs
// the step passes the agent, and at least one.
func (m authMethod) usable(passed []string) bool {
	if m.Type != "env_var" {
		return false
	}
	some := false
	for _, v := range m.Vars {
		switch {
		case slices.Contains(passed, v.Name):
			some = true
		case !v.Optional:
			return false
		}
	}
	return some
}

// kindWords says what kind of method m is, for a refusal.
func (m authMethod) kindWords() string {
	switch m.Type {
	case "", "agent":
		return "the agent's own login"
	case "terminal":
		return "an interactive login"
	case "env_var":
		var names []string
		for _, v := range m.Vars {
			names = append(names, text.Clip(v.Name))
		}
		return "needs " + strings.Join(names, ", ") + ", which the runner does not pass"
	}
	return "of type " + text.Clip(m.Type)
}

// authenticate answers session/new's auth_required: authenticate with the first usable method, in
// the agent's order, or fail with the cause auth naming what the agent offered.
func (s *session) authenticate(e *rpcError) (runner.Event, error) {
	for _, m := range s.methods {
		if m.usable(s.c.Passed) {
			s.stage, s.authMethod = stageAuth, m.ID
			s.tell("authenticating with the agent's method " + text.Clip(m.ID))
			return runner.Event{Type: "session/new", Known: true}, s.request(idAuthenticate, "authenticate", map[string]string{"methodId": m.ID})
		}
	}
	var offered []string
	for _, m := range s.methods {
		offered = append(offered, fmt.Sprintf("%s (%s)", text.Clip(m.ID), m.kindWords()))
	}
	what := "no method"
	if len(offered) > 0 {
		what = "only " + strings.Join(offered, "; ")
	}
	return failed("session/new", domain.Failf(domain.CauseAuth,
		"the agent answered session/new that it needs authentication (%s) and offers %s: abcd authenticates only with a method that names the environment variables it reads, each one the runner's credential_env or pass_env passes, never a login",
		text.Clip(e.Message), what)), nil
}

// authenticated is authenticate's answer: session/new is asked again, or the step fails with the
// cause auth.
func (s *session) authenticated(m message) (runner.Event, error) {
	if m.Error != nil {
		return failed("authenticate", domain.Failf(domain.CauseAuth, "the agent answered authenticate with its method %s with an error (%d): %s",
			text.Clip(s.authMethod), m.Error.Code, text.Clip(m.Error.Message))), nil
	}
	s.stage = stageNewAuthed
	s.tell("authenticated with the agent's method " + text.Clip(s.authMethod))
	return runner.Event{Type: "authenticate", Known: true}, s.newSession(idNewAuthed)
}
