package files

import "github.com/abcd-dev/abcd/domain/refusal"

// recordSymlink refuses a record file that is a symbolic link. abcd never reads or writes a record
// through a link (one could lead a write outside the repository, or show a file from elsewhere as a
// record), so the link is named as what it is, with its own code, not as a malformed record.
func recordSymlink(rel string) error {
	return refusal.New(refusal.CodeRecordSymlink, rel, "is a symbolic link, and abcd reads and writes records only as regular files",
		"replace the link with the file it points at (copy the file over the link), or remove it")
}
