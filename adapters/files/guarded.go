package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// MaxConfigBytes bounds every configuration file read.
const MaxConfigBytes = 1 << 20

// ReadGuarded reads a file a person configures abcd with: absent is (nil, false, nil); a symlink,
// a folder, a device or more than MaxConfigBytes is refused naming the file. A machine file must
// also be the user's own and writable by nobody else, since it decides where abcd sends work.
func ReadGuarded(path string, machine bool) ([]byte, bool, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, refuseFile(path, "cannot be read: "+errText(err), "check the file's permissions")
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, false, refuseFile(path, "is a symbolic link, which abcd does not follow for configuration", "replace the link with the file itself")
	}
	if !st.Mode().IsRegular() {
		return nil, false, refuseFile(path, "is not a regular file", "replace it with a regular file, or remove it")
	}
	if st.Size() > MaxConfigBytes {
		return nil, false, refuseFile(path, fmt.Sprintf("is larger than %d bytes", MaxConfigBytes), "shorten it")
	}
	if machine {
		if err := checkOwner(path, st); err != nil {
			return nil, false, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, refuseFile(path, "cannot be read: "+errText(err), "check the file's permissions")
	}
	defer f.Close()
	// The file read is the file checked: a swap between Lstat and open is refused.
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return nil, false, refuseFile(path, "changed while it was being read", "run the command again")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, false, refuseFile(path, "cannot be read: "+errText(err), "check the file")
	}
	if len(data) > MaxConfigBytes {
		return nil, false, refuseFile(path, fmt.Sprintf("is larger than %d bytes", MaxConfigBytes), "shorten it")
	}
	return data, true, nil
}

func checkOwner(path string, st fs.FileInfo) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if ok && int(sys.Uid) != os.Geteuid() {
		return refuseFile(path, "is owned by another user, and a machine file decides where abcd sends work",
			fmt.Sprintf("run `chown %d %s` (or replace it with a file of your own)", os.Geteuid(), path))
	}
	if st.Mode().Perm()&0o022 != 0 {
		return refuseFile(path, fmt.Sprintf("is writable by group or others (mode %04o)", st.Mode().Perm()),
			fmt.Sprintf("run `chmod 600 %s`", path))
	}
	return nil
}

func refuseFile(path, why, remedy string) error {
	return refusal.New("config_file", path, why, remedy)
}

// errText is an error's text without the path, which the refusal already names.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
