package runner

import (
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/text"
)

// The sandbox is the fence abcd builds around every process a runner's step starts (and around the
// definition of done it runs on a runner's work): writes only where the step may write, no reads of
// the person's credential folders, the network only to the runner's endpoints. The receipt says which
// fence a step ran in.

// SandboxKind names the fence a step ran in.
type SandboxKind string

const (
	// SandboxLinux is Landlock (best effort up to the kernel's ABI) inside new user, mount and network
	// namespaces, set by abcd's helper before the CLI is executed.
	SandboxLinux SandboxKind = "linux"
	// SandboxOff is a step the person ran unconfined ("sandbox": "off" in the runner's block).
	SandboxOff SandboxKind = "off"
)

// SchemaEnum: the fences abcd builds, and off.
func (SandboxKind) SchemaEnum() contract.Rule { return contract.Enum(SandboxLinux, SandboxOff) }

// Bounds of a receipt's sandbox.
const (
	MaxSandboxPaths     = 64
	MaxSandboxEndpoints = 32
	MaxSandboxRefused   = 8
)

// Sandbox is the fence one step ran in, as its receipt records it.
type Sandbox struct {
	Kind SandboxKind `json:"kind"`
	// LandlockABI is the Landlock ABI the rules were applied at (0 when off).
	LandlockABI int `json:"landlock_abi" jsonschema:"minimum=0"`
	// Writable are the roots the step could write: the lane's worktree for an implementer (its .git
	// kept read-only), none for a reviewer or the auditor, and its private temporary and state folders.
	Writable []string `json:"writable" jsonschema:"maxItems=64"`
	// Hidden are the folders and files the step could not read (each shown to it as empty).
	Hidden []string `json:"hidden" jsonschema:"maxItems=64"`
	// Network is the allowlist: the only host:port pairs the step could reach.
	Network []string `json:"network" jsonschema:"maxItems=32"`
	// NetworkRefused counts the connections abcd's proxy refused (a destination outside the
	// allowlist, or a request that was not a CONNECT); Refused names the first of them (host:port).
	NetworkRefused int      `json:"network_refused" jsonschema:"minimum=0"`
	Refused        []string `json:"refused" jsonschema:"maxItems=8"`
}

// problems are what breaks a receipt's sandbox: a kind abcd does not build, a list past its bound, a
// word that is not one plain line.
func (s Sandbox) problems() []string {
	var p []string
	if s.Kind != SandboxLinux && s.Kind != SandboxOff {
		p = append(p, fmt.Sprintf("sandbox kind %q is not one abcd builds", text.Clip(string(s.Kind))))
	}
	if s.LandlockABI < 0 || s.NetworkRefused < 0 {
		p = append(p, "a sandbox figure is negative")
	}
	for _, l := range []struct {
		name  string
		items []string
		max   int
	}{{"writable", s.Writable, MaxSandboxPaths}, {"hidden", s.Hidden, MaxSandboxPaths}, {"network", s.Network, MaxSandboxEndpoints}, {"refused", s.Refused, MaxSandboxRefused}} {
		if len(l.items) > l.max {
			p = append(p, fmt.Sprintf("sandbox %s lists %d, over %d", l.name, len(l.items), l.max))
		}
		for _, x := range l.items {
			if x == "" || len(x) > 4096 || text.LineProblem(x) != "" {
				p = append(p, fmt.Sprintf("sandbox %s holds %q, not one plain line", l.name, text.Clip(x)))
			}
		}
	}
	return p
}

// Endpoint is one destination a step's processes may reach: a host name or an IP address, and a port.
type Endpoint struct {
	Host string
	Port int
}

// String is host:port (an IPv6 address in brackets).
func (e Endpoint) String() string {
	if strings.Contains(e.Host, ":") {
		return "[" + e.Host + "]:" + strconv.Itoa(e.Port)
	}
	return e.Host + ":" + strconv.Itoa(e.Port)
}

