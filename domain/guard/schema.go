package guard

import "github.com/abcd-dev/abcd/domain/contract"

// What the published guard_rules schema says of the closed values, from the guard's own lists.

// FileVersion is a rules file's schema_version.
const FileVersion = 1

// Styles lists how a syntax splits a command's words, the default first.
func Styles() []string { return []string{"getopt", "subcommand", "find"} }

func (File) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(FileVersion)}
}

func (Syntax) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"style": contract.Enum(Styles()...)}
}

// A rule's tier blocks or warns; only what a match on an unknown value does may be allow.
func (Rule) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"tier": contract.Enum(Block, Warn), "unknown": contract.Enum(Block, Warn, Allow)}
}

func (AllowFile) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(FileVersion)}
}
