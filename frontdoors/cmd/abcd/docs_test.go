package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The README is the docs index: a page added to docs/ without a line there is one a newcomer never
// finds. SECURITY.md sends a reporter to the page that says what abcd claims.
func TestReadmeIndexesEveryDocsPage(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	assert.NilError(t, err)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	assert.NilError(t, err)
	assert.Assert(t, len(pages) > 0, "no page found under docs/")
	for _, page := range pages {
		link := "](docs/" + filepath.Base(page) + ")"
		assert.Check(t, strings.Contains(string(readme), link), "README.md's docs index does not link %s", page)
	}
	security, err := os.ReadFile(filepath.Join(root, "SECURITY.md"))
	assert.NilError(t, err)
	assert.Check(t, strings.Contains(string(security), "](docs/security.md)"), "SECURITY.md does not link docs/security.md")
}
