// Package runner holds what the runner route knows without touching a process: a runner's machine
// configuration and its checks, the CLIs abcd can drive and the versions it knows, the closed
// vocabulary of why a step failed, the step's receipt, the tool-call ledger's rule, the bounds of a
// request-scoped tool catalog, and the environment a CLI is given. It is pure: it is handed a
// configuration stack, lines and names, never a file, a clock or a process.
package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
)

// Kind is a coding-agent CLI abcd knows: a closed set.
type Kind string

const (
	Claude Kind = "claude"
	Codex  Kind = "codex"
	Gemini Kind = "gemini"
	// ACP is any agent that speaks the Agent Client Protocol over stdio (Gemini CLI --acp, the Claude
	// Code and Codex adapters): abcd is its client, answering its permission requests with the guard's
	// verdict and running its file and terminal operations itself.
	ACP      Kind = "acp"
	Qoder    Kind = "qoder"
	OpenCode Kind = "opencode"
)

// Kinds lists every CLI a runner block may name, in order.
func Kinds() []Kind { return []Kind{Claude, Codex, Gemini, ACP, Qoder, OpenCode} }

func (Kind) SchemaEnum() contract.Rule { return contract.Enum(Kinds()...) }

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, x := range Kinds() {
		if k == x {
			return true
		}
	}
	return false
}

// Unsupported says why abcd cannot drive a CLI it knows, or "" when it can. A CLI is driven only when
// its stream has an explicit, authoritative terminal event: completing on EOF, an exit code, silence
// or a timer is never done.
func (k Kind) Unsupported() string {
	switch k {
	case OpenCode:
		return "opencode run has no terminal event: the end of its run can be told only from EOF, the exit code and the last step's reason together, and a step never completes on EOF or an exit code (its exit code has also said 0 after errors); a truncated model stream makes it start step after step without end"
	case Qoder:
		return qoderUnsupported
	}
	return ""
}

// Name is the CLI's name as a person knows it.
func (k Kind) Name() string {
	switch k {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	case Gemini:
		return "Gemini CLI"
	case ACP:
		return "the ACP agent"
	case Qoder:
		return "Qoder CLI"
	case OpenCode:
		return "OpenCode"
	}
	return string(k)
}

// Version is a CLI's release, major.minor.patch.
type Version struct{ Major, Minor, Patch int }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less orders versions.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

var versionPattern = pattern.New(`^[0-9]{1,6}\.[0-9]{1,6}\.[0-9]{1,6}$`)

// VersionPattern is a version's rule, for a schema.
const VersionPattern = `^[0-9]{1,6}\.[0-9]{1,6}\.[0-9]{1,6}$`

// ParseVersion reads major.minor.patch.
func ParseVersion(s string) (Version, bool) {
	if !versionPattern.MatchString(s) {
		return Version{}, false
	}
	parts := strings.Split(s, ".")
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return Version{}, false
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, true
}

// VersionIn finds the version a CLI's --version printed: the first word of the first line that is
// major.minor.patch, with a pre-release or build suffix (2.1.332-beta) cut. "claude 2.1.332 (Claude
// Code)", "codex-cli 0.171.0" and "0.61.0" all read.
func VersionIn(out string) (Version, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	for _, w := range strings.Fields(line) {
		w = strings.TrimPrefix(w, "v")
		if i := strings.IndexAny(w, "-+"); i > 0 {
			w = w[:i]
		}
		if v, ok := ParseVersion(w); ok {
			return v, true
		}
	}
	return Version{}, false
}

// Range is the versions abcd knows of a CLI: from Min, below Below.
type Range struct{ Min, Below Version }

func (r Range) String() string { return fmt.Sprintf(">= %s, < %s", r.Min, r.Below) }

// Holds reports whether v is in the range.
func (r Range) Holds(v Version) bool { return !v.Less(r.Min) && v.Less(r.Below) }

// Known is the range of versions whose flags and event streams abcd was proven against (the harness
// pins one inside each range and records its streams as fixtures). Outside it a CLI is refused before
// any lane starts: its flags or events may have drifted.
func (k Kind) Known() Range {
	switch k {
	case Claude:
		return Range{Version{2, 1, 328}, Version{2, 2, 0}}
	case Codex:
		return Range{Version{0, 169, 0}, Version{0, 180, 0}}
	case Gemini:
		return Range{Version{0, 61, 0}, Version{0, 70, 0}}
	case Qoder:
		return Range{Version{1, 1, 52}, Version{1, 2, 0}}
	case ACP:
		// The protocol's versions, not a program's: an ACP agent is any program, and what abcd knows of
		// it is the protocol it answers initialize with (its major; ACP numbers a version as one integer,
		// recorded as major.0.0).
		return Range{Version{ACPProtocol, 0, 0}, Version{ACPProtocol + 1, 0, 0}}
	}
	return Range{}
}

// ACPProtocol is the Agent Client Protocol version abcd speaks as a client: an agent that answers
// initialize with another is refused (cause version).
const ACPProtocol = 1

// Conversational reports whether abcd converses with the CLI (requests both ways over its stdin and
// stdout) rather than handing it a prompt and reading its event stream: the ACP runner. Such a CLI has
// no --version or --help abcd reads: its handshake says its protocol version.
func (k Kind) Conversational() bool { return k == ACP }

// CheckVersion says what is wrong with a CLI's --version output, or "" when it names a version abcd
// knows.
func (k Kind) CheckVersion(out string) (Version, string) {
	v, ok := VersionIn(out)
	if !ok {
		return Version{}, fmt.Sprintf("%s --version printed no version abcd can read", k)
	}
	if r := k.Known(); !r.Holds(v) {
		return v, fmt.Sprintf("%s is %s, outside the versions abcd knows (%s)", k.Name(), v, r)
	}
	return v, ""
}

// SchemaRule describes the CLI as an input takes it (ahoy connect --cli), the same values.
func (Kind) SchemaRule() contract.Rule {
	r := contract.Enum(Kinds()...)
	r.Description = "the coding-agent CLI the runner drives"
	return r
}
