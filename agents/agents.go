// Package agents embeds abcd's agent roster: one markdown file per agent,
// front matter then prompt. The folder doubles as a Claude Code plugin's
// agents folder, so the files stay plain markdown; domain/roster parses them.
package agents

import "embed"

// Files holds every agents/*.md file, by base name.
//
//go:embed *.md
var Files embed.FS
