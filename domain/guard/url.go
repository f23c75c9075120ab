package guard

import (
	"net/url"
	"path"
	"strings"
)

// operandTri matches an operand against globs as written and, for a URL or an API path, as the
// server reads it: whatever the spelling of its scheme and host (case, a trailing dot, a port, user
// information), percent-encoding, doubled or trailing slashes, . and .. segments, a query or a
// fragment.
func operandTri(word Word, globs []string, nocase, exact bool) tri {
	t, ok := word.Text()
	if !ok {
		return globTri(word, globs, nocase, exact)
	}
	for _, form := range urlForms(t) {
		if matchAny(globs, form, nocase) {
			return yes
		}
	}
	return no
}

// urlForms are t as written, and its canonical forms when it reads as a URL or an API path.
func urlForms(t string) []string {
	forms := []string{t}
	if !strings.Contains(t, "/") || strings.HasPrefix(t, "-") || len(t) > 4096 {
		return forms
	}
	scheme, rest, hasScheme := strings.Cut(t, "://")
	if hasScheme {
		scheme = strings.ToLower(scheme)
		if scheme != "http" && scheme != "https" {
			return forms
		}
	} else {
		scheme, rest = "", t
	}
	host, p, _ := strings.Cut(rest, "/")
	if !hasScheme && !looksLikeHost(host) {
		// an API path (repos/o/r, /repos//o/r/): cleaned and decoded, with and without the leading /
		c := cleanURLPath(t)
		return append(forms, c, strings.TrimPrefix(c, "/"))
	}
	u, err := url.Parse("http://" + host + "/")
	if err != nil {
		return forms
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	c := cleanURLPath("/" + p)
	if scheme == "" {
		return append(forms, "http://"+h+c, "https://"+h+c)
	}
	return append(forms, scheme+"://"+h+c)
}

// looksLikeHost is a host name or address as a scheme-less URL starts (api.github.com, 1.2.3.4:8080).
func looksLikeHost(s string) bool {
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		s = s[at+1:]
	}
	h, _, _ := strings.Cut(s, ":")
	return strings.Contains(strings.Trim(h, "."), ".") && !strings.ContainsAny(h, " \t{}*")
}

// cleanURLPath decodes percent-escapes, drops the query and fragment, and cleans the path.
func cleanURLPath(p string) string {
	p, _, _ = strings.Cut(p, "#")
	p, _, _ = strings.Cut(p, "?")
	if d, err := url.PathUnescape(p); err == nil {
		p = d
	}
	abs := strings.HasPrefix(p, "/")
	c := path.Clean("/" + p)
	if !abs {
		return strings.TrimPrefix(c, "/")
	}
	return c
}
