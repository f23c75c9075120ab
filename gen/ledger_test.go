package main

import (
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestEverySchemaIsPublished: every schema in schemas/v1 is one a consumer may rely on (a verb's
// input or result, the refusal, a file or return abcd reads, the index), so every one is in the
// ledger and a change of its meaning is refused. A new schema is published when it is added.
func TestEverySchemaIsPublished(t *testing.T) {
	ledger, err := ReadLedger(workspace(t))
	assert.NilError(t, err)
	var missing []string
	for file := range generate(t) {
		name, ok := strings.CutSuffix(file, ".schema.json")
		if !ok {
			continue
		}
		if _, published := ledger[name]; !published {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	assert.Assert(t, len(missing) == 0, "not in gen/published-v1.json: %s\nrun: make schemas-publish NAMES=%s (and commit the ledger)",
		strings.Join(missing, ", "), strings.Join(missing, ","))
}
