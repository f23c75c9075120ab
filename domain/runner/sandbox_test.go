package runner

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestAnEndpointIsAHostAndATCPPort(t *testing.T) {
	for base, want := range map[string]Endpoint{
		"https://api.anthropic.com":          {"api.anthropic.com", 443},
		"http://127.0.0.1:8080/v1":           {"127.0.0.1", 8080},
		"HTTP://[::1]:9000":                  {"::1", 9000},
		"https://user:pw@proxy.example.test": {"proxy.example.test", 443},
	} {
		got, err := EndpointOf(base)
		assert.NilError(t, err, base)
		assert.Check(t, is.Equal(got, want), base)
	}
	for base, why := range map[string]string{
		"api.anthropic.com":          "not an absolute URL",
		"ftp://files.example.test":   "not http or https",
		"https://a_b.example.test":   "not a DNS name",
		"http://127.0.0.1:0":         "not a TCP port",
		"https://[::]:443":           "not one a connection goes to",
		"https://example.test:99999": "not a TCP port",
	} {
		_, err := EndpointOf(base)
		assert.Check(t, is.ErrorContains(err, why), base)
	}
	assert.Check(t, Endpoint{"localhost", 1}.Loopback())
	assert.Check(t, Endpoint{"127.0.0.2", 1}.Loopback())
	assert.Check(t, Endpoint{"::1", 1}.Loopback())
	assert.Check(t, !Endpoint{"api.anthropic.com", 443}.Loopback())
	assert.Check(t, is.Equal(Endpoint{"::1", 9000}.String(), "[::1]:9000"))
	for _, k := range []Kind{Claude, Codex, Gemini} {
		for _, e := range k.VendorEndpoints() {
			assert.Check(t, is.Equal(e.Check(), ""), "%s %s", k, e)
		}
	}
}

func TestTheCredentialFoldersAreUnderTheHome(t *testing.T) {
	got := CredentialFolders("/home/p")
	for _, want := range []string{"/home/p/.ssh", "/home/p/.aws", "/home/p/.config/gcloud", "/home/p/.netrc", "/home/p/.docker", "/home/p/.kube"} {
		assert.Check(t, is.Contains(got, want))
	}
	assert.Check(t, is.Len(CredentialFolders(""), 0))
	assert.Check(t, is.Len(CredentialFolders("home"), 0), "a relative home names nothing")
}

func TestAReceiptsSandboxIsChecked(t *testing.T) {
	ok := Sandbox{Kind: SandboxLinux, LandlockABI: 7, Writable: []string{"/w"}, Hidden: []string{"/h"}, Network: []string{"api.example.test:443"}, Refused: []string{}}
	assert.Check(t, is.Len(ok.problems(), 0))
	bad := ok
	bad.Kind = "docker"
	assert.Check(t, is.Len(bad.problems(), 1))
	bad = ok
	bad.Refused = []string{"a\nb"}
	assert.Check(t, is.Len(bad.problems(), 1))
	bad = ok
	bad.Refused = make([]string, MaxSandboxRefused+1)
	for i := range bad.Refused {
		bad.Refused[i] = "x.test:443"
	}
	assert.Check(t, is.Len(bad.problems(), 1))
}

// FuzzEndpointOf: whatever a base URL holds, an endpoint it yields is one the fence can allow.
func FuzzEndpointOf(f *testing.F) {
	for _, s := range []string{"https://api.anthropic.com", "http://127.0.0.1:8080/v1", "HTTP://[::1]:9000", "https://a:b@c.d:1", "ftp://x", ":", "http://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, base string) {
		e, err := EndpointOf(base)
		if err != nil {
			return
		}
		if why := e.Check(); why != "" {
			t.Fatalf("%q gave %v, which its own check refuses: %s", base, e, why)
		}
	})
}

func TestEachCLIsStateIsUnderTheHomeItIsGiven(t *testing.T) {
	assert.Check(t, is.DeepEqual(Claude.StateFolders("/h"), []string{"/h/.claude"}))
	assert.Check(t, is.DeepEqual(Codex.StateFolders("/h"), []string{"/h/.codex"}))
	assert.Check(t, is.DeepEqual(Gemini.StateFolders("/h"), []string{"/h/.gemini"}))
	assert.Check(t, is.Len(Claude.StateFolders("h"), 0))
	assert.Check(t, is.Len(OpenCode.StateFolders("/h"), 0), "a CLI abcd does not drive has none")
}

// Each CLI is pointed at the home abcd gives it, by HOME and by its own variable, and its state
// folders lie under that home; a runner's block may not point it elsewhere.
func TestEachCLIIsPointedAtTheHomeItIsGiven(t *testing.T) {
	for k, own := range map[Kind][2]string{Claude: {"CLAUDE_CONFIG_DIR", "/h/.claude"}, Codex: {"CODEX_HOME", "/h/.codex"}, Gemini: {"GEMINI_CLI_HOME", "/h"}} {
		env := k.HomeEnv("/h")
		assert.Check(t, is.Equal(env["HOME"], "/h"), k)
		assert.Check(t, is.Equal(env[own[0]], own[1]), k)
		for name, v := range env {
			assert.Check(t, v == "/h" || strings.HasPrefix(v, "/h/"), "%s: %s=%s is outside the home", k, name, v)
		}
		for _, s := range k.StateFolders("/h") {
			assert.Check(t, strings.HasPrefix(s, "/h/"), "%s: state %s is outside the home", k, s)
		}
		assert.Check(t, EnvProblem(own[0]) != "", "%s may not be named by a runner's block", own[0])
	}
	assert.Check(t, is.Contains(Gemini.HomeEnv("/h"), "XDG_CONFIG_HOME"))
	assert.Check(t, Claude.HomeEnv("h") == nil, "a home that is not absolute points nowhere")
}
