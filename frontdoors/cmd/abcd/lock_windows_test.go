//go:build windows

package main

import "testing"

// holdFolderLock: on Windows abcd locks a file in the folder (adapters/files), not the folder.
func holdFolderLock(t *testing.T, _ string) func() {
	t.Skip("a folder lock is a lock file on Windows, taken through adapters/files")
	return nil
}
