package runnertest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The fake ACP agent is the test binary started again as an acp runner's executable, when
// ACPScriptVar is set: it plays a script of ACP steps against abcd, its client, over stdin and
// stdout. What it cannot be told in advance (the folder abcd opened the session in) it takes from
// abcd's requests: "$CWD" in a message it sends is the cwd of abcd's session/new.

// ACPScriptVar names the fake ACP agent's script, a file's path or InlinePrefix and the script
// itself (a fenced fake cannot read the test's /tmp); a runner's pass_env names it.
const ACPScriptVar = "FAKE_ACP_SCRIPT"

// ACPStep is one step of the fake agent's script.
type ACPStep struct {
	// Expect reads abcd's next message, which must be a request or notification of this method;
	// Reply answers it with a result (ReplyError with an error instead).
	Expect     string          `json:"expect,omitempty"`
	Reply      json.RawMessage `json:"reply,omitempty"`
	ReplyError string          `json:"reply_error,omitempty"`
	// Send writes a message of the agent's ("$CWD" replaced by the session's folder); a request's
	// answer from abcd is then awaited (its id must come back) and kept.
	Send json.RawMessage `json:"send,omitempty"`
	// Raw writes a line as it is.
	Raw string `json:"raw,omitempty"`
	// Dump writes every message abcd sent so far (its requests, notifications and answers), one
	// JSON line each, to the file named.
	Dump string `json:"dump,omitempty"`
	// Catalog starts the first MCP server abcd's session/new named, as an agent starts its catalog
	// (inside its own fence), and makes each call given here (tools/call's params: a tool's name and
	// its arguments); what the server answered (its tools/list and each call's result) is written,
	// one JSON line each, to CatalogOut (a path relative to the agent's folder, its worktree).
	Catalog    []json.RawMessage `json:"catalog,omitempty"`
	CatalogOut string            `json:"catalog_out,omitempty"`
	// SleepMS waits; Hang waits for ever; Exit ends the agent with this code.
	SleepMS int  `json:"sleep_ms,omitempty"`
	Hang    bool `json:"hang,omitempty"`
	Exit    *int `json:"exit,omitempty"`
}

