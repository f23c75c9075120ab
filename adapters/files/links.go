package files

import (
	"os"
	"path/filepath"
	"strings"
)

// maxLinks is how many links the kernel follows in one path before it gives up (ELOOP).
const maxLinks = 40

// Links resolves symbolic links on the real file system (ports.Links).
type Links struct{}

// Resolve follows the links on abs's way one name at a time, as the kernel does: a link is replaced by
// what it names before a later .. climbs out of it (l/../x, with l a link to a folder, is x beside
// that folder, not beside l), a link that names nothing yet included, at most 40 links. From the
// first name that does not exist, or cannot be read, the rest is taken as written.
func (Links) Resolve(abs string) string {
	vol := filepath.VolumeName(abs)
	done := vol + string(filepath.Separator)
	todo := strings.Split(filepath.ToSlash(abs[len(vol):]), "/")
	for links := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 || links >= maxLinks {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		links++
		if filepath.IsAbs(target) {
			tvol := filepath.VolumeName(target)
			done, target = tvol+string(filepath.Separator), target[len(tvol):]
		}
		todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
	}
	return done
}
