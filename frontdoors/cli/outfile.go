package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// withOut gives a command --out FILE: what it would print on stdout is written to FILE instead, whole
// or not at all (a temporary file beside it, renamed over it). A page or a story is a person's
// document, so the file is 0644. It is a front door's choice of where output goes, like a shell's
// redirection, so it is no field of the verb: over MCP the result is the answer. A path that is a
// symbolic link, a folder or anything but a regular file, or whose folder does not stand, is refused
// before the verb runs (exit 2, nothing written); the rename replaces a link made in between rather
// than writing through it.
func withOut(s *IO, cmd *cobra.Command) *cobra.Command {
	var out string
	cmd.Flags().StringVar(&out, "out", "", "write what would be printed to FILE instead (whole or not at all; never through a symbolic link)")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if !c.Flags().Changed("out") {
			return run(c, args)
		}
		if err := checkOut(c, out); err != nil {
			return err
		}
		var buf bytes.Buffer
		saved := s.Out
		s.Out = &buf
		err := run(c, args)
		s.Out = saved
		if err != nil {
			return err
		}
		return writeOut(out, buf.Bytes())
	}
	return cmd
}

// checkOut refuses a path the output cannot be written to as a regular file of its own.
func checkOut(c *cobra.Command, path string) error {
	refuse := func(why, remedy string) error {
		return refusal.New(refusal.CodeInputInvalid, c.CommandPath()+" --out "+text.Clip(path), why, remedy)
	}
	if path == "" {
		return refuse("names no file", "give the file to write, such as --out run.html")
	}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return refuse("cannot be looked at: "+err.Error(), "give a file in a folder you can write")
	case info.Mode()&fs.ModeSymlink != 0:
		return refuse("is a symbolic link, and abcd never writes through one", "give the file's own path, or remove the link")
	case !info.Mode().IsRegular():
		return refuse("is not a regular file", "give a file's path, not a folder's or a device's")
	}
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil || !dir.IsDir() {
		return refuse("is in a folder that does not stand", "make the folder first, or give a path in one that does")
	}
	return nil
}

// writeOut writes data to path atomically: a temporary file in the same folder, synced, renamed.
func writeOut(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".abcd-*")
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name()) // the write failed; its own error is the one reported
		}
	}()
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}
