// Package schemas embeds the published JSON Schemas that gen writes, so the binary serves them
// without reflecting a type at run time.
package schemas

import "embed"

// Files holds v1/index.json and every v1/<name>.schema.json.
//
//go:embed v1/*.json
var Files embed.FS
