package oracle

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/text"
)

// Limits on what the routing files and the --route flag may carry.
const (
	MaxSettings      = 16   // settings per row, per flag, and after the merge
	MaxSettingBytes  = 256  // a setting value's decoded string form
	MaxRouteBytes    = 1024 // one --route flag's text
	MaxModelReported = 200  // a receipt's model_reported, in bytes
)

var (
	agentPattern  = pattern.New(`^[a-z][a-z0-9-]{0,63}$`)
	keyPattern    = pattern.New(`^[a-z][a-z0-9_]{0,63}$`)
	connPattern   = pattern.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) // safe to print as a config key segment
	numberPattern = pattern.New(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// ValidAgentName reports whether s has the shape of a roster agent's name.
func ValidAgentName(s string) bool { return agentPattern.MatchString(s) }

// ValidSettingKey reports whether s has the shape of a setting's key.
func ValidSettingKey(s string) bool { return keyPattern.MatchString(s) }

// echo quotes clipped text for a message, so a control or bidi character in what a person wrote is
// shown escaped rather than acted on by a terminal.
func echo(s string) string { return strconv.Quote(text.Clip(s)) }

// checkValue applies the value rules to a setting's decoded string form; it returns "" when clean.
func checkValue(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8: save it as UTF-8"
	}
	if len(s) > MaxSettingBytes {
		return fmt.Sprintf("is %d bytes, over the limit of %d: shorten it", len(s), MaxSettingBytes)
	}
	for _, r := range s {
		if class := text.Hidden(r); class != "" {
			return fmt.Sprintf("holds U+%04X, %s: remove it", r, class)
		}
	}
	return ""
}

// decodeScalar returns a scalar's decoded string form: a string's contents, or a number's or
// boolean's JSON text. It refuses anything that is not exactly one JSON string, number or boolean.
func decodeScalar(v Scalar) (string, string) {
	s := string(v)
	switch {
	case s == "":
		return "", "has no value: give a string, a number or a boolean"
	case !utf8.ValidString(s):
		return "", "is not valid UTF-8: save it as UTF-8"
	case s == "true" || s == "false":
		return s, ""
	case numberPattern.MatchString(s):
		return s, ""
	case s[0] == '"' && s[len(s)-1] == '"' && len(s) >= 2:
		var out string
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return "", "is not a valid JSON string"
		}
		return out, ""
	}
	return "", "must be a string, a number or a boolean"
}

// checkScalar applies every value rule to one setting value; it returns "" when clean.
func checkScalar(v Scalar) string {
	s, msg := decodeScalar(v)
	if msg != "" {
		return msg
	}
	return checkValue(s)
}

// stringScalar keeps s as a JSON string's text, without HTML escaping.
func stringScalar(s string) Scalar {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return Scalar(strings.TrimSuffix(b.String(), "\n"))
}

// checkSettings applies the settings rules, keys in sorted order so the first fault is stable. It
// returns the field at fault ("settings" or "settings.<key>") and the message, or "", "".
func checkSettings(s Settings) (field, msg string) {
	if len(s) > MaxSettings {
		return "settings", fmt.Sprintf("holds %d settings, over the limit of %d: remove some", len(s), MaxSettings)
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if !keyPattern.MatchString(k) {
			return "settings", fmt.Sprintf("key %s is not a setting key (a lowercase letter, then lowercase letters, digits or _, at most 64 bytes): rename it", echo(k))
		}
		if m := checkScalar(s[k]); m != "" {
			return "settings." + k, "value " + echoScalar(s[k]) + " " + m
		}
	}
	return "", ""
}

// echoScalar quotes a setting value for a message: its decoded form when it decodes, else its text.
func echoScalar(v Scalar) string {
	if s, msg := decodeScalar(v); msg == "" {
		return echo(s)
	}
	return echo(string(v))
}

// toValidUTF8 replaces each run of invalid bytes with U+FFFD, as encoding/json would on output.
func toValidUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
