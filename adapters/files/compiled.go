package files

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// MaxCompiledBytes bounds a kept compiled form of the rules.
const MaxCompiledBytes = 16 << 20

// compiledDir is where compiled rules are kept under $ABCD_HOME, one file per repository.
const compiledDir = "cache/rules"

// binaryStamp names the running binary (its path, size and modification time), so a rebuilt abcd
// never reads what an older build compiled.
var binaryStamp = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	st, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return fmt.Sprintf("%s %d %d", exe, st.Size(), st.ModTime().UnixNano())
})

// compiledName is the file a repository's compiled rules are kept in, and the header its content
// starts with: key (the digest of every input) and the binary that compiled it.
func (c ConfigSource) compiledName(key string) (name string, header []byte) {
	root, _ := RepoRoot(c.Dir)
	h := sha256.Sum256([]byte(root))
	k := sha256.Sum256([]byte(key + "\n" + binaryStamp()))
	return hex.EncodeToString(h[:12]) + ".bin", []byte(hex.EncodeToString(k[:]) + "\n")
}

// ReadCompiled returns the compiled rules kept for this repository under key, read through the
// guarded reader (a regular file, no link, bounded, the person's own and writable by nobody else).
// Anything else (absent, another key, another build, a fault) is no compiled rules.
func (c ConfigSource) ReadCompiled(ctx context.Context, key string) ([]byte, bool) {
	if ctx.Err() != nil {
		return nil, false
	}
	name, header := c.compiledName(key)
	home, err := openFolder(filepath.Clean(c.Home))
	if err != nil {
		return nil, false
	}
	defer home.Close()
	dir, _, err := home.walk(compiledDir, 0)
	if err != nil {
		return nil, false
	}
	defer dir.Close()
	data, st, fault, err := dir.readRegular(name, MaxCompiledBytes, false)
	if fault != faultNone || err != nil || checkOwner(dir.join(name), st) != nil || !bytes.HasPrefix(data, header) {
		return nil, false
	}
	return data[len(header):], true
}

// WriteCompiled keeps data as this repository's compiled rules under key, replacing what was kept,
// atomically, 0600 in 0700 folders under $ABCD_HOME. It is a cache: a failure to write is reported
// and changes nothing a verb answers.
func (c ConfigSource) WriteCompiled(ctx context.Context, key string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	name, header := c.compiledName(key)
	home, err := Setup{Home: c.Home}.openHome()
	if err != nil {
		return err
	}
	defer home.Close()
	dir, _, err := home.walk(compiledDir, 0o700)
	if err != nil {
		return err
	}
	defer dir.Close()
	_, err = dir.writeFile(name, append(header, data...), 0o600, true)
	return err
}
