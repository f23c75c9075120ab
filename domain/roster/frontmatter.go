// Package roster parses agent definitions (agents/*.md: front matter, then a
// prompt body) and holds them as a roster. The format is the one a Claude Code
// plugin reads from its agents folder, narrowed so that abcd and the harness
// can never read the same file differently.
//
// The package is pure: callers hand in bytes they have already read (bounded
// by MaxFileBytes).
package roster

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
)

// CapabilityScope says whether an agent may change the working tree.
type CapabilityScope string

const (
	ScopeReadOnly  CapabilityScope = "read-only"
	ScopeReadWrite CapabilityScope = "read-write"
)

// Limits on what Parse accepts. Readers should bound their reads by
// MaxFileBytes (+1, to detect an oversize file) before calling Parse.
const (
	MaxFileBytes        = 256 << 10
	MaxFrontMatterBytes = 8 << 10
)

// FrontMatter is the typed front matter of one agent file. Every key is
// required.
type FrontMatter struct {
	Name                string          `json:"name" jsonschema:"pattern=^[a-z][a-z0-9-]*$,maxLength=64"`
	Description         string          `json:"description" jsonschema:"minLength=1"`
	PromptVersion       int             `json:"prompt_version" jsonschema:"minimum=1"`
	ReadsUntrustedInput bool            `json:"reads_untrusted_input"`
	CapabilityScope     CapabilityScope `json:"capability_scope"`
	Tools               []string        `json:"tools"`
	Model               string          `json:"model"`
}

// Agent is one parsed agent file.
type Agent struct {
	FrontMatter
	// File is the path the agent was parsed from, as the caller named it.
	File string `json:"file"`
	// Body is the prompt: every byte after the closing --- line.
	Body string `json:"body"`
}

// Keys in the order agent files are written; every one is required.
var keys = []string{
	"name",
	"description",
	"prompt_version",
	"reads_untrusted_input",
	"capability_scope",
	"tools",
	"model",
}

// Keys returns the front matter keys in their canonical order.
func Keys() []string { return append([]string(nil), keys...) }

var scopes = []string{string(ScopeReadOnly), string(ScopeReadWrite)}

// Models lists the model values Claude Code accepts in an agent file.
var models = []string{"inherit", "sonnet", "opus", "haiku"}

// Tools that change files; a read-only agent must not list them, or its
// declared scope would be a claim the harness does not enforce.
var writeTools = map[string]bool{
	"Edit":         true,
	"MultiEdit":    true,
	"Write":        true,
	"NotebookEdit": true,
}

var (
	namePattern = pattern.New(`^[a-z][a-z0-9-]{0,63}$`)
	toolPattern = pattern.New(`^[A-Za-z][A-Za-z0-9_]*(\([^()]*\))?$`)
)

// ValidName reports whether s is a well-formed agent name.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// ValidTool reports whether s is a well-formed tools entry, such as Read or
// Bash(git diff:*).
func ValidTool(s string) bool { return toolPattern.MatchString(s) }

func (CapabilityScope) SchemaEnum() contract.Rule { return contract.Enum(scopes...) }

func (FrontMatter) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"model": contract.Enum(models...)}
}
