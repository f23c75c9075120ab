package acp

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxReadBytes bounds a file the agent reads through abcd.
const MaxReadBytes = 4 << 20

// errNotFound is a file the agent asks to read that does not exist.
var errNotFound = errors.New("no such file in the worktree")

// agentRequest answers one of the agent's requests. A request abcd refuses is answered with a
// JSON-RPC error and recorded; it never fails the step (the agent decides what to do next), but a
// request abcd cannot even answer does.
func (s *session) agentRequest(m message) (runner.Event, error) {
	ev := runner.Event{Type: m.Method, Known: true}
	if err := s.ours(m.Params); err != nil {
		s.record(m.Method, "", "", domain.AnswerRefused, err.Error())
		return ev, s.replyError(m.ID, codeInvalidParams, err.Error())
	}
	var err error
	switch m.Method {
	case "session/request_permission":
		ev.Opened, err = s.permission(m)
	case "fs/read_text_file":
		err = s.readFile(m)
	case "fs/write_text_file":
		err = s.writeFile(m)
	case "terminal/create":
		err = s.terminalCreate(m)
	case "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		err = s.terminalUse(m)
	default:
		ev.Known = false
		s.record(text.Clip(m.Method), "", "", domain.AnswerRefused, "a method abcd does not offer")
		err = s.replyError(m.ID, codeMethodNotFound, "abcd offers no "+text.Clip(m.Method))
	}
	return ev, err
}

// refuse answers a request with abcd's refusal and records it.
func (s *session) refuse(m message, callID, what, why string) error {
	s.record(m.Method, callID, what, domain.AnswerRefused, why)
	return s.replyError(m.ID, codeRefused, "abcd refused: "+why)
}

