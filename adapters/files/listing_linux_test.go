//go:build linux

package files

import (
	"encoding/binary"
	"io/fs"
	"testing"

	"gotest.tools/v3/assert"
)

// dirent encodes one linux_dirent64 record, padded to 8 bytes as the kernel pads them.
func dirent(name string, typ byte) []byte {
	reclen := (direntName + len(name) + 1 + 7) &^ 7
	b := make([]byte, reclen)
	binary.NativeEndian.PutUint64(b, 42)
	binary.NativeEndian.PutUint16(b[direntReclen:], uint16(reclen))
	b[direntType] = typ
	copy(b[direntName:], name)
	return b
}

func TestParseDirentsReadsNamesAndTypes(t *testing.T) {
	var buf []byte
	for _, d := range []struct {
		name string
		typ  byte
	}{{".", 4}, {"..", 4}, {"itd-1-a.md", 8}, {"link", 10}, {"sub", 4}, {"odd", 0}} {
		buf = append(buf, dirent(d.name, d.typ)...)
	}
	got, err := parseDirents(buf, nil)
	assert.NilError(t, err)
	want := []listed{
		{name: "itd-1-a.md", typ: 0},
		{name: "link", typ: fs.ModeSymlink},
		{name: "sub", typ: fs.ModeDir},
		{name: "odd", typ: ^fs.FileMode(0)}, // DT_UNKNOWN: the reader looks for itself
	}
	assert.Equal(t, len(got), len(want))
	for i := range want {
		assert.Equal(t, got[i].name, want[i].name)
		assert.Equal(t, got[i].typ, want[i].typ, want[i].name)
	}
}

func TestParseDirentsRefusesAMalformedBuffer(t *testing.T) {
	good := dirent("itd-1-a.md", 8)
	for name, buf := range map[string][]byte{
		"short header":    good[:10],
		"record too long": good[:len(good)-1],
		"zero length":     append(append([]byte{}, good[:direntReclen]...), 0, 0, 8, 'x'),
	} {
		_, err := parseDirents(buf, nil)
		assert.ErrorIs(t, err, errDirent, name)
	}
}

// The listing's parser never reads past its buffer nor loops, whatever the bytes.
func FuzzParseDirents(f *testing.F) {
	f.Add(dirent("itd-1-a.md", 8))
	f.Add(append(dirent(".", 4), dirent("x", 10)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, buf []byte) {
		out, err := parseDirents(buf, nil)
		if err == nil {
			for _, e := range out {
				if e.name == "" || e.name == "." || e.name == ".." {
					t.Fatalf("entry %q listed", e.name)
				}
			}
		}
	})
}
