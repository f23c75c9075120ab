package runner

import (
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
)

// The environment a CLI runs in is built from an allowlist, never inherited whole: what the person's
// shell holds (other keys, a harness's session markers, a loader hook) does not reach it unless the
// runner's block names it.

// inherited are passed through when set: what a program needs to find its home, its locale and the
// person's git identity.
var inherited = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
}

// Fixed is what every CLI is given whatever the person's environment says: no colour or terminal
// escapes in the stream, and a git that never prompts or opens an editor or a pager.
func Fixed() map[string]string {
	return map[string]string{
		"NO_COLOR": "1", "TERM": "dumb",
		"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat", "PAGER": "cat",
	}
}

// owned are variables abcd sets or keeps out itself; a runner block may not name them.
var owned = []string{
	"NO_COLOR", "TERM", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLORTERM",
	"GIT_TERMINAL_PROMPT", "GIT_EDITOR", "GIT_PAGER", "PAGER", "EDITOR", "VISUAL",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
	"CLAUDE_CODE_MAX_RETRIES", "CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE",
	"GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
	// The home abcd gives each CLI (HomeEnv): a runner's block cannot point the CLI at another.
	"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
	"BASH_ENV", "ENV", "PROMPT_COMMAND", "NODE_OPTIONS", "SHELLOPTS", "BASHOPTS",
}

// nestedPrefixes mark a process as running inside another agent's session (or abcd's own): a CLI that
// sees one behaves as a nested session, refuses to start, or reports into the outer one.
var nestedPrefixes = []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION", "CLAUDE_CODE_SSE_PORT",
	"CODEX_SANDBOX", "CODEX_THREAD", "CODEX_CI", "GEMINI_CLI", "OPENCODE", "QODER_CLI", "QODER_SESSION", "ABCD_"}

// loaderPrefixes run code in every process before the CLI's own, past abcd's guard.
var loaderPrefixes = []string{"LD_", "DYLD_", "GIT_CONFIG", "GIT_EXEC_PATH", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS"}

// EnvProblem says why a runner block may not name a variable, or "" when it may.
func EnvProblem(name string) string {
	if slices.Contains(owned, name) {
		return "which abcd sets or keeps out itself: remove it"
	}
	for _, p := range nestedPrefixes {
		if strings.HasPrefix(name, p) {
			return "which marks a process as running inside an agent's session: a runner's CLI is never started as a nested one; remove it"
		}
	}
	for _, p := range loaderPrefixes {
		if strings.HasPrefix(name, p) {
			return "which runs code or commands outside the CLI's own, past abcd's guard: remove it"
		}
	}
	if slices.Contains(inherited, name) {
		return "which every runner is given already: remove it"
	}
	return ""
}

// HomeEnv points a CLI at the settings home abcd gives it, never the person's: HOME, the XDG folders
// under it, and the CLI's own configuration variable (Claude Code's CLAUDE_CONFIG_DIR, Codex's
// CODEX_HOME, Gemini CLI's GEMINI_CLI_HOME), so the CLI reads the settings abcd wrote there and
// writes its state there (StateFolders), and neither it nor what it starts reads the person's own
// settings, hooks or servers. nil for a home that is not an absolute path.
func (k Kind) HomeEnv(home string) map[string]string {
	if home == "" || !path.IsAbs(home) {
		return nil
	}
	env := map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": path.Join(home, ".config"),
		"XDG_CACHE_HOME":  path.Join(home, ".cache"),
		"XDG_DATA_HOME":   path.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  path.Join(home, ".local", "state"),
	}
	switch k {
	case Claude:
		env["CLAUDE_CONFIG_DIR"] = path.Join(home, ".claude")
	case Codex:
		env["CODEX_HOME"] = path.Join(home, ".codex")
	case Gemini:
		env["GEMINI_CLI_HOME"] = home
	}
	return env
}

// Userinfo is the credentials a passed value carries in a URL's userinfo (a proxy's
// https://user:secret@host, a base URL with a token in it): the password, and the userinfo whole, to
// be scrubbed as a credential is. Anything else holds none.
func Userinfo(value string) []string {
	u, err := url.Parse(strings.TrimSpace(value))
	if err != nil || u.User == nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	return append(out, u.User.String())
}

// Environment is what the CLI starts with: the inherited allowlist, the runner's credential_env and
// pass_env, then Fixed and the CLI's own settings (extra), which win. parent is the environment abcd
// runs in, as KEY=value lines. It returns the environment, sorted, and the credentials it passed (for
// scrubbing what the CLI says: credential_env's values, and the userinfo of a passed URL); missing names each credential variable that is unset or empty, and
// the step cannot start while one is.
func Environment(parent []string, r Runner, extra map[string]string) (env, credentials, missing []string) {
	have := map[string]string{}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" {
			have[k] = v // a later duplicate wins, as getenv's does
		}
	}
	out := map[string]string{}
	for _, k := range inherited {
		if v, ok := have[k]; ok {
			out[k] = v
		}
	}
	for _, k := range r.CredentialEnv {
		v := have[k]
		if v == "" {
			missing = append(missing, k)
			continue
		}
		out[k] = v
		credentials = append(credentials, v)
	}
	for _, k := range r.PassEnv {
		if v, ok := have[k]; ok {
			out[k] = v
			credentials = append(credentials, Userinfo(v)...)
		}
	}
	for k, v := range Fixed() {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	env = make([]string, 0, len(out))
	for k, v := range out {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env, credentials, missing
}
