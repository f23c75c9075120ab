package files

import (
	"fmt"
	"path/filepath"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// MergeFiles reads and writes the temporary files git hands the record's merge driver (%O, %A, %B),
// by the paths git gave: relative to the folder git runs the driver in, or absolute.
type MergeFiles struct{}

// Read reads one of them: a regular file, never through a link, at most max bytes.
func (MergeFiles) Read(p string, max int) ([]byte, error) {
	f, err := openFolder(filepath.Dir(p))
	if err != nil {
		return nil, mergeFileFault(p, err)
	}
	defer f.Close()
	data, _, fault, err := f.readRegular(filepath.Base(p), int64(max), false)
	switch fault {
	case faultNone:
		return data, nil
	case faultLink:
		return nil, refusal.New(refusal.CodeMergeFileUnreadable, p, "is a symbolic link", "git hands a merge driver regular files: run the merge with git")
	case faultTooLarge:
		return nil, refusal.New(refusal.CodeMergeFileUnreadable, p, fmt.Sprintf("is larger than %d bytes", max), "merge the file by hand")
	case faultNotRegular, faultMissing:
		return nil, refusal.New(refusal.CodeMergeFileUnreadable, p, "is not a regular file", "git hands a merge driver regular files: run the merge with git")
	}
	return nil, mergeFileFault(p, err)
}

// Replace puts data in place of the file at p in one step, keeping its mode.
func (MergeFiles) Replace(p string, data []byte) error {
	f, err := openFolder(filepath.Dir(p))
	if err != nil {
		return mergeFileFault(p, err)
	}
	defer f.Close()
	name := filepath.Base(p)
	st, err := f.noLink(name)
	if err != nil {
		return err
	}
	if st == nil || !st.Mode().IsRegular() {
		return refusal.New(refusal.CodeMergeFileUnreadable, p, "is not a regular file", "git hands a merge driver regular files: run the merge with git")
	}
	_, err = f.writeFile(name, data, st.Mode().Perm(), true)
	return err
}

func mergeFileFault(p string, err error) error {
	return refusal.New(refusal.CodeMergeFileUnreadable, p, "cannot be read: "+errText(err), "check the file's permissions")
}
