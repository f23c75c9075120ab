package oracle

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// RouteGrammar is the --route flag's grammar, quoted by every refusal of one.
const RouteGrammar = "<agent>=<tier>[@<connection>][?k=v,...]"

// FlagRoute is one parsed --route flag: the agent it routes, the tier it asks for, the connection it
// names ("" for none), its settings (nil for none), and its text verbatim.
type FlagRoute struct {
	Agent      string
	Tier       Tier
	Connection string
	Settings   Settings
	Text       string
}

// RouteError refuses a --route flag. Flag is the flag's text bounded to 80 bytes; Msg says what is
// wrong and the remedy.
type RouteError struct {
	Flag string
	Msg  string
}

func (e *RouteError) Error() string {
	return fmt.Sprintf("--route %q: %s (the grammar is %s)", e.Flag, e.Msg, RouteGrammar)
}

// ParseRoutes reads an invocation's --route flags. dispatches lists the agents this invocation hands
// work to; configured says whether this machine has configured a connection (nil: none is). The
// result maps each routed agent to its flag, never nil.
//
// Refused, each as a *RouteError: a flag over 1024 bytes or not UTF-8; bad syntax; an empty or
// malformed agent; an empty connection after @; a tier outside the set; a setting that is not k=v,
// has a bad key or value, or is given twice; more than 16 settings; an agent this invocation does not
// dispatch; an agent routed twice; a connection not configured on this machine.
//
// A setting's value is a boolean for true or false, a number when it is a JSON number, and a string
// otherwise; it is kept as its JSON text and obeys the row rules for values.
func ParseRoutes(flags []string, dispatches []string, configured func(conn string) bool) (map[string]FlagRoute, error) {
	out := make(map[string]FlagRoute, len(flags))
	for _, raw := range flags {
		fr, err := parseRoute(raw)
		if err != nil {
			return nil, err
		}
		refuse := func(format string, args ...any) error {
			return &RouteError{Flag: text.Clip(raw), Msg: fmt.Sprintf(format, args...)}
		}
		if !slices.Contains(dispatches, fr.Agent) {
			list := "no agent"
			if len(dispatches) > 0 {
				list = strings.Join(dispatches, ", ")
			}
			return nil, refuse("this invocation dispatches %s, not %s: route the agent it dispatches, or drop the flag", list, fr.Agent)
		}
		if _, dup := out[fr.Agent]; dup {
			return nil, refuse("agent %s is routed twice: keep one --route for it", fr.Agent)
		}
		if fr.Connection != "" && (configured == nil || !configured(fr.Connection)) {
			return nil, refuse("%s", notConfigured(fr.Connection))
		}
		out[fr.Agent] = fr
	}
	return out, nil
}

// parseRoute reads one flag's text on its own, before the invocation's checks.
func parseRoute(raw string) (FlagRoute, error) {
	refuse := func(format string, args ...any) (FlagRoute, error) {
		return FlagRoute{}, &RouteError{Flag: text.Clip(raw), Msg: fmt.Sprintf(format, args...)}
	}
	if len(raw) > MaxRouteBytes {
		return refuse("is %d bytes, over the limit of %d: shorten it", len(raw), MaxRouteBytes)
	}
	if !utf8.ValidString(raw) {
		return refuse("is not valid UTF-8")
	}
	agent, rest, ok := strings.Cut(raw, "=")
	if !ok {
		return refuse("bad syntax: no = between the agent and the tier")
	}
	if agent == "" {
		return refuse("names no agent before the =")
	}
	if !agentPattern.MatchString(agent) {
		return refuse("agent %s is not an agent name (a lowercase letter, then lowercase letters, digits or -, at most 64 bytes)", echo(agent))
	}
	head, query, hasQuery := strings.Cut(rest, "?")
	tierText, conn, hasConn := strings.Cut(head, "@")
	if hasConn && conn == "" {
		return refuse("names an empty connection after @: name a configured connection, or drop the @")
	}
	if strings.ContainsAny(conn, "@=") {
		return refuse("bad syntax: connection %s holds @ or =", echo(conn))
	}
	if tierText == "" {
		return refuse("names no tier after the =: give one of %s", TierList())
	}
	tier, err := ParseTier(tierText)
	if err != nil {
		return refuse("tier %s is not one of %s", echo(tierText), TierList())
	}
	fr := FlagRoute{Agent: agent, Tier: tier, Connection: conn, Text: raw}
	if !hasQuery {
		return fr, nil
	}
	if query == "" {
		return refuse("has ? but no setting after it: write ?k=v, or drop the ?")
	}
	items := strings.Split(query, ",")
	if len(items) > MaxSettings {
		return refuse("gives %d settings, over the limit of %d: remove some", len(items), MaxSettings)
	}
	fr.Settings = make(Settings, len(items))
	for _, item := range items {
		k, v, ok := strings.Cut(item, "=")
		if !ok || k == "" || v == "" {
			return refuse("setting %s is not k=v", echo(item))
		}
		if !keyPattern.MatchString(k) {
			return refuse("setting key %s is not a setting key (a lowercase letter, then lowercase letters, digits or _, at most 64 bytes)", echo(k))
		}
		if _, dup := fr.Settings[k]; dup {
			return refuse("setting %s is given twice: keep one", k)
		}
		if msg := checkValue(v); msg != "" {
			return refuse("setting %s: value %s %s", k, echo(v), msg)
		}
		fr.Settings[k] = flagScalar(v)
	}
	return fr, nil
}

// flagScalar types a flag's setting value: true and false are booleans, a JSON number is a number,
// anything else is a string.
func flagScalar(v string) Scalar {
	if v == "true" || v == "false" || numberPattern.MatchString(v) {
		return Scalar(v)
	}
	return stringScalar(v)
}

// RouteText is one --route flag as a person writes it: it checks its own syntax when decoded. What
// the invocation dispatches and what this machine configures are checked by ParseRoutes.
type RouteText string

// UnmarshalText refuses a flag whose text does not parse (route_invalid).
func (r *RouteText) UnmarshalText(b []byte) error {
	if _, err := parseRoute(string(b)); err != nil {
		var re *RouteError
		if errors.As(err, &re) {
			return refusal.New(refusal.CodeRouteInvalid, "", fmt.Sprintf("%q %s", re.Flag, re.Msg), "the grammar is "+RouteGrammar+"; tiers are "+TierList())
		}
		return err
	}
	*r = RouteText(b)
	return nil
}

func (RouteText) SchemaRule() contract.Rule {
	return contract.Rule{Description: "route one agent: " + RouteGrammar, MinLength: 1, MaxLength: MaxRouteBytes}
}

// Texts turns route texts into the strings ParseRoutes reads.
func Texts(rs []RouteText) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}
