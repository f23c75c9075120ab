package repoprompt

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// Fault is why a session did not give its answer: a fallback reason and abcd's own words.
type Fault struct {
	Reason review.FallbackReason
	Detail string
	// Bound is the catalog bound a refusal is for; 0 for every other fault.
	Bound CatalogBound
}

func (f *Fault) Error() string { return string(f.Reason) + ": " + f.Detail }

func fault(r review.FallbackReason, detail string) *Fault { return &Fault{Reason: r, Detail: detail} }

func faultf(r review.FallbackReason, format string, args ...any) *Fault {
	return &Fault{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// outcome is the fallback the loop records. The detail is one plain line within the receipt's
// bound, every detail being abcd's own sentence with at most a scrubbed excerpt in it.
func (f *Fault) outcome() ports.ReviewOutcome {
	d := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, "RepoPrompt: "+f.Detail)
	if r := []rune(d); len(r) > review.MaxFallbackDetail {
		d = string(r[:review.MaxFallbackDetail-1]) + "…"
	}
	return ports.ReviewOutcome{FallbackReason: string(f.Reason), FallbackDetail: d}
}

// excerpt is a server's text as a detail may carry it: one line, the address and anything like a URL
// taken out, clipped to text.ClipBytes; "" when there is nothing to show.
func (c *Client) excerpt(s string) string {
	s = c.scrubText(s)
	if s == "" {
		return ""
	}
	return ` ("` + text.Clip(s) + `")`
}

func (c *Client) scrubText(s string) string {
	if len(s) > 4*text.ClipBytes {
		s = s[:4*text.ClipBytes] // what is past the clip is never shown; scrub no more than needed
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\uFFFD' {
			return ' '
		}
		return r
	}, s)
	words := strings.Fields(s)
	for i, w := range words {
		if strings.Contains(w, "://") || strings.Contains(strings.ToLower(w), "localhost") {
			words[i] = "[address]"
			continue
		}
		for _, a := range c.scrub {
			if a != "" && strings.Contains(w, a) {
				words[i] = "[address]"
				break
			}
		}
	}
	return strings.Join(words, " ")
}

// addressSpellings are the parts of the address a detail must not carry: the host (as written and
// bracketed), the port, and host:port.
func addressSpellings(u *url.URL) []string {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	out := []string{u.Host, host, net.JoinHostPort(host, port)}
	if len(port) >= 2 { // a one-digit port would scrub every digit a server says
		out = append(out, port)
	}
	return out
}

func jsonString(s string) (json.RawMessage, error) { return json.Marshal(s) }

// toolWord names the configured tool in a detail: it is the person's own setting, clipped.
func toolWord(tool string) string { return "tool " + text.Clip(tool) }
