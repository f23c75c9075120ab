package rules

import "github.com/abcd-dev/abcd/domain/contract"

// What the published rules schemas say of the closed values, from the rules' own lists.

// FileVersion is a rules file's schema_version.
const FileVersion = 1

// Layers lists the layers a rule can come from, lowest first.
func Layers() []Layer { return []Layer{Bundled, Machine, Repository} }

func (File) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(FileVersion)}
}
