package mcp

import (
	"testing"

	"github.com/google/uuid"
	"gotest.tools/v3/assert"
)

// Session ids are random (version 4, RFC 9562 variant) UUIDs, distinct across many sessions.
func TestSessionIdsAreDistinctVersion4UUIDs(t *testing.T) {
	tbl := newSessionTable()
	const n = 1000
	tbl.max = n
	seen := make(map[string]bool, n)
	for range n {
		id, err := tbl.create(Legacy20250618)
		assert.NilError(t, err)
		u, err := uuid.Parse(id)
		assert.NilError(t, err, "%q", id)
		assert.Equal(t, u.String(), id, "the canonical 36-character form")
		assert.Equal(t, u.Version(), uuid.Version(4), "%q", id)
		assert.Equal(t, u.Variant(), uuid.RFC4122, "%q", id)
		assert.Assert(t, !seen[id], "%q was handed out twice", id)
		seen[id] = true
	}
	assert.Equal(t, len(tbl.m), n)
}
