package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/domain/runner"
)

// Running is a fenced command's network: abcd's side of the listeners its helper opened inside the
// step's network namespace. A loopback endpoint's listener is forwarded to the same address outside;
// the proxy's takes CONNECT requests for the allowed endpoints only and counts what it refuses. Close
// ends them, and every connection they carry.
type Running struct {
	mu      sync.Mutex
	receipt runner.Sandbox
	allowed map[string]bool
	dial    time.Duration
	lns     []net.Listener
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

func newRunning(rc runner.Sandbox, endpoints []string, dial time.Duration) *Running {
	r := &Running{receipt: rc, allowed: map[string]bool{}, dial: dial, conns: map[net.Conn]struct{}{}}
	for _, e := range endpoints {
		r.allowed[strings.ToLower(e)] = true
	}
	return r
}

// Receipt is the fence as the step's receipt records it, with what the proxy refused so far.
func (r *Running) Receipt() runner.Sandbox {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := r.receipt
	rc.Writable, rc.Hidden, rc.Network, rc.Refused = slices.Clone(rc.Writable), slices.Clone(rc.Hidden), slices.Clone(rc.Network), slices.Clone(rc.Refused)
	return rc
}

// Close ends the listeners and every connection they carry, and waits for their goroutines.
func (r *Running) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.closed = true
	// Ending them is the point: a listener or a connection that was closed already has nothing more
	// to say, and the step's side sees its end either way.
	for _, ln := range r.lns {
		_ = ln.Close()
	}
	for c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// track holds c until untrack, so Close can end it; false when the Running is closed already.
func (r *Running) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		_ = c.Close() // refused: nothing was carried over it
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *Running) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	_ = c.Close() // what it carried was read and written through already; its peer sees the end
}

// serve accepts on ln until Close.
func (r *Running) serve(ln net.Listener, l listener) {
	r.mu.Lock()
	r.lns = append(r.lns, ln)
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed
			}
			if !r.track(c) {
				return
			}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer r.untrack(c)
				if l.Proxy {
					r.proxy(c)
				} else {
					r.forward(c, l.Addr)
				}
			}()
		}
	}()
}

// forward carries a connection made to a loopback endpoint inside the namespace to the same address
// outside.
func (r *Running) forward(c net.Conn, addr string) {
	up, err := r.dialer(true).Dial("tcp", addr)
	if err != nil {
		return // the step sees its connection closed, as if nothing listened
	}
	if !r.track(up) {
		return
	}
	defer r.untrack(up)
	splice(c, up)
}

// maxConnectHead bounds a CONNECT request's head.
const maxConnectHead = 16 << 10

// proxy serves one HTTP proxy connection: a CONNECT to an allowed endpoint is carried through; any
// other request, or destination, is refused and counted.
func (r *Running) proxy(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(r.dial))
	lim := &limited{r: c, n: maxConnectHead}
	br := bufio.NewReader(lim)
	req, err := http.ReadRequest(br)
	if err != nil {
		r.refuse("", c, "400 Bad Request")
		return
	}
	target := strings.ToLower(req.Host)
	if req.Method != http.MethodConnect {
		r.refuse(hostOf(req), c, "405 Method Not Allowed")
		return
	}
	if !r.allowed[target] {
		r.refuse(req.Host, c, "403 Forbidden")
		return
	}
	up, err := r.dialer(false).Dial("tcp", target)
	if err != nil {
		// The answer to a step's own request: a failed write reaches the step as a cut answer, and
		// abcd has no one else to tell.
		_, _ = fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	if !r.track(up) {
		return
	}
	defer r.untrack(up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	_ = c.SetDeadline(time.Time{})
	lim.n = -1 // the tunnel's bytes are not the head's
	if n := br.Buffered(); n > 0 {
		rest, _ := br.Peek(n)
		if _, err := up.Write(rest); err != nil {
			return
		}
	}
	splice(c, up)
}

// hostOf is where a non-CONNECT request was going, for the receipt.
func hostOf(req *http.Request) string {
	if req.URL != nil && req.URL.Host != "" {
		return req.URL.Host
	}
	return req.Host
}

// refuse answers a proxy request with status and counts it, naming where it went.
func (r *Running) refuse(target string, c net.Conn, status string) {
	r.mu.Lock()
	r.receipt.NetworkRefused++
	if t := receiptHost(target); t != "" && len(r.receipt.Refused) < runner.MaxSandboxRefused && !slices.Contains(r.receipt.Refused, t) {
		r.receipt.Refused = append(r.receipt.Refused, t)
	}
	r.mu.Unlock()
	// The refusal is counted above; a failed write reaches the step as a cut answer.
	_, _ = fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status)
}

// receiptHost keeps a destination's name to what a host and port are spelled with, at most 100 bytes:
// what a step asked for is not trusted text. Its case is kept, so the runner's scrubber still finds a
// credential a step tried to carry out in a name.
func receiptHost(s string) string {
	s = strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c) {
			return c
		}
		return -1
	}, s)
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// dialer dials from abcd's own network. A name the proxy carries is never dialled at a loopback,
// unspecified or link-local address (what only a loopback endpoint, forwarded as such, may reach);
// loopback is what a forwarded listener dials.
func (r *Running) dialer(loopback bool) *net.Dialer {
	return &net.Dialer{Timeout: r.dial, ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip := net.ParseIP(host)
		if ip == nil {
			return fmt.Errorf("not an address: %s", host)
		}
		if loopback != ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() {
			return errors.New("a destination the fence does not dial")
		}
		return nil
	}}
}

// splice copies both ways until both sides are done, passing each side's end of writing on.
func splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src) // either side closing ends the copy; there is no one to tell
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			_ = dst.Close() // no half-close: the whole end passes the end of writing on
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
}

// limited reads at most n bytes (n < 0: no bound), then fails.
type limited struct {
	r io.Reader
	n int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, errors.New("a CONNECT head over " + strconv.Itoa(maxConnectHead) + " bytes")
	}
	if l.n > 0 && len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	if l.n > 0 {
		l.n -= n
	}
	return n, err
}
