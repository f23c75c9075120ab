// Package repoprompt is the RepoPrompt route: a ports.Validator that sends a review to the MCP
// server the person runs and configured (oracle.rp.url), over Streamable HTTP, with the standard
// library and the wire the server speaks (ports/mcpwire). One review is one session: initialize,
// notifications/initialized, tools/list, tools/call and a closing DELETE. The request goes whole as
// the tool's message argument (new_chat: true when the tool declares it); the answer is the tool
// result's text. Nothing is spawned, configured or discovered, and no model is named.
//
// Every way a review does not come back is a fallback reason (review.FallbackReasons), said in
// abcd's own words: never the address, and the server's text only as a clipped, scrubbed excerpt.
// Bounds: 10 s to connect and set the session up, 30 min for the call, 8 MiB for an answer; no proxy,
// no redirect, and only a loopback address is dialled, whatever a host name resolves to.
package repoprompt

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// Route is the name receipts record for this validator.
const Route = "rp"

// DefaultTool is the tool reviews go to when oracle.rp.tool names none.
const DefaultTool = "oracle_send"

// Defaults, the bounds.
const (
	DefaultSetupTimeout = 10 * time.Second
	DefaultCallTimeout  = 30 * time.Minute
	DefaultCloseTimeout = 2 * time.Second
	DefaultMaxAnswer    = 8 << 20
	// MaxRequest bounds the request a review sends: far above the loop's request.md (a 512 KiB diff
	// and its record), below what a message may be.
	MaxRequest = 12 << 20
)

// CatalogLimits bound the tool catalog a server lists: untrusted input, read before it is used.
type CatalogLimits struct {
	Tools      int // tools over all pages
	NameBytes  int // one tool's name
	Definition int // one tool's definition, as JSON
	Catalog    int // every page's body together
	Pages      int // tools/list pages
}

// DefaultCatalogLimits: 512 tools, names of 128 bytes, 256 KiB a definition, 4 MiB in all, 16 pages.
func DefaultCatalogLimits() CatalogLimits {
	return CatalogLimits{Tools: 512, NameBytes: 128, Definition: 256 << 10, Catalog: 4 << 20, Pages: 16}
}

// Resolver looks a host name up; net.DefaultResolver is one. Tests inject one that answers a
// non-loopback address.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config is one route: the server and tool the configuration names, and the bounds. A zero bound
// takes its default.
type Config struct {
	URL  string // oracle.rp.url; "" is no server (every review falls back as absent)
	Tool string // oracle.rp.tool; "" is DefaultTool
	// Version is abcd's version, sent as the client's clientInfo.
	Version string

	SetupTimeout time.Duration // connecting and initialize through tools/list
	CallTimeout  time.Duration // the tools/call
	CloseTimeout time.Duration // the closing DELETE, sent even when the review was interrupted
	MaxAnswer    int           // the answer's text, in bytes
	Catalog      CatalogLimits
	// MaxResumes bounds how often one answer's event stream is resumed (GET with Last-Event-ID)
	// after the server closes it before the answer.
	MaxResumes int
	Resolver   Resolver
}

func (c Config) withDefaults() Config {
	if c.Tool == "" {
		c.Tool = DefaultTool
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.SetupTimeout <= 0 {
		c.SetupTimeout = DefaultSetupTimeout
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = DefaultCloseTimeout
	}
	if c.MaxAnswer <= 0 {
		c.MaxAnswer = DefaultMaxAnswer
	}
	d := DefaultCatalogLimits()
	for _, p := range []struct {
		v   *int
		def int
	}{
		{&c.Catalog.Tools, d.Tools}, {&c.Catalog.NameBytes, d.NameBytes}, {&c.Catalog.Definition, d.Definition},
		{&c.Catalog.Catalog, d.Catalog}, {&c.Catalog.Pages, d.Pages},
	} {
		if *p.v <= 0 {
			*p.v = p.def
		}
	}
	if c.MaxResumes <= 0 {
		c.MaxResumes = 5
	}
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	return c
}

// Client is the route for one configured server and tool. It holds no connection: each review
// opens its own session, so two reviews may run at once.
type Client struct {
	cfg      Config
	endpoint *url.URL
	// fault is why no review can be sent (no server, or an address abcd does not admit).
	fault *Fault
	// scrub lists the address's spellings no detail may carry.
	scrub []string
}

var _ ports.Validator = (*Client)(nil)

// New is the route for cfg. It dials nothing.
func New(cfg Config) *Client {
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg}
	if strings.TrimSpace(cfg.URL) == "" {
		c.fault = fault(review.Absent, "no RepoPrompt server is named on this machine (oracle.rp.url)")
		return c
	}
	u, err := url.Parse(cfg.URL)
	raw, _ := jsonString(cfg.URL)
	if err != nil || config.CheckValue("oracle.rp.url", raw) != nil {
		c.fault = fault(review.Failed, "the configured RepoPrompt address is not an http(s) URL on this machine")
		return c
	}
	c.endpoint = u
	c.scrub = addressSpellings(u)
	if rawTool, err := jsonString(cfg.Tool); err != nil || config.CheckValue("oracle.rp.tool", rawTool) != nil {
		c.fault = fault(review.Failed, "the configured RepoPrompt tool name is not one abcd can send to (oracle.rp.tool)")
	}
	return c
}

// Route is rp.
func (c *Client) Route() string { return Route }

// Review sends the request as one session and returns the tool's text, or why not. It never
// returns an error: every fault is a fallback reason.
func (c *Client) Review(ctx context.Context, req ports.ReviewRequest) (ports.ReviewOutcome, error) {
	if c.fault != nil {
		return c.fault.outcome(), nil
	}
	if len(req.Request) == 0 {
		return fault(review.Failed, "the review request is empty").outcome(), nil
	}
	if !utf8.Valid(req.Request) {
		return fault(review.Failed, "the review request is not UTF-8 text, so it cannot be sent as the tool's message").outcome(), nil
	}
	if len(req.Request) > MaxRequest {
		return faultf(review.Failed, "the review request is %d bytes, more than the %d a message to the route may be", len(req.Request), MaxRequest).outcome(), nil
	}
	s, f := c.Open(ctx)
	if f != nil {
		return f.outcome(), nil
	}
	defer s.Close(ctx)
	args, f := s.reviewArguments(string(req.Request))
	if f != nil {
		return f.outcome(), nil
	}
	res, f := s.Call(ctx, c.cfg.Tool, args)
	if f != nil {
		return f.outcome(), nil
	}
	if res.IsError {
		return faultf(review.Refused, "the server's %s answered with an error%s", toolWord(c.cfg.Tool), c.excerpt(res.Text)).outcome(), nil
	}
	if res.TextBlocks == 0 || res.Text == "" {
		return faultf(review.Invalid, "the server's answer held no text content").outcome(), nil
	}
	return ports.ReviewOutcome{Return: []byte(res.Text)}, nil
}

// Dialer builds the route per invocation from the configuration the core read (ports.RPDialer).
// Base carries what does not come from the configuration: the version, and bounds a test shortens.
type Dialer struct {
	Base Config
}

var _ ports.RPDialer = Dialer{}

// RP is the route to url's server and its tool.
func (d Dialer) RP(url, tool string) ports.Validator {
	cfg := d.Base
	cfg.URL, cfg.Tool = url, tool
	return New(cfg)
}
