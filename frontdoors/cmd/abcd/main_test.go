package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
	"gotest.tools/v3/golden"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
	"github.com/abcd-dev/abcd/ports/setup"
)

// binary is abcd built once for the whole package, stamped the way the Makefile stamps a release.
var binary string

// TestMain is also the fake coding-agent CLI a runner test starts (runnertest.FakeMain returns at
// once otherwise).
func TestMain(m *testing.M) {
	runnertest.FakeMain()
	os.Exit(testMain(m))
}

func testMain(m *testing.M) (code int) {
	dir, err := os.MkdirTemp("", "abcd-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, "removing the test binaries:", err)
			code = 1
		}
	}()
	// abcd and, beside it, the helper that holds its history store.
	bins, err := abcdtest.Build(dir, "-X main.version=9.9.9 -X main.commit=testcommit", ".", "../abcd-history")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binary = bins[0]
	return m.Run()
}

// sandbox is one run's world: a repository folder and a home folder, both temporary.
type sandbox struct {
	root     string // the repository (or plain folder) abcd starts in
	home     string // $HOME
	abcdHome string // $ABCD_HOME, inside home
}

// newSandbox makes the temp folders; with git, the repository is `git init`ed.
func newSandbox(t *testing.T, git bool, ops ...fs.PathOp) sandbox {
	t.Helper()
	repo := fs.NewDir(t, "abcd-repo", ops...)
	home := fs.NewDir(t, "abcd-home", fs.WithDir(".abcd"))
	s := sandbox{root: realPath(t, repo.Path()), home: realPath(t, home.Path())}
	s.abcdHome = filepath.Join(s.home, ".abcd")
	if git {
		icmd.RunCmd(icmd.Command("git", "init", "-q"), icmd.Dir(s.root),
			icmd.WithEnv("PATH="+os.Getenv("PATH"), "HOME="+s.home, "GIT_CONFIG_NOSYSTEM=1")).
			Assert(t, icmd.Success)
	}
	return s
}

// env is the environment abcd runs with: nothing from the test's own but what the sandbox says.
func (s sandbox) env() []string {
	return []string{"HOME=" + s.home, "ABCD_HOME=" + s.abcdHome, "NO_COLOR=1"}
}

func (s sandbox) run(t *testing.T, args ...string) *icmd.Result {
	t.Helper()
	return icmd.RunCmd(icmd.Command(binary, args...), icmd.Dir(s.root), icmd.WithEnv(s.env()...))
}

// placeholders replaces the sandbox's temp paths, so output can be held by a golden file.
func (s sandbox) placeholders(out string) string {
	return strings.NewReplacer(s.root, "<ROOT>", s.home, "<HOME>").Replace(out)
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	assert.NilError(t, err)
	return r
}

func TestBareAbcdInFreshGitRepo(t *testing.T) {
	s := newSandbox(t, true)
	res := s.run(t)
	res.Assert(t, icmd.Expected{ExitCode: 0})
	assert.Check(t, is.Equal(res.Stderr(), ""))
	golden.Assert(t, s.placeholders(res.Stdout()), "status-fresh-git.golden")
}

func TestVersionJSON(t *testing.T) {
	s := newSandbox(t, false)
	res := s.run(t, "version", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	assert.Check(t, is.Equal(res.Stderr(), ""))
	var v setup.VersionResult
	decodeOne(t, res.Stdout(), &v)
	assert.Check(t, is.Equal(v.Version, "9.9.9"))
	assert.Check(t, is.Equal(v.Commit, "testcommit"))
	assert.Check(t, is.Equal(v.Go, runtime.Version()))
}

func TestSchemaListJSON(t *testing.T) {
	s := newSandbox(t, false)
	res := s.run(t, "schema", "list", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var l setup.SchemaListResult
	decodeOne(t, res.Stdout(), &l)
	names := map[string]bool{}
	for _, e := range l.Schemas {
		names[e.Name] = true
	}
	for _, want := range []string{"refusal", "status.result", "version.result"} {
		assert.Check(t, names[want], "schema %q is not listed", want)
	}
}

// TestSchemaShowIsThePublishedFile: the binary serves the committed schema byte for byte.
func TestSchemaShowIsThePublishedFile(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "schemas", "v1", "refusal.schema.json"))
	assert.NilError(t, err)
	s := newSandbox(t, false)
	res := s.run(t, "schema", "show", "refusal")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	assert.Check(t, is.Equal(res.Stdout(), string(want)))
}

// TestRefusalsWriteNothing: a refused command leaves the repository and the home folder exactly as
// they were, and exits 2.
func TestRefusalsWriteNothing(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"schema", "show", "nope", "--json"},
		{"--bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			s := newSandbox(t, true, fs.WithFile("README.md", "hello\n"))
			before := s.snapshot(t)
			res := s.run(t, args...)
			res.Assert(t, icmd.Expected{ExitCode: 2})
			assert.Check(t, is.DeepEqual(s.snapshot(t), before))
		})
	}
}

