package history

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// AssignmentRule finds a value given to a secret-named key (a name ending in token, key or secret;
// one holding password, passphrase or auth; private_key_id), in an env file (NAME=value), a shell
// (export NAME=...), JSON ("name": "value"), YAML (name: value), code (name = "value", name :=
// "value") or a header (Authorization: Bearer ...). The value is redacted whatever its entropy,
// unless it is plainly not a secret: a word or an identifier, a reference to one ($VAR, ${VAR},
// config.token, getKey()), a placeholder, a number, a URL without a password, a path, prose.
const AssignmentRule = "secret-assignment"

// assignment is a name, an operator and a value, from the name's first character: the value quoted
// (any of three quotes; a quote escaped inside is the value's) or bare (up to what ends a word in
// code or a shell, or an escape).
var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]{0,80})["']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}(?:(?i:bearer|basic|token)[ \t]+)?(?:"((?:[^"\\\n]|\\.){1,600})"|'((?:[^'\\\n]|\\.){1,600})'|` + "`([^`\\n]{1,600})`" + `|([^\s"'` + "`" + `,;&<>(){}\[\]|\\]{1,600}))`)

// assignmentKeywords are the words a secret-named key holds (in lower case): the rule looks only at
// the names around them.
var assignmentKeywords = []string{"token", "key", "secret", "passw", "pwd", "passphrase", "auth"}

// assignments are the values given to secret-named keys in text (lower is text with ASCII in lower
// case, byte for byte). Each name holding a keyword is read whole (monkey= has no name key in it),
// then the operator and the value after it.
func assignments(text, lower string) []Finding {
	var starts []int
	for _, k := range assignmentKeywords {
		for from := 0; len(starts) < maxTries; {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			i += from
			from = i + len(k)
			s := i
			for s > 0 && isNameByte(text[s-1]) {
				s--
			}
			for s < i && !isLetter(text[s]) && text[s] != '_' {
				s++ // a flag's dashes (--api-key), a number before the name
			}
			if s > 0 && text[s-1] == '$' {
				continue // a variable's value read ($API_KEY), not given
			}
			starts = append(starts, s)
		}
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	var out []Finding
	for _, at := range starts {
		m := assignment.FindStringSubmatchIndex(text[at:])
		if m == nil {
			continue
		}
		vs, ve := -1, -1
		for g := 2; g <= 5; g++ {
			if m[2*g] >= 0 {
				vs, ve = at+m[2*g], at+m[2*g+1]
				break
			}
		}
		// A header's scheme, inside the quotes ("Authorization": "Bearer ..."), is not the secret.
		for _, scheme := range []string{"bearer ", "basic ", "token "} {
			if ve-vs > len(scheme) && strings.EqualFold(text[vs:vs+len(scheme)], scheme) {
				vs += len(scheme)
				for vs < ve && (text[vs] == ' ' || text[vs] == '\t') {
					vs++
				}
				break
			}
		}
		if m[10] >= 0 { // bare: a sentence's or a list's punctuation after it is not the value's
			for ve > vs && strings.IndexByte(".:", text[ve-1]) >= 0 {
				ve--
			}
		}
		if secretName(text[at+m[2]:at+m[3]]) && secretValue(text[vs:ve]) {
			out = append(out, Finding{Rule: AssignmentRule, Start: vs, End: ve})
		}
	}
	return out
}

func isNameByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// words are a name's words in lower case: split at what is not a letter, and where a lower-case
// letter meets a capital or a run of capitals meets a capitalized word (apiKey, APIKey, api_key).
func words(name string) []string {
	var out []string
	var w []rune
	flush := func() {
		if len(w) > 0 {
			out = append(out, strings.ToLower(string(w)))
			w = w[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) ||
			unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			flush()
		}
		w = append(w, r)
	}
	flush()
	return out
}

// notSecretKeys are the words before a final key or token that make it a name for something that is
// not a secret: a database's, a map's, a cache's key, a page's token.
var notSecretKeys = map[string]bool{
	"public": true, "pub": true, "primary": true, "foreign": true, "sort": true, "partition": true, "range": true, "hash": true,
	"cache": true, "idempotency": true, "unique": true, "lookup": true, "row": true, "object": true, "bucket": true, "translation": true,
	"message": true, "map": true, "dict": true, "group": true, "composite": true, "natural": true, "surrogate": true,
	"index": true, "idx": true, "schema": true, "sequence": true, "csrf": true, "xsrf": true, "page": true, "next": true,
	"continuation": true, "pagination": true, "cursor": true, "sync": true, "max": true, "min": true, "num": true, "total": true,
	"form": true, "react": true, "list": true, "item": true, "column": true, "field": true, "label": true,
}

// notSecretEnds are last words that make a name holding secret, password or auth one for something
// about it: its name, its length, where it is kept.
var notSecretEnds = map[string]bool{
	"name": true, "names": true, "id": true, "ids": true, "arn": true, "path": true, "file": true, "dir": true, "length": true,
	"len": true, "size": true, "count": true, "type": true, "kind": true, "version": true, "ref": true, "store": true,
	"manager": true, "provider": true, "url": true, "uri": true, "endpoint": true, "mount": true, "env": true, "engine": true,
	"policy": true, "rules": true, "enabled": true, "required": true, "prompt": true, "label": true, "hint": true, "field": true,
	"level": true, "expiry": true, "expires": true, "ttl": true, "timeout": true, "mode": true, "method": true, "methods": true, "scheme": true,
}

// secretName reports a secret-named key.
func secretName(name string) bool {
	ws := words(name)
	if len(ws) == 0 {
		return false
	}
	last := ws[len(ws)-1]
	if n := len(ws); n >= 3 && ws[n-3] == "private" && ws[n-2] == "key" && last == "id" {
		return true // a service account's private_key_id
	}
	switch last {
	case "token", "key":
		if len(ws) == 1 && last == "key" {
			return false // a map's or a list's key, far more often than a credential
		}
		return len(ws) == 1 || !notSecretKeys[ws[len(ws)-2]]
	case "secret", "password", "passwd", "pwd", "passphrase":
		return true
	}
	if notSecretEnds[last] {
		return false
	}
	for _, w := range ws {
		switch w {
		case "secret", "password", "passwd", "passphrase", "auth", "oauth", "authorization", "authn", "authz":
			return true
		}
	}
	return false
}

var (
	// reference is a value that names where the secret is rather than being it.
	reference = regexp.MustCompile(`^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|\{\{.*\}\}|<[^>]*>|\[[^\]]*\]|@[A-Za-z_][A-Za-z0-9_]*@?)$`)
	// camelShape is an identifier in words: camelCase, PascalCase, with short runs of capitals.
	camelShape = regexp.MustCompile(`^[a-z]*(?:[A-Z]{1,8}[a-z]+)*[A-Z]{0,8}$`)
	// number is a count, a date, a time, a version, a size.
	number = regexp.MustCompile(`^[0-9][0-9.,:/_+-]{0,14}(?:[a-zA-Z%]{1,3})?$|^0[xX][0-9a-fA-F_]{1,24}$`)
	// plainURL is a URL with no password in it, a user's name being none (a URL's password is the
	// url-credentials rule's).
	plainURL = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]{1,20}://(?:[^:@/\s]*:?@)?[^@\s]*$`)
	// filePath is a path to a file: from a root, a home or a relative start, ending in an extension.
	filePath = regexp.MustCompile(`^(?:~|\.{1,2})?/(?:[\w.@-]+/)*[\w@-][\w.@-]*\.[A-Za-z0-9]{1,8}$|^(?:~|\.{1,2})/[\w./@-]*$|^/(?:etc|home|tmp|var|usr|opt|run|srv|mnt|Users|private|proc|dev)/[\w./@-]*$`)
	// email is an address.
	email = regexp.MustCompile(`^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$`)
	// placeholder is a value that stands for a secret to be filled in.
	placeholder = regexp.MustCompile(`(?i)x{4,}|\*{3,}|\.{3}|…|example|placeholder|changeme|change_me|your[_-]|redacted|dummy|^(?:none|null|nil|undefined|true|false|yes|no|on|off|required|optional|secret|password|token)$`)
)

// secretValue reports a value that may be a secret: anything that is not plainly something else.
func secretValue(v string) bool {
	if len(v) < 8 || len(v) > 512 || strings.Contains(v, markPrefix) {
		return false
	}
	if strings.ContainsAny(v, " \t") {
		return false // prose: a sentence, a prompt, a command
	}
	if reference.MatchString(v) || codeRef(v) || number.MatchString(v) || plainURL.MatchString(v) ||
		filePath.MatchString(v) || email.MatchString(v) || placeholder.MatchString(v) {
		return false
	}
	if strings.Trim(v, v[:1]) == "" {
		return false // one character over and over
	}
	return !wordLike(v) && !identifier(v)
}

// codeRef is a value that is an expression in code: a call or an index (getKey(), env["X"]), or a
// field of a field (config.token, process.env.API_TOKEN, ed25519.PrivateKey), each part a name.
func codeRef(v string) bool {
	call := false
	if i := strings.IndexAny(v, "(["); i > 0 {
		v, call = v[:i], true
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 && !call {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 40 || !wordLike(p) && !identifier(p) {
			return false
		}
	}
	return true
}

// identifier is a name in code that holds a few digits (test1024Key, testEd25519PrivateKey, utf8Key,
// password16): at most two runs of at most five digits, each at a word's end or start, never inside
// a word in lower case (a password written in leet, Tr0ub4dor, is no name).
func identifier(v string) bool {
	if !identifierShape.MatchString(v) {
		return false
	}
	runs := digitRuns.FindAllStringIndex(v, -1)
	if len(runs) > 2 {
		return false
	}
	for _, r := range runs {
		if r[1]-r[0] > 5 || r[0] > 0 && r[1] < len(v) && isLower(v[r[0]-1]) && isLower(v[r[1]]) {
			return false
		}
	}
	return wordLike(digitRuns.ReplaceAllString(v, ""))
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

var (
	identifierShape = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	digitRuns       = regexp.MustCompile(`[0-9]+`)
)

// wordLike is a value of letters and separators that reads as words: separated, in one case, or
// camel-cased. Letters mixed in case with no word in them are random.
func wordLike(v string) bool {
	if v == "" || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-/:") != "" {
		return false
	}
	return strings.ContainsAny(v, "_.-/:") || strings.ToLower(v) == v || strings.ToUpper(v) == v || camel(v)
}

// camel reports letters in camelCase words: capitals that begin words, and after them lower-case
// runs that are words (VerifyClientCertIfGiven, NewKeyFromSeed, utf8KeyRaw): at most a third of the
// runs a single letter, two letters long on average. Random letters mixed in case cut their
// lower-case runs short (zoXzPLQGwHOijFyZVie: three of six are one letter).
func camel(v string) bool {
	if !camelShape.MatchString(v) {
		return false
	}
	runs, single, lower := lowerRuns(v)
	return runs > 0 && 3*single <= runs && lower >= 2*runs
}

// lowerRuns counts the runs of lower-case letters in v, those of a single letter, and the letters.
func lowerRuns(v string) (runs, single, lower int) {
	for i := 0; i < len(v); i++ {
		if !isLower(v[i]) {
			continue
		}
		lower++
		if i == 0 || !isLower(v[i-1]) {
			runs++
			if i+1 == len(v) || !isLower(v[i+1]) {
				single++
			}
		}
	}
	return runs, single, lower
}
