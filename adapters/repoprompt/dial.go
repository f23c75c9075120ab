package repoprompt

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// errNotLoopback: the server's host name resolved to no loopback address, so nothing was dialled.
var errNotLoopback = errors.New("the server's host resolves to no loopback address")

// errRedirect: the server answered with a redirect, which is never followed.
var errRedirect = errors.New("the server answered with a redirect")

// loopbackDialer dials only 127.0.0.0/8 and ::1, whatever a host name resolves to: it resolves the
// name itself and drops every other address before a connection is tried.
type loopbackDialer struct {
	resolver Resolver
	dialer   net.Dialer
}

func (d *loopbackDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var candidates []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		candidates = []netip.Addr{ip}
	} else {
		found, err := d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		candidates = found
	}
	var loopback []netip.Addr
	for _, ip := range candidates {
		if ip = ip.Unmap(); ip.IsLoopback() && ip.Zone() == "" {
			loopback = append(loopback, ip)
		}
	}
	if len(loopback) == 0 {
		return nil, errNotLoopback
	}
	var last error
	for _, ip := range loopback {
		conn, err := d.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// newHTTP is one session's client: its own connections, no proxy, no redirect, dials bounded by
// the set-up bound and loopback only.
func newHTTP(cfg Config) (*http.Client, *http.Transport) {
	d := &loopbackDialer{resolver: cfg.Resolver, dialer: net.Dialer{Timeout: cfg.SetupTimeout, KeepAlive: 30 * time.Second}}
	tr := &http.Transport{
		Proxy:                  nil, // never proxied: HTTP_PROXY and its kin are not read
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    cfg.SetupTimeout,
		DisableCompression:     true,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
	}, tr
}
