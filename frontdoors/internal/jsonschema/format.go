package jsonschema

import (
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The formats abcd's schemas name, checked as the consumers of those schemas check them: the
// contract's readers validate with ajv and ajv-formats, so these accept what ajv-formats' full mode
// accepts, and the differential test (tools/contract/differential.test.mjs) holds them to it. Each
// follows its RFC's grammar; where ajv-formats is more lenient than the RFC, the comment says so.

// isDate is an RFC 3339 full-date, a day that exists: YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 {
		return false
	}
	days := [...]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// digits reads an unsigned decimal of ASCII digits only.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// isDateTime is an RFC 3339 date-time: a full-date, "T" and a full-time with its offset. As RFC
// 3339 allows, "T" and "Z" may be lower case and a space may separate date and time; as ajv-formats
// allows beyond the RFC, any white space may, and an offset may omit its colon or its minutes.
func isDateTime(s string) bool {
	cut := strings.IndexFunc(s, func(r rune) bool { return r == 't' || r == 'T' || isJSSpace(r) })
	if cut < 0 {
		return false
	}
	date, rest := s[:cut], s[cut:]
	_, size := utf8.DecodeRuneInString(rest)
	rest = rest[size:]
	if strings.IndexFunc(rest, func(r rune) bool { return r == 't' || r == 'T' || isJSSpace(r) }) >= 0 {
		return false // more than one separator
	}
	return isDate(date) && isTime(rest)
}

// isJSSpace is white space as ECMAScript's \s reads it.
func isJSSpace(r rune) bool {
	return r == '\ufeff' || unicode.Is(unicode.White_Space, r) && r != 0x85
}

// isTime is a full-time: HH:MM:SS, an optional fraction, and an offset (Z, or +HH:MM). A leap
// second (:60) is a time only at 23:59 UTC.
func isTime(s string) bool {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return false
	}
	hr, ok1 := digits(s[0:2])
	mn, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	sign, tzH, tzM := 1, 0, 0
	switch {
	case rest == "z" || rest == "Z":
	case len(rest) >= 3 && (rest[0] == '+' || rest[0] == '-'):
		if rest[0] == '-' {
			sign = -1
		}
		h, ok := digits(rest[1:3])
		if !ok {
			return false
		}
		tzH = h
		switch m := rest[3:]; {
		case m == "":
		case len(m) == 3 && m[0] == ':', len(m) == 2:
			if tzM, ok = digits(m[len(m)-2:]); !ok {
				return false
			}
		default:
			return false
		}
	default:
		return false
	}
	if tzH > 23 || tzM > 59 {
		return false
	}
	if hr <= 23 && mn <= 59 && sec < 60 {
		return true
	}
	utcMin := mn - tzM*sign
	utcHr := hr - tzH*sign
	if utcMin < 0 {
		utcHr--
	}
	return (utcHr == 23 || utcHr == -1) && (utcMin == 59 || utcMin == -1) && sec < 61
}

// isURI is an RFC 3986 URI: a scheme, ":", a hierarchical part, then an optional query and
// fragment, every character one the grammar allows there (ASCII only; anything else
// percent-encoded). As ajv-formats reads it, the part after the scheme is not empty, and an
// authority may follow a single "/".
func isURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 1 || !isScheme(s[:colon]) {
		return false
	}
	rest := s[colon+1:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if !allOf(rest[i+1:], "/?") {
			return false
		}
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		if !allOf(rest[i+1:], "/?") {
			return false
		}
		rest = rest[:i]
	}
	switch {
	case rest == "":
		return false
	case strings.HasPrefix(rest, "//") && authorityPath(rest[2:]):
		return true
	case strings.HasPrefix(rest, "/") && authorityPath(rest[1:]):
		return true
	case strings.HasPrefix(rest, "/"):
		return allOf(rest, "/") // path-absolute
	default:
		return allOf(rest, "/") // path-rootless
	}
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// authorityPath is an authority ([userinfo "@"] host [":" port]) followed by an absolute path or
// nothing.
func authorityPath(s string) bool {
	end := strings.IndexByte(s, '/')
	if end < 0 {
		end = len(s)
	}
	auth, path := s[:end], s[end:]
	if !allOf(path, "/") {
		return false
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		if !allOfSet(auth[:at], ":", false) {
			return false
		}
		auth = auth[at+1:]
	}
	host := auth
	if strings.HasPrefix(auth, "[") {
		closeAt := strings.IndexByte(auth, ']')
		if closeAt < 0 || !isIPLiteral(auth[1:closeAt]) {
			return false
		}
		host, auth = "", auth[closeAt+1:]
		if auth != "" && auth[0] != ':' {
			return false
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		host, auth = auth[:i], auth[i:]
	} else {
		auth = ""
	}
	if auth != "" { // ":" port
		for i := 1; i < len(auth); i++ {
			if auth[i] < '0' || auth[i] > '9' {
				return false
			}
		}
	}
	return allOfSet(host, "", false)
}

// isIPLiteral is what a URI writes in brackets: an IPv6 address (no zone) or an IPvFuture.
func isIPLiteral(s string) bool {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		return allOfSet(s[dot+1:], ":", true)
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// allOf reports whether s is all path characters (pchar: unreserved, sub-delims, ":", "@", or
// percent-encoded) or one of extra.
func allOf(s, extra string) bool {
	return allOfSet(s, ":@"+extra, false)
}

// allOfSet reports whether s is all unreserved or sub-delims characters, percent-encoded octets
// (unless noPercent), or one of extra.
func allOfSet(s, extra string, noPercent bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case strings.IndexByte(extra, c) >= 0:
		case c == '%' && !noPercent:
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}