// TestSnapshotSeesChanges guards the guard: a created file, a changed byte and a chmod each show.
func TestSnapshotSeesChanges(t *testing.T) {
	s := newSandbox(t, false, fs.WithFile("README.md", "hello\n"))
	readme := filepath.Join(s.root, "README.md")
	for name, change := range map[string]func() error{
		"create": func() error { return os.WriteFile(filepath.Join(s.abcdHome, "config.json"), nil, 0o600) },
		"edit":   func() error { return os.WriteFile(readme, []byte("hellO\n"), 0o644) },
		"chmod":  func() error { return os.Chmod(readme, 0o600) },
	} {
		before := s.snapshot(t)
		assert.NilError(t, change())
		assert.Check(t, !is.DeepEqual(s.snapshot(t), before)().Success(), "snapshot missed %s", name)
	}
}

// TestRefusalJSONEndToEnd: under --json the refusal is the one document on stdout, stderr is empty.
func TestRefusalJSONEndToEnd(t *testing.T) {
	s := newSandbox(t, true)
	res := s.run(t, "schema", "show", "nope", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Equal(res.Stderr(), ""))
	var doc refusal.Document
	decodeOne(t, res.Stdout(), &doc)
	assert.Check(t, is.Equal(doc.Kind, refusal.Refused))
	assert.Check(t, is.Equal(doc.Code, refusal.CodeSchemaUnknown))
	assert.Check(t, is.Equal(doc.ExitCode, 2))
}

// TestABCDHomeIsHonoured: the machine layer is read from $ABCD_HOME, not from $HOME/.abcd.
func TestABCDHomeIsHonoured(t *testing.T) {
	s := newSandbox(t, true)
	elsewhere := fs.NewDir(t, "abcd-machine", fs.WithFile("config.json", "{}\n"))
	s.abcdHome = realPath(t, elsewhere.Path())

	res := s.run(t, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var st setup.StatusResult
	decodeOne(t, res.Stdout(), &st)
	assert.Check(t, is.Equal(st.Repository.Root, s.root))
	machine := configEntry(t, st, "machine", "config")
	assert.Check(t, is.Equal(machine.Path, filepath.Join(s.abcdHome, "config.json")))
	assert.Check(t, machine.Present, "the config.json in $ABCD_HOME is not reported present")
}

// TestABCDHomeDefaultsToHomeDotAbcd: without $ABCD_HOME the machine layer is $HOME/.abcd.
func TestABCDHomeDefaultsToHomeDotAbcd(t *testing.T) {
	s := newSandbox(t, true)
	assert.NilError(t, os.WriteFile(filepath.Join(s.home, ".abcd", "config.json"), []byte("{}\n"), 0o600))

	res := icmd.RunCmd(icmd.Command(binary, "--json"), icmd.Dir(s.root),
		icmd.WithEnv("HOME="+s.home, "NO_COLOR=1"))
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var st setup.StatusResult
	decodeOne(t, res.Stdout(), &st)
	machine := configEntry(t, st, "machine", "config")
	assert.Check(t, is.Equal(machine.Path, filepath.Join(s.home, ".abcd", "config.json")))
	assert.Check(t, machine.Present)
}

func configEntry(t *testing.T, st setup.StatusResult, layer, kind string) setup.ConfigFileStatus {
	t.Helper()
	for _, c := range st.Config {
		if c.Layer == layer && c.Kind == kind {
			return c
		}
	}
	t.Fatalf("status reports no %s %s file: %+v", layer, kind, st.Config)
	return setup.ConfigFileStatus{}
}

// snapshot records every path under the repository and the home folder with its mode, size and
// content hash (a symlink by its target), so any write, create, delete or chmod shows as a change.
func (s sandbox) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for label, dir := range map[string]string{"repo": s.root, "home": s.home} {
		err := filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			entry := fmt.Sprintf("%v size=%d", info.Mode(), info.Size())
			switch {
			case info.Mode()&iofs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				entry += " -> " + target
			case info.Mode().IsRegular():
				sum, err := hashFile(p)
				if err != nil {
					return err
				}
				entry += " sha256=" + sum
			}
			out[label+"/"+filepath.ToSlash(rel)] = entry
			return nil
		})
		assert.NilError(t, err)
	}
	return out
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// decodeOne asserts stdout is exactly one JSON document ending in one newline and decodes it into v,
// refusing fields v does not declare.
func decodeOne(t *testing.T, stdout string, v any) {
	t.Helper()
	assert.Assert(t, strings.HasSuffix(stdout, "\n") && !strings.HasSuffix(stdout, "\n\n"), "stdout: %q", stdout)
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(v), "stdout: %q", stdout)
	_, err := dec.Token()
	assert.Check(t, is.Equal(err, io.EOF), "stdout holds more than one JSON document: %q", stdout)
}