// ACPScript is steps as a script: one JSON object a line, after InlinePrefix.
func ACPScript(steps ...ACPStep) (string, error) {
	var b strings.Builder
	for _, s := range steps {
		line, err := json.Marshal(s)
		if err != nil {
			return "", err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return InlinePrefix + b.String(), nil
}

// fakeACP plays the script when the variable is set; it reports whether it did, and its exit code.
func fakeACP() (int, bool) {
	script := os.Getenv(ACPScriptVar)
	if script == "" {
		return 0, false
	}
	data := []byte(strings.TrimPrefix(script, InlinePrefix))
	if !strings.HasPrefix(script, InlinePrefix) {
		var err error
		if data, err = os.ReadFile(script); err != nil {
			fmt.Fprintln(os.Stderr, "fake acp:", err)
			return 97, true
		}
	}
	if err := playACP(data, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fake acp:", err)
		return 96, true
	}
	return 0, true
}

type acpAgent struct {
	in      *bufio.Reader
	out     *bufio.Writer
	seen    []json.RawMessage
	cwd     string
	servers []mcpServer
}

// mcpServer is one of session/new's mcpServers, as the agent starts it.
type mcpServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func (a *acpAgent) next() (map[string]json.RawMessage, error) {
	line, err := a.in.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading abcd's next message: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("abcd wrote a line that is not a JSON object: %w", err)
	}
	a.seen = append(a.seen, json.RawMessage(strings.TrimSpace(string(line))))
	return m, nil
}

func (a *acpAgent) write(v []byte) error {
	if _, err := a.out.Write(append(v, '\n')); err != nil {
		return err
	}
	return a.out.Flush()
}

func playACP(data []byte, stdin io.Reader, stdout io.Writer) error {
	a := &acpAgent{in: bufio.NewReader(stdin), out: bufio.NewWriter(stdout)}
	var last map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s ACPStep
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			return fmt.Errorf("a script line: %w", err)
		}
		switch {
		case s.Expect != "":
			m, err := a.next()
			if err != nil {
				return err
			}
			var method string
			_ = json.Unmarshal(m["method"], &method) // absent: checked below
			if method != s.Expect {
				return fmt.Errorf("abcd sent %q where the script expects %s", method, s.Expect)
			}
			if method == "session/new" {
				var p struct {
					Cwd     string      `json:"cwd"`
					Servers []mcpServer `json:"mcpServers"`
				}
				if err := json.Unmarshal(m["params"], &p); err != nil {
					return err
				}
				a.cwd, a.servers = p.Cwd, p.Servers
			}
			last = m
		case s.Reply != nil || s.ReplyError != "":
			if last == nil {
				return errors.New("a reply with nothing to answer")
			}
			msg := map[string]any{"jsonrpc": "2.0", "id": last["id"]}
			if s.ReplyError != "" {
				msg["error"] = map[string]any{"code": -32000, "message": s.ReplyError}
			} else {
				msg["result"] = s.Reply
			}
			b, _ := json.Marshal(msg)
			if err := a.write(b); err != nil {
				return err
			}
		case s.Send != nil:
			msg := []byte(strings.ReplaceAll(string(s.Send), "$CWD", a.cwd))
			if err := a.write(msg); err != nil {
				return err
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(msg, &req); err != nil {
				return err
			}
			if req.ID == nil || req.Method == "" {
				continue // a notification, or a response: nothing comes back
			}
			for { // abcd's answer to it; a notification of abcd's may come first
				m, err := a.next()
				if err != nil {
					return err
				}
				if string(m["id"]) == string(req.ID) && m["method"] == nil {
					break
				}
			}
		case s.Raw != "":
			if err := a.write([]byte(s.Raw)); err != nil {
				return err
			}
		case s.Dump != "":
			var b strings.Builder
			for _, m := range a.seen {
				b.Write(m)
				b.WriteByte('\n')
			}
			if err := os.WriteFile(s.Dump, []byte(b.String()), 0o600); err != nil {
				return err
			}
		case s.Catalog != nil:
			if err := a.callCatalog(s.Catalog, s.CatalogOut); err != nil {
				return err
			}
		case s.SleepMS > 0:
			time.Sleep(time.Duration(s.SleepMS) * time.Millisecond)
		case s.Hang:
			select {}
		case s.Exit != nil:
			os.Exit(*s.Exit)
		}
	}
	// The script is over: wait for abcd to end the agent, as an agent serving its client does.
	_, err := io.Copy(io.Discard, a.in)
	return err
}

// callCatalog starts the session's first MCP server over stdio, initializes it, lists its tools and
// makes each call, writing every answer to out.
func (a *acpAgent) callCatalog(calls []json.RawMessage, out string) error {
	if len(a.servers) == 0 {
		return errors.New("abcd's session/new named no MCP server")
	}
	srv := a.servers[0]
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the catalog %s: %w", srv.Command, err)
	}
	r := bufio.NewReader(stdout)
	var answers []string
	call := func(id int, method string, params any) error {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			return err
		}
		if _, err := in.Write(append(b, '\n')); err != nil {
			return err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("the catalog's answer to %s: %w", method, err)
		}
		answers = append(answers, strings.TrimSpace(line))
		return nil
	}
	err = call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "fake-acp", "version": "1"}})
	if err == nil {
		_, err = in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	}
	if err == nil {
		err = call(2, "tools/list", map[string]any{})
	}
	for i, params := range calls {
		if err != nil {
			break
		}
		err = call(3+i, "tools/call", params)
	}
	err = errors.Join(err, in.Close(), cmd.Wait())
	if werr := os.WriteFile(out, []byte(strings.Join(answers, "\n")+"\n"), 0o644); werr != nil {
		err = errors.Join(err, werr)
	}
	return err
}