// Loopback reports whether the endpoint is on this machine's loopback (127.0.0.0/8, ::1, localhost):
// the fence reaches such an endpoint at the same address inside the step's network namespace.
func (e Endpoint) Loopback() bool {
	if strings.EqualFold(e.Host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(e.Host)
	return err == nil && ip.IsLoopback()
}

// Check says why the endpoint cannot be allowed, or "" when it can.
func (e Endpoint) Check() string {
	switch {
	case e.Port < 1 || e.Port > 65535:
		return fmt.Sprintf("port %d is not a TCP port", e.Port)
	case e.Host == "" || len(e.Host) > 253:
		return "its host is empty or longer than 253 bytes"
	}
	if ip, err := netip.ParseAddr(e.Host); err == nil {
		if ip.Zone() != "" || ip.IsUnspecified() || ip.IsMulticast() {
			return "its address is not one a connection goes to"
		}
		return ""
	}
	for _, label := range strings.Split(e.Host, ".") {
		if label == "" || len(label) > 63 {
			return "its host is not a DNS name"
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return "its host is not a DNS name"
			}
		}
	}
	return ""
}

// EndpointOf is the endpoint a base URL names (http or https; the scheme's port when none is given).
func EndpointOf(base string) (Endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" {
		return Endpoint{}, fmt.Errorf("not an absolute URL")
	}
	var port int
	switch strings.ToLower(u.Scheme) {
	case "http":
		port = 80
	case "https":
		port = 443
	default:
		return Endpoint{}, fmt.Errorf("its scheme is not http or https")
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return Endpoint{}, fmt.Errorf("its port is not a number")
		}
	}
	e := Endpoint{Host: u.Hostname(), Port: port}
	if why := e.Check(); why != "" {
		return Endpoint{}, fmt.Errorf("%s", why)
	}
	return e, nil
}

// VendorEndpoints are the API endpoints a CLI reaches when no base URL is passed to it: its vendor's.
func (k Kind) VendorEndpoints() []Endpoint {
	switch k {
	case Claude:
		return []Endpoint{{"api.anthropic.com", 443}}
	case Codex:
		return []Endpoint{{"api.openai.com", 443}, {"chatgpt.com", 443}}
	case Gemini:
		return []Endpoint{{"generativelanguage.googleapis.com", 443}, {"cloudcode-pa.googleapis.com", 443}, {"oauth2.googleapis.com", 443}}
	}
	return nil
}

// StateFolders are the folders under home where the CLI writes its own state on every run: its
// configuration, sessions and caches (Claude Code keeps its .claude.json inside .claude, where
// HomeEnv's CLAUDE_CONFIG_DIR points). They are the writable state of a fenced step, so home must be
// the home abcd gives the CLI, never the person's: a CLI's state folder holds the settings and hooks
// the person's own sessions of it load, and a step that could write them would run code outside
// every fence the next time the person starts the CLI.
func (k Kind) StateFolders(home string) []string {
	if home == "" || !path.IsAbs(home) {
		return nil
	}
	switch k {
	case Claude:
		return []string{path.Join(home, ".claude")}
	case Codex:
		return []string{path.Join(home, ".codex")}
	case Gemini:
		return []string{path.Join(home, ".gemini")}
	case ACP:
		// An ACP agent is any program: its state lives where it likes under the home abcd gives it,
		// which holds nothing of abcd's (abcd hands it no settings file).
		return []string{home}
	}
	return nil
}

// CredentialFolders are the folders and files under a home that hold the person's credentials: a
// step's processes never read them, whatever else it is given. A deny list is never complete, which
// is why writes are an allowlist; this one names the usual places.
func CredentialFolders(home string) []string {
	if home == "" || !path.IsAbs(home) {
		return nil
	}
	rel := []string{".ssh", ".aws", ".config/gcloud", ".netrc", ".docker", ".kube", ".gnupg", ".config/gh", ".git-credentials",
		".npmrc", ".pypirc", ".password-store", ".local/share/keyrings", ".azure", ".vault-token", ".terraform.d", ".config/hub"}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = path.Join(home, r)
	}
	return out
}
