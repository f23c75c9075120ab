package record

import (
	"testing"

	"gotest.tools/v3/assert"
)

// The slug is what follows the second dash of a record's file name, without its .md.
func TestSlugOfIsWhatFollowsTheSecondDash(t *testing.T) {
	for p, want := range map[string]string{
		".abcd/development/intents/drafts/itd-2611300000000001-faster-start.md": "faster-start",
		"itd-2611300000000001-a.md":  "a",
		"itd-2611300000000001-.md":   "",
		"itd--b.md":                  "b",
		"itd-2611300000000001.md":    "",
		"notes.md":                   "",
		"dir-with-dashes/itd-1-x.md": "x",
	} {
		assert.Equal(t, slugOf(p), want, p)
	}
}
