package runner

import (
	"fmt"
	"path"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
)

// The values abcd ahoy connect --runner takes. Each checks itself when decoded, with the rule of the
// configuration key it becomes, and describes itself to the schemas.

// Name is a runner's name: a provider's rule, since both name a route.
type Name string

// UnmarshalText refuses a name that is malformed or reserved (runner_name_invalid).
func (n *Name) UnmarshalText(b []byte) error {
	if !provider.ValidName(string(b)) {
		return refusal.New(refusal.CodeRunnerNameInvalid, "", fmt.Sprintf("%q is not a runner's name", text.Clip(string(b))),
			"use 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit; "+strings.Join(provider.Reserved(), ", ")+" are taken")
	}
	*n = Name(b)
	return nil
}

func (Name) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the runner's name (not " + strings.Join(provider.Reserved(), ", ") + ")", MinLength: 1, MaxLength: 32, Pattern: provider.NamePattern}
}

// UnmarshalText refuses a CLI abcd does not know (cli_invalid).
func (k *Kind) UnmarshalText(b []byte) error {
	if !Kind(b).Valid() {
		names := make([]string, 0, len(Kinds()))
		for _, x := range Kinds() {
			names = append(names, string(x))
		}
		return refusal.New(refusal.CodeCLIInvalid, "", fmt.Sprintf("%q is not a coding-agent CLI abcd knows", text.Clip(string(b))),
			"name one of "+strings.Join(names, ", "))
	}
	*k = Kind(b)
	return nil
}

var envPattern = pattern.New(`^[A-Z_][A-Z0-9_]{0,127}$`)

// EnvName is the name of an environment variable a runner's CLI is given (never its value).
type EnvName string

// UnmarshalText refuses anything but a variable's name, and a variable no runner may name
// (env_name_invalid); a value that looks like a key is refused without being echoed.
func (e *EnvName) UnmarshalText(b []byte) error {
	s := string(b)
	if !envPattern.MatchString(s) {
		return refusal.New(refusal.CodeEnvNameInvalid, "", "is not an environment variable's name; abcd never takes a credential's value",
			"export the value in a variable (export ANTHROPIC_API_KEY=...) and give its name, such as ANTHROPIC_API_KEY")
	}
	if why := EnvProblem(s); why != "" {
		return refusal.New(refusal.CodeEnvNameInvalid, "", fmt.Sprintf("%s may not be passed to a runner's CLI, %s", s, why), "name another variable")
	}
	*e = EnvName(b)
	return nil
}

func (EnvName) SchemaRule() contract.Rule {
	return contract.Rule{Description: "an environment variable's name (never its value)", MinLength: 1, MaxLength: 128, Pattern: `^[A-Z_][A-Z0-9_]*$`}
}

// Executable is the absolute path of a runner's CLI.
type Executable string

// UnmarshalText refuses a path that is not absolute and clean (executable_invalid).
func (x *Executable) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" || len(s) > 4096 || !path.IsAbs(s) || path.Clean(s) != s || strings.ContainsRune(s, 0) {
		return refusal.New(refusal.CodeExecutableInvalid, "", "the CLI's executable is not an absolute, clean path",
			"give the CLI's absolute path (which claude prints it), or leave it out to use the one on your PATH")
	}
	*x = Executable(b)
	return nil
}

func (Executable) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the CLI's absolute path (default: the CLI's command on PATH)", MinLength: 1, MaxLength: 4096, Pattern: "^/"}
}

// Arg is one argument an ACP agent's executable is started with (--acp for Gemini CLI): the only
// arguments a person gives a runner, since an ACP agent is any program.
type Arg string

// MaxArgBytes bounds one argument.
const MaxArgBytes = 4096

// UnmarshalText refuses an empty argument, one over MaxArgBytes, or one holding a NUL or a line break
// (arg_invalid).
func (a *Arg) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" || len(s) > MaxArgBytes || strings.ContainsAny(s, "\x00\n\r") {
		return refusal.New(refusal.CodeArgInvalid, "", "is empty, longer than 4096 bytes, or holds a NUL or a line break",
			"give each argument of the agent's command line as one flag value: --arg --acp")
	}
	*a = Arg(b)
	return nil
}

func (Arg) SchemaRule() contract.Rule {
	return contract.Rule{Description: "an argument the ACP agent's executable is started with", MinLength: 1, MaxLength: MaxArgBytes, Pattern: "^[^\\x00\\n\\r]+$"}
}

// Command is the command a CLI is installed as, looked up on PATH when no executable is given.
func (k Kind) Command() string {
	if k == Qoder {
		return "qodercli"
	}
	return string(k)
}

// Agent is one of the build loop's agents, named to be sent to a runner (oracle.roles.<agent>.runner):
// the implementer and every validator. The roster's other agents are never dispatched by the loop.
type Agent string

// UnmarshalText refuses a name that is not one of the loop's agents (agent_unknown).
func (g *Agent) UnmarshalText(b []byte) error {
	if !review.Role(b).Valid() {
		return refusal.New(refusal.CodeAgentUnknown, "", fmt.Sprintf("%q is not one of the build loop's agents", text.Clip(string(b))),
			"name "+agentList())
	}
	*g = Agent(b)
	return nil
}

func (Agent) SchemaRule() contract.Rule {
	return contract.Rule{Description: "an agent of the build loop whose steps the runner takes", Enum: agentNames()}
}

// agentNames are the loop's agents, in the loop's order.
func agentNames() []string {
	roles := review.Roles()
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return names
}

// agentList is the loop's agents for a sentence: "implementer, ruthless-reviewer, ... or intent-auditor".
func agentList() string {
	names := agentNames()
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// SandboxMode is whether a runner's steps run inside abcd's sandbox: on (the default) or off, which
// runs them unconfined and every receipt then says so.
type SandboxMode string

// The sandbox modes.
const (
	SandboxModeOn  SandboxMode = "on"
	SandboxModeOff SandboxMode = "off"
)

// UnmarshalText refuses anything but on and off (sandbox_invalid).
func (m *SandboxMode) UnmarshalText(b []byte) error {
	if SandboxMode(b) != SandboxModeOn && SandboxMode(b) != SandboxModeOff {
		return refusal.New(refusal.CodeSandboxInvalid, "", fmt.Sprintf("%q is not a sandbox setting", text.Clip(string(b))),
			"give on (the default: the runner's steps run inside abcd's sandbox) or off (they run unconfined)")
	}
	*m = SandboxMode(b)
	return nil
}

func (SandboxMode) SchemaRule() contract.Rule {
	r := contract.Enum(SandboxModeOn, SandboxModeOff)
	r.Description = "on (the default): the runner's steps and the proving call run inside abcd's sandbox; off: unconfined, and every receipt says so"
	return r
}
