package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// MaxConfigBytes bounds every configuration file read.
const MaxConfigBytes = 1 << 20

// ReadGuarded reads a file a person configures abcd with: absent is (nil, false, nil); a symlink,
// a folder, a device or more than MaxConfigBytes is refused naming the file. A machine file must
// also be the user's own and writable by nobody else, since it decides where abcd sends work.
func ReadGuarded(path string, machine bool) ([]byte, bool, error) {
	dir, err := openFolder(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, refuseFile(path, "cannot be read: "+errText(err), "check the file's permissions")
	}
	defer dir.Close()
	return dir.readGuarded(filepath.Base(path), path, machine)
}

// readGuarded is ReadGuarded for the element name of f; shown is the path refusals name.
func (f *folder) readGuarded(name, shown string, machine bool) ([]byte, bool, error) {
	data, st, fault, err := f.readRegular(name, MaxConfigBytes, false)
	switch fault {
	case faultNone:
	case faultMissing:
		return nil, false, nil
	case faultLink:
		return nil, false, refuseFile(shown, "is a symbolic link, which abcd does not follow for configuration", "replace the link with the file itself")
	case faultNotRegular:
		return nil, false, refuseFile(shown, "is not a regular file", "replace it with a regular file, or remove it")
	case faultTooLarge:
		return nil, false, refuseFile(shown, fmt.Sprintf("is larger than %d bytes", MaxConfigBytes), "shorten it")
	case faultChanged:
		return nil, false, refuseFile(shown, "changed while it was being read", "run the command again")
	default:
		return nil, false, refuseFile(shown, "cannot be read: "+errText(err), "check the file's permissions")
	}
	// The owner and mode checked are the open file's own, not a name's that may have changed since.
	if machine {
		if err := checkOwner(shown, st); err != nil {
			return nil, false, err
		}
	}
	return data, true, nil
}

func checkOwner(path string, st fs.FileInfo) error {
	if otherOwner(st) {
		return refuseFile(path, "is owned by another user, and a machine file decides where abcd sends work",
			fmt.Sprintf("run `chown %d %s` (or replace it with a file of your own)", os.Geteuid(), path))
	}
	if modesMean && st.Mode().Perm()&0o022 != 0 {
		return refuseFile(path, fmt.Sprintf("is writable by group or others (mode %04o)", st.Mode().Perm()),
			fmt.Sprintf("run `chmod 600 %s`", path))
	}
	return nil
}

func refuseFile(path, why, remedy string) error {
	return refusal.New(refusal.CodeConfigFile, path, why, remedy)
}

// errText is an error's text without the path, which the refusal already names.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
