package guard

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
)

// TestPatchFilesReadsHeadersAsCodexDoes: Codex trims each line before it matches a header, so an
// indented header, trailing white space (a tab, a no-break space, a carriage return) still names
// its file; each path is given trimmed, as Codex reads it and as written.
func TestPatchFilesReadsHeadersAsCodexDoes(t *testing.T) {
	files, err := PatchFiles("*** Begin Patch\r\n  *** Add File: a.txt \r\n+x\n\t*** Update File: b.go\u00a0\n*** Move to:  c.go\n@@\n-x\n+y\n*** Delete File: d.txt\n*** End Patch\n")
	assert.NilError(t, err)
	assert.DeepEqual(t, files, []PatchFile{
		{Path: "a.txt"}, {Path: "a.txt \r"},
		{Path: "b.go"}, {Path: "b.go\u00a0"},
		{Path: "c.go"}, {Path: " c.go"},
		{Path: "d.txt", Remove: true},
	})
	for name, patch := range map[string]string{
		"no file":           "*** Begin Patch\n*** End Patch\n",
		"header, no path":   "*** Begin Patch\n*** Add File:   \n*** End Patch\n",
		"two spaces":        "*** Begin Patch\n***  Add File: x\n*** End Patch\n",
		"lower case":        "*** Begin Patch\n*** add file: x\n*** End Patch\n",
		"tab after marker":  "*** Begin Patch\n***\tDelete File: x\n*** End Patch\n",
		"beside a good one": "*** Begin Patch\n*** Add File: ok\n+x\n*** Moveto: .abcd/guard.json\n*** End Patch\n",
	} {
		_, err := PatchFiles(patch)
		assert.Check(t, errors.Is(err, ErrPatchUnreadable), "%s: %v", name, err)
	}
}
