//go:build !linux

package files

import "os"

// listNative is Linux's; elsewhere a folder is listed through its root.
func (f *folder) listNative() (*listing, bool, error) { return nil, false, nil }

// readDirNative is Linux's; elsewhere a folder is listed through its root.
func (f *folder) readDirNative() ([]os.DirEntry, bool, error) { return nil, false, nil }
