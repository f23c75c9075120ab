// Command bench measures abcd's MCP server over stdio beside a reference server built on the
// official Go MCP SDK (tools/benchref) serving the same tool list and the same version result:
// tools/list and tools/call version, one request in flight at a time as a harness sends them, in
// alternating rounds so both see the same machine. It prints calls per second, p50 and p99 latency
// and resident memory, and the ratios.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 1000, "calls per operation per round")
	rounds := flag.Int("rounds", 5, "alternating rounds")
	flag.Parse()
	if err := run(*n, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type server struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	modern bool
	nextID int
	lat    map[string][]time.Duration
}

func run(n, rounds int) error {
	dir, err := os.MkdirTemp("", "abcd-mcp-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	abcd, ref := filepath.Join(dir, "abcd"), filepath.Join(dir, "benchref")
	if err := build(root, "./frontdoors/cmd/abcd", abcd, nil); err != nil {
		return err
	}
	if err := build(filepath.Join(root, "tools", "benchref"), ".", ref, []string{"GOWORK=off"}); err != nil {
		return err
	}
	repo, home := filepath.Join(dir, "repo"), filepath.Join(dir, "home")
	for _, d := range []string{repo, home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ABCD_HOME=" + home, "NO_COLOR=1"}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}

	// The reference serves abcd's own tool list: same names, titles, descriptions, schemas, hints.
	probe, err := start("abcd", abcd, []string{"mcp", "serve"}, repo, env, false)
	if err != nil {
		return err
	}
	list, err := probe.roundTrip("tools/list", nil)
	if err != nil {
		return err
	}
	probe.stop()
	var listed struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(list, &listed); err != nil {
		return err
	}
	toolsFile := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(toolsFile, listed.Result.Tools, 0o600); err != nil {
		return err
	}

	servers := []*server{}
	for _, s := range []struct {
		name, bin string
		args      []string
		modern    bool
	}{
		{"abcd (2025-11-25)", abcd, []string{"mcp", "serve"}, false},
		{"abcd (2026-07-28)", abcd, []string{"mcp", "serve"}, true},
		{"go-sdk v1.8.0 reference", ref, []string{"-schemas", filepath.Join(root, "schemas", "v1"), "-tools", toolsFile}, false},
	} {
		srv, err := start(s.name, s.bin, s.args, repo, env, s.modern)
		if err != nil {
			return err
		}
		defer srv.stop()
		servers = append(servers, srv)
	}
	ops := []struct{ name, method, params string }{
		{"tools/list", "tools/list", `{}`},
		{"tools/call version", "tools/call", `{"name":"version","arguments":{}}`},
	}
	for _, s := range servers { // warm-up, not measured
		for _, op := range ops {
			for range 200 {
				if _, err := s.roundTrip(op.method, []byte(op.params)); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
		}
	}
	for r := range rounds {
		for i := range servers {
			s := servers[(i+r)%len(servers)]
			for _, op := range ops {
				for range n {
					start := time.Now()
					if _, err := s.roundTrip(op.method, []byte(op.params)); err != nil {
						return fmt.Errorf("%s: %w", s.name, err)
					}
					s.lat[op.name] = append(s.lat[op.name], time.Since(start))
				}
			}
		}
	}

	fmt.Printf("MCP over stdio, %d sequential calls per operation per server (%d alternating rounds of %d):\n", n*rounds, rounds, n)
	fmt.Printf("  %-26s %-20s %10s %10s %10s %10s\n", "server", "operation", "calls/s", "p50", "p99", "max")
	for _, op := range ops {
		for _, s := range servers {
			l := s.lat[op.name]
			fmt.Printf("  %-26s %-20s %10.0f %8.1fµs %8.1fµs %8.1fms\n", s.name, op.name, rate(l), us(pct(l, 50)), us(pct(l, 99)), us(pct(l, 100))/1000)
		}
	}
	reference := servers[len(servers)-1]
	fmt.Println("  ratios to the reference (calls/s: above 1 is faster; p50: below 1 is faster):")
	for _, s := range servers[:len(servers)-1] {
		for _, op := range ops {
			fmt.Printf("    %-24s %-20s calls/s %5.2f   p50 %5.2f\n", s.name, op.name,
				rate(s.lat[op.name])/rate(reference.lat[op.name]), float64(pct(s.lat[op.name], 50))/float64(pct(reference.lat[op.name], 50)))
		}
	}
	fmt.Println("  resident memory after the runs (current / peak), target < 20 MB for abcd:")
	for _, s := range servers {
		cur, peak := rss(s.cmd.Process.Pid)
		fmt.Printf("    %-26s %6.1f MB / %6.1f MB\n", s.name, cur, peak)
	}
	return nil
}

func build(dir, pkg, out string, extraEnv []string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), extraEnv...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	return nil
}

func start(name, bin string, args []string, dir string, env []string, modern bool) (*server, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), modern: modern, lat: map[string][]time.Duration{}}
	if !modern {
		if _, err := s.roundTrip("initialize", []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)); err != nil {
			return nil, fmt.Errorf("%s: initialize: %w", name, err)
		}
		if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// roundTrip sends one request and reads its response, which must be a result.
func (s *server) roundTrip(method string, params []byte) ([]byte, error) {
	s.nextID++
	id := strconv.Itoa(s.nextID)
	if s.modern && method != "initialize" {
		if len(params) <= 2 {
			params = []byte("{" + modernMeta + "}")
		} else {
			params = append(append([]byte("{"+modernMeta+","), params[1:len(params)-1]...), '}')
		}
	}
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != nil {
		msg += `,"params":` + string(params)
	}
	if _, err := io.WriteString(s.in, msg+"}\n"); err != nil {
		return nil, err
	}
	want := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":`)
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(line, want) || bytes.Contains(line, []byte(`"isError":true`)) {
		return nil, errors.New("unexpected response: " + truncate(string(line)))
	}
	return line, nil
}

func (s *server) stop() {
	_ = s.in.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func rate(d []time.Duration) float64 {
	var total time.Duration
	for _, x := range d {
		total += x
	}
	return float64(len(d)) / total.Seconds()
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// rss reads a process's current and peak resident set size, in MB, from /proc.
func rss(pid int) (cur, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			cur = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return cur, peak
}
