package review

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/text"
)

// FallbackReason says why a route did not return, so the step went to the host.
type FallbackReason string

const (
	Absent      FallbackReason = "absent"
	Unreachable FallbackReason = "unreachable"
	Timeout     FallbackReason = "timeout"
	Refused     FallbackReason = "refused"
	Unparsable  FallbackReason = "unparsable"
	Invalid     FallbackReason = "invalid"
	Failed      FallbackReason = "failed"
	Interrupted FallbackReason = "interrupted"
)

// FallbackReasons lists every reason, in the order a route fails: before, during, after the call.
func FallbackReasons() []FallbackReason {
	return []FallbackReason{Absent, Unreachable, Timeout, Refused, Unparsable, Invalid, Failed, Interrupted}
}

func (FallbackReason) SchemaEnum() contract.Rule { return contract.Enum(FallbackReasons()...) }

// Valid reports whether r is one of the reasons.
func (r FallbackReason) Valid() bool {
	for _, x := range FallbackReasons() {
		if r == x {
			return true
		}
	}
	return false
}

// Sentence says the reason in plain words, without a trailing period, for a record or a `next`
// sentence.
func (r FallbackReason) Sentence() string {
	switch r {
	case Absent:
		return "no server is configured for this route"
	case Unreachable:
		return "the route's server refused the connection or closed it before answering"
	case Timeout:
		return "the route did not answer within its time bound"
	case Refused:
		return "the route's server answered with an error"
	case Unparsable:
		return "the route's answer was not in its protocol's shape"
	case Invalid:
		return "the route's return held no verdict abcd can record, or was larger than a return may be"
	case Failed:
		return "abcd could not compose the request for this route"
	case Interrupted:
		return "the step was interrupted while the route worked"
	}
	return fmt.Sprintf("the route did not return (reason %q)", text.Clip(string(r)))
}

// RanHost is the route a fallback hands the step to.
const RanHost = "host"

// MaxFallbackDetail bounds FallbackReceipt.Detail, in characters.
const MaxFallbackDetail = 512

// DetailBytes is what abcd clips the details it writes itself to (text.ClipAt), well inside
// MaxFallbackDetail whatever the characters.
const DetailBytes = 400

// FallbackReceipt records a route that did not return: the step went to the host with the same
// brief.
type FallbackReceipt struct {
	// At is when, in RFC 3339 UTC, handed in by the caller.
	At    string `json:"at" jsonschema:"format=date-time"`
	Run   string `json:"run" jsonschema:"minLength=1,maxLength=64"`
	Lane  string `json:"lane" jsonschema:"minLength=1,maxLength=64"`
	Round int    `json:"round" jsonschema:"minimum=0"`
	Role  Role   `json:"role"`
	// Asked is the route asked for: rp, or a connection name.
	Asked  string         `json:"asked" jsonschema:"minLength=1"`
	Reason FallbackReason `json:"reason"`
	// Detail is abcd's own words; never a secret or an address.
	Detail string `json:"detail" jsonschema:"maxLength=512"`
	Ran    string `json:"ran"`
}

// Check names every field of a fallback receipt that breaks its rules, in a *ReturnError, or
// returns nil. It refuses a detail that holds a URL, as a guard against an address reaching the
// record.
func (f FallbackReceipt) Check() error {
	var p problems
	if _, err := time.Parse(time.RFC3339, f.At); err != nil || !strings.HasSuffix(f.At, "Z") {
		p.add("the fallback's \"at\" %q is not an RFC 3339 UTC time such as 2026-01-02T15:04:05Z", text.Clip(f.At))
	}
	checkLength("run", f.Run, 64, &p)
	checkLength("lane", f.Lane, 64, &p)
	if f.Round < 0 {
		p.add("the fallback's \"round\" is %d: a round is 0 or more", f.Round)
	}
	if !f.Role.Valid() {
		p.add("the fallback's \"role\" %q is not one of the loop's roles: name %s, %s, %s or %s", text.Clip(string(f.Role)), Implementer, Ruthless, Security, Auditor)
	}
	if strings.TrimSpace(f.Asked) == "" {
		p.add("the fallback's \"asked\" is empty: name the route asked for")
	}
	if !f.Reason.Valid() {
		names := make([]string, 0, len(FallbackReasons()))
		for _, r := range FallbackReasons() {
			names = append(names, string(r))
		}
		p.add("the fallback's \"reason\" %q is not one of the reasons: name one of %s", text.Clip(string(f.Reason)), strings.Join(names, ", "))
	}
	if n := utf8.RuneCountInString(f.Detail); n > MaxFallbackDetail {
		p.add("the fallback's \"detail\" is %d characters, more than %d: say it shorter", n, MaxFallbackDetail)
	}
	if strings.Contains(f.Detail, "://") {
		p.add("the fallback's \"detail\" holds a URL: say what happened in abcd's own words, never the address")
	}
	if strings.ContainsFunc(f.Detail, unicode.IsControl) {
		p.add("the fallback's \"detail\" has a control character: keep it to one plain line")
	}
	if f.Ran != RanHost {
		p.add("the fallback's \"ran\" is %q: a fallback runs on %q", text.Clip(f.Ran), RanHost)
	}
	return p.err()
}

func (FallbackReceipt) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"ran": contract.Enum(RanHost)}
}