// ---- session/request_permission ----

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// permission answers from abcd's verdict on the tool call (its kind and raw input): the agent's
// allow_once or reject_once option, never an "always", so the next call is asked about again.
//
// A call the agent asks about before any session/update announced it (Gemini CLI's file tools) is
// opened in the ledger by abcd's allow, as a tool_call would open it.
func (s *session) permission(m message) ([]runner.Call, error) {
	var p struct {
		ToolCall struct {
			ToolCallID string          `json:"toolCallId"`
			Kind       *string         `json:"kind"`
			Title      *string         `json:"title"`
			RawInput   json.RawMessage `json:"rawInput"`
			Locations  []location      `json:"locations"`
		} `json:"toolCall"`
		Options []permissionOption `json:"options"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.ToolCall.ToolCallID == "" {
		return nil, s.refuse(m, "", "", "the request names no tool call abcd can read")
	}
	id := p.ToolCall.ToolCallID
	info, known := s.tools[id]
	if p.ToolCall.Kind != nil {
		info.Kind = *p.ToolCall.Kind
	}
	if p.ToolCall.Title != nil {
		info.Title = *p.ToolCall.Title
	}
	if p.ToolCall.RawInput != nil {
		info.RawInput = p.ToolCall.RawInput
	}
	if p.ToolCall.Locations != nil {
		info.Locations = p.ToolCall.Locations
	}
	s.tools[id] = info
	allow, what, why := s.decide(info)
	var opened []runner.Call
	switch {
	case !known && allow:
		content, err := json.Marshal([]any{info.Kind, info.Title, info.RawInput})
		if err != nil {
			return nil, err
		}
		opened = []runner.Call{{ID: id, Content: content}}
		s.asked[id] = true
		s.final.Reset()
	case !known:
		// Rejected before it began, it never runs: not opened, and its failure, if the agent
		// reports one, closes nothing.
		s.unopened[id] = true
	}
	want, answer := "reject_once", domain.AnswerRejectOnce
	if allow {
		want, answer = "allow_once", domain.AnswerAllowOnce
	}
	for _, o := range p.Options {
		if o.Kind == want && o.OptionID != "" {
			s.record(m.Method, id, what, answer, why)
			return opened, s.reply(m.ID, map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": o.OptionID}})
		}
	}
	// No option says what abcd answers (an agent offering "always" alone): nothing is granted.
	return opened, s.refuse(m, id, what, fmt.Sprintf("the agent offered no %s option (abcd never answers always); %s", want, why))
}

// decide is abcd's verdict on a tool call: reading kinds are allowed (what they reach is bounded by
// abcd's file reads and the fence); a command is the guard's; a write is allowed inside the worktree
// only, where the guard allows it; anything else, and anything but reading for a reviewer, is not.
func (s *session) decide(t toolInfo) (allow bool, what, why string) {
	what = strings.TrimSpace(t.Kind + " " + t.Title)
	switch t.Kind {
	case "read", "search", "think":
		return true, what, "reading is allowed"
	case "execute", "edit", "delete", "move":
		if s.c.Policy != domain.PolicyImplement {
			return false, what, "a reviewer's step only reads"
		}
	default:
		return false, what, fmt.Sprintf("abcd grants no %q tool call", text.Clip(t.Kind))
	}
	if t.Kind == "execute" {
		line := commandOf(t.RawInput)
		if line == "" && t.RawInput == nil {
			// An agent that sends no raw input names its command in the title alone (Gemini CLI's
			// shell tool): the title is then what the guard judges, as it would the raw input,
			// which the agent writes just as freely.
			line = strings.TrimSpace(t.Title)
		}
		if line == "" {
			return false, what, "the call names no command abcd can check"
		}
		v := s.c.Verdict(runner.Question{Command: line})
		return v.Allow, line, verdictWords(v)
	}
	paths := pathsOf(t)
	if len(paths) == 0 {
		return false, what, "the call names no path abcd can check"
	}
	for _, p := range paths {
		if why := s.writable(p); why != "" {
			return false, p, why
		}
		if v := s.c.Verdict(runner.Question{Write: p}); !v.Allow {
			return false, p, verdictWords(v)
		}
	}
	return true, strings.Join(paths, " "), "the guard allows the write"
}

func verdictWords(v runner.Verdict) string {
	if v.Allow {
		return "the guard allows it"
	}
	return v.Why
}

// commandOf is the command line a call's raw input names: its command as one string, or as words
// (quoted for the shell), with its args after it.
func commandOf(raw json.RawMessage) string {
	var in struct {
		Command json.RawMessage `json:"command"`
		Args    []string        `json:"args"`
	}
	if json.Unmarshal(raw, &in) != nil || in.Command == nil {
		return ""
	}
	var line string
	var words []string
	switch {
	case json.Unmarshal(in.Command, &line) == nil:
	case json.Unmarshal(in.Command, &words) == nil && len(words) > 0:
		line = runner.ShellWords(words)
	default:
		return ""
	}
	if len(in.Args) > 0 {
		line += " " + runner.ShellWords(in.Args)
	}
	return strings.TrimSpace(line)
}

// pathsOf are the paths a call writes: those its raw input names, and its locations.
func pathsOf(t toolInfo) []string {
	var out []string
	var in map[string]json.RawMessage
	if json.Unmarshal(t.RawInput, &in) == nil {
		for _, key := range []string{"file_path", "filePath", "path", "abs_path", "notebook_path", "destination", "new_path"} {
			var p string
			if raw, ok := in[key]; ok && json.Unmarshal(raw, &p) == nil && p != "" {
				out = append(out, p)
			}
		}
	}
	for _, l := range t.Locations {
		if l.Path != "" {
			out = append(out, l.Path)
		}
	}
	return out
}

// inside is path's place in the worktree, or why it has none: an absolute, clean path inside it, not
// inside a protected path (its .git).
func (s *session) inside(path string) (string, string) {
	if s.c.Dir == "" {
		return "", "the step has no folder of its own"
	}
	if !filepath.IsAbs(path) {
		return "", "the path is not absolute"
	}
	rel, err := filepath.Rel(s.c.Dir, filepath.Clean(path))
	if err != nil || !filepath.IsLocal(rel) {
		return "", "the path is outside the step's worktree"
	}
	for _, p := range s.c.Protect {
		if r, err := filepath.Rel(p, filepath.Clean(path)); err == nil && (r == "." || filepath.IsLocal(r)) {
			return "", "the path is one abcd keeps (git's folder)"
		}
	}
	return rel, ""
}

// writable says why the agent may not write path, "" when it may (the guard still decides).
func (s *session) writable(path string) string {
	if s.c.Policy != domain.PolicyImplement {
		return "a reviewer's step only reads"
	}
	_, why := s.inside(path)
	return why
}

// ---- fs ----

func (s *session) readFile(m message) error {
	var p struct {
		Path  string `json:"path"`
		Line  *int   `json:"line"`
		Limit *int   `json:"limit"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Path == "" {
		return s.refuse(m, "", "", "the request names no path")
	}
	rel, why := s.readable(p.Path)
	if why != "" {
		return s.refuse(m, "", p.Path, why)
	}
	data, err := readRooted(s.c.Dir, rel)
	if errors.Is(err, errNotFound) {
		// ACP's resource_not_found, which an agent reads as "no such file" (Gemini CLI's write_file
		// reads first, and writes a new file only on that answer).
		s.record(m.Method, "", p.Path, domain.AnswerRefused, err.Error())
		return s.replyError(m.ID, codeNotFound, "Resource not found: "+err.Error())
	}
	if err != nil {
		return s.refuse(m, "", p.Path, err.Error())
	}
	content := string(data)
	if p.Line != nil || p.Limit != nil {
		content = lines(content, p.Line, p.Limit)
	}
	s.record(m.Method, "", p.Path, domain.AnswerDone, fmt.Sprintf("%d bytes", len(content)))
	return s.reply(m.ID, map[string]string{"content": content})
}

// readable is a path's place in the worktree, its git folder included: what the agent may read
// through abcd (the fence shows the step little more, and abcd itself runs unconfined).
func (s *session) readable(path string) (string, string) {
	if s.c.Dir == "" || !filepath.IsAbs(path) {
		return "", "the path is not absolute, or the step has no folder of its own"
	}
	rel, err := filepath.Rel(s.c.Dir, filepath.Clean(path))
	if err != nil || !filepath.IsLocal(rel) {
		return "", "the path is outside the step's worktree"
	}
	return rel, ""
}

// readRooted reads a regular file under dir, no link leading out of it, within MaxReadBytes.
func readRooted(dir, rel string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errors.New("the worktree cannot be opened")
	}
	defer root.Close()
	f, err := root.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("the file cannot be opened: %s", pathless(err))
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, errors.New("the file cannot be read")
	case !st.Mode().IsRegular():
		return nil, errors.New("the path is not a regular file")
	case st.Size() > MaxReadBytes:
		return nil, fmt.Errorf("the file is %d bytes, over the %d abcd reads", st.Size(), MaxReadBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	if err != nil || len(data) > MaxReadBytes {
		return nil, errors.New("the file cannot be read within its bound")
	}
	return data, nil
}

// lines is content from line (1-based) for limit lines.
func lines(content string, line, limit *int) string {
	all := strings.SplitAfter(content, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(all))
	}
	to := len(all)
	if limit != nil && *limit >= 0 {
		to = min(from+*limit, len(all))
	}
	return strings.Join(all[from:to], "")
}

