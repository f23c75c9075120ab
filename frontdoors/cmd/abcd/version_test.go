package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The version the binary reports when nothing stamps it is a semantic version, and CHANGELOG.md
// has its section: a bump without a changelog entry, or a version no tool can compare, fails here.
func TestVersionIsSemanticAndInTheChangelog(t *testing.T) {
	semver := regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)
	assert.Assert(t, semver.MatchString(version), "main.version %q is not a semantic version", version)
	changelog, err := os.ReadFile(filepath.Join("..", "..", "..", "CHANGELOG.md"))
	assert.NilError(t, err)
	heading := "## [" + version + "]"
	assert.Assert(t, strings.Contains(string(changelog), heading), "CHANGELOG.md has no %q section", heading)
}
