package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// UpdateMachineFile replaces a machine file under $ABCD_HOME's lock: the folder is held open (made
// 0700 when missing), locked with the one flock helper (waiting at most wait, then contention), the file
// read through the guarded reader (the person's own, writable by nobody else, no link), handed to
// update, and what update returns written with the one atomic writer, 0600. Two writers never lose
// each other's change: the second reads what the first wrote.
func (s Setup) UpdateMachineFile(ctx context.Context, name string, wait time.Duration, update func(old []byte, present bool) ([]byte, error)) error {
	home, err := s.openHome()
	if err != nil {
		return err
	}
	defer home.Close()
	unlock, err := home.lock(ctx, wait)
	if errors.Is(err, errBusy) {
		return heldOn(refusal.CodeMachineLocked, home.path, "the machine folder's", wait)
	}
	if err != nil {
		return err
	}
	defer unlock()
	old, present, err := home.readGuarded(name, home.join(name), true)
	if err != nil {
		return err
	}
	data, err := update(old, present)
	if err != nil || data == nil {
		return err
	}
	_, err = home.writeFile(name, data, 0o600, true)
	return err
}

// MaxSecretBytes bounds a key file: a key is a line, not a document.
const MaxSecretBytes = 16 << 10

// ReadSecret reads a provider's key from path: through the guarded reader (a regular file, no link,
// bounded), the person's own, and readable by nobody else (mode 0600 or stricter), since a key
// another user can read is no longer the person's. Surrounding whitespace is trimmed. Refusals name
// the file, never its content.
func ReadSecret(path string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, refuseFile(path, "is not an absolute path", "give the key file's absolute path")
	}
	if !modesMean {
		return nil, refuseFile(path, "is a key file, and on Windows abcd cannot check that only you can read it",
			"give the key through an environment variable instead (key_env)")
	}
	dir, err := openFolder(filepath.Dir(path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, refuseFile(path, "does not exist", "create it holding the key, mode 0600, or point key_file at it")
		}
		return nil, refuseFile(path, "cannot be read: "+errText(err), "check the folder's permissions")
	}
	defer dir.Close()
	data, st, fault, err := dir.readRegular(filepath.Base(path), MaxSecretBytes, false)
	switch fault {
	case faultNone:
	case faultMissing:
		return nil, refuseFile(path, "does not exist", "create it holding the key, mode 0600, or point key_file at it")
	case faultLink:
		return nil, refuseFile(path, "is a symbolic link, which abcd does not follow for a key", "replace the link with the file itself")
	case faultNotRegular:
		return nil, refuseFile(path, "is not a regular file", "put the key in a regular file")
	case faultTooLarge:
		return nil, refuseFile(path, fmt.Sprintf("is larger than %d bytes, too large to be a key", MaxSecretBytes), "keep only the key in it")
	case faultChanged:
		return nil, refuseFile(path, "changed while it was being read", "run the command again")
	default:
		return nil, refuseFile(path, "cannot be read: "+errText(err), "check the file's permissions")
	}
	if otherOwner(st) {
		return nil, refuseFile(path, "is owned by another user", fmt.Sprintf("run `chown %d %s` (or replace it with a file of your own)", os.Geteuid(), path))
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, refuseFile(path, fmt.Sprintf("is readable or writable by group or others (mode %04o)", st.Mode().Perm()), fmt.Sprintf("run `chmod 600 %s`", path))
	}
	key := []byte(strings.TrimSpace(string(data)))
	if len(key) == 0 {
		return nil, refuseFile(path, "is empty", "put the key in it")
	}
	return key, nil
}