func (s *session) writeFile(m message) error {
	var p struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Path == "" || p.Content == nil {
		return s.refuse(m, "", "", "the request names no path or no content")
	}
	if why := s.writable(p.Path); why != "" {
		return s.refuse(m, "", p.Path, why)
	}
	if v := s.c.Verdict(runner.Question{Write: p.Path}); !v.Allow {
		return s.refuse(m, "", p.Path, verdictWords(v))
	}
	rel, _ := s.inside(p.Path)
	if err := writeRooted(s.c.Dir, rel, []byte(*p.Content)); err != nil {
		return s.refuse(m, "", p.Path, err.Error())
	}
	s.record(m.Method, "", p.Path, domain.AnswerDone, fmt.Sprintf("%d bytes written", len(*p.Content)))
	return s.reply(m.ID, map[string]any{})
}

// writeRooted writes a file under dir atomically (a new file beside it, renamed over it), no link
// leading out of dir, its folders made as needed.
func writeRooted(dir, rel string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return errors.New("the worktree cannot be opened")
	}
	defer root.Close()
	if parent := filepath.Dir(rel); parent != "." {
		if err := root.MkdirAll(parent, 0o755); err != nil {
			return fmt.Errorf("its folder cannot be made: %s", pathless(err))
		}
	}
	if st, err := root.Lstat(rel); err == nil && !st.Mode().IsRegular() {
		return errors.New("the path is not a regular file")
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	tmp := rel + ".abcd-" + hex.EncodeToString(id[:])
	if err := root.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("the file cannot be written: %s", pathless(err))
	}
	if err := root.Rename(tmp, rel); err != nil {
		return errors.Join(fmt.Errorf("the file cannot be written: %s", pathless(err)), root.Remove(tmp))
	}
	return nil
}

// pathless is an error's words without the path it names.
func pathless(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + ": " + le.Err.Error()
	}
	return err.Error()
}
