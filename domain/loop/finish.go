package loop

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// Finish is how a spec run whose audit passed ends: as its integration branch (branch), the default
// branch fast-forwarded to it (merge), or a pull request opened from it with the person's gh (pr).
type Finish string

const (
	FinishBranch Finish = "branch"
	FinishMerge  Finish = "merge"
	FinishPR     Finish = "pr"
)

// Finishes are the ways a run may end, in the order the configuration and the flag name them.
func Finishes() []string { return config.Finishes() }

func (Finish) SchemaRule() contract.Rule {
	return contract.Rule{Description: "how a run whose audit passed ends: branch, merge (a fast-forward) or pr (a pull request with your gh)", Enum: Finishes()}
}

// UnmarshalText refuses a way to finish abcd does not know (input_invalid), naming the three.
func (f *Finish) UnmarshalText(data []byte) error {
	s := Finish(data)
	switch s {
	case FinishBranch, FinishMerge, FinishPR:
		*f = s
		return nil
	}
	return refusal.New(refusal.CodeInputInvalid, "", fmt.Sprintf("--finish %q is not a way a run finishes", text.Clip(string(data))),
		"give --finish branch, merge or pr, or leave it out to keep build.finish")
}

// Finished is how a run that finished was taken where the team works, once it was: the default
// branch fast-forwarded to the integration's head, or the pull request opened from it.
type Finished struct {
	As Finish `json:"as"`
	// Branch is the branch fast-forwarded (merge), or the integration branch pushed (pr).
	Branch string `json:"branch"`
	// Head is the integration's head the branch was taken to, or pushed at.
	Head string `json:"head"`
	// Remote and URL are the remote the branch was pushed to and the pull request's address (pr).
	Remote string `json:"remote,omitempty"`
	URL    string `json:"url,omitempty"`
	At     string `json:"at"`
}

// Check refuses a recorded finish that means nothing: an unknown way, a head that is no commit, a
// branch that is no branch name, or a pull request whose address is not https or http.
func (f Finished) Check() error {
	switch {
	case f.As != FinishMerge && f.As != FinishPR:
		return fmt.Errorf("finish %q is not merge or pr", text.Clip(string(f.As)))
	case !isCommit(f.Head) || !validBranch(f.Branch):
		return fmt.Errorf("finish names a head that is not a commit id or a branch that is not a branch name")
	case f.As == FinishPR && !webURL(f.URL):
		return fmt.Errorf("finish's pull request %q is not an http(s) address", text.Clip(f.URL))
	}
	return nil
}

func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil && len(s) <= 2048 &&
		!strings.ContainsAny(s, " \t\r\n")
}

// PRURL is the pull request's address in what gh printed: its last line that is an http(s) address
// (gh pr create prints it alone on stdout); "" when none is.
func PRURL(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); webURL(l) {
			return l
		}
	}
	return ""
}

// ForgeRepo is the repository a remote's address names on a forge, as gh takes it with --repo:
// host (with its port, if the address gives one), owner and name.
type ForgeRepo struct {
	Host, Owner, Name string
}

func (r ForgeRepo) String() string { return r.Host + "/" + r.Owner + "/" + r.Name }

// ParseRemote reads a git remote's address as a repository on a forge: https://host/owner/name(.git),
// ssh://[user@]host[:port]/owner/name(.git), or the scp form [user@]host:owner/name(.git). Anything
// else (a path, a file URL, a deeper path) is not one: ok is false.
func ParseRemote(addr string) (ForgeRepo, bool) {
	if addr == "" || len(addr) > 2048 || strings.ContainsAny(addr, " \t\r\n\x00\\") {
		return ForgeRepo{}, false
	}
	var host, p string
	if i := strings.Index(addr, "://"); i >= 0 {
		u, err := url.Parse(addr)
		if err != nil || u.RawQuery != "" || u.Fragment != "" {
			return ForgeRepo{}, false
		}
		switch u.Scheme {
		case "https", "http":
			host = u.Host
		case "ssh", "git+ssh":
			// A forge's SSH port is not its API's: gh names the host alone.
			host = u.Hostname()
		default:
			return ForgeRepo{}, false
		}
		p = u.Path
	} else {
		// The scp form: [user@]host:path, with no slash before the colon.
		at := strings.LastIndex(addr[:max(strings.Index(addr, ":"), 0)], "@")
		h, rest, found := strings.Cut(addr[at+1:], ":")
		if !found || strings.Contains(h, "/") {
			return ForgeRepo{}, false
		}
		host, p = h, rest
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) != 2 {
		return ForgeRepo{}, false
	}
	owner, name := parts[0], strings.TrimSuffix(parts[1], ".git")
	if !forgeName(owner) || !forgeName(name) || !forgeHost(host) {
		return ForgeRepo{}, false
	}
	return ForgeRepo{Host: strings.ToLower(host), Owner: owner, Name: name}, true
}

func forgeName(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." || strings.HasPrefix(s, "-") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func forgeHost(s string) bool {
	if s == "" || len(s) > 253 || strings.HasPrefix(s, "-") || strings.HasPrefix(s, ".") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}
