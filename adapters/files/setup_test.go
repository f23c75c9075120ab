package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/setup"
)

// The adapter is the port.
var _ ports.Setup = Setup{}

// setupRepo is a temporary git repository (a .git folder at its root) and an absent $ABCD_HOME.
func setupRepo(t *testing.T, ops ...fs.PathOp) (*fs.Dir, Setup) {
	t.Helper()
	repo := fs.NewDir(t, "setup-repo", append([]fs.PathOp{fs.WithDir(".git")}, ops...)...)
	home := fs.NewDir(t, "setup-home")
	return repo, Setup{Dir: repo.Path(), Home: filepath.Join(home.Path(), "abcd-home")}
}

func assertSetupRefused(t *testing.T, err error, code, what string) {
	t.Helper()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal with code %s, got %v", code, err)
	assert.Equal(t, r.Kind, refusal.Refused)
	assert.Equal(t, string(r.Code), code)
	assert.Equal(t, r.What, what)
	assert.Assert(t, fmt.Sprint(r.Remedy) != "")
}

// tempLeftovers lists files the atomic writer may have left behind under dir.
func tempLeftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".abcd-tmp-") {
			out = append(out, p)
		}
		return nil
	})
	assert.NilError(t, err)
	return out
}

// decodeStrict decodes one JSON document into v, refusing unknown members and trailing content.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing content after the document")
	}
	return nil
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(p)
	assert.NilError(t, err)
	return st.Mode()
}

func TestSetupRoot(t *testing.T) {
	repo := fs.NewDir(t, "setup-root", fs.WithDir(".git"), fs.WithDir("a/b"))
	root, git := Setup{Dir: repo.Join("a", "b")}.Root()
	assert.Check(t, git)
	assert.Check(t, is.Equal(root, repo.Path()))

	plain := fs.NewDir(t, "setup-plain")
	_, git = Setup{Dir: plain.Path()}.Root()
	assert.Check(t, !git)
}

func TestSetupMkdirAllReportsCreatedOnce(t *testing.T) {
	repo, s := setupRepo(t)
	created, err := s.MkdirAll(".abcd/work/issues/open")
	assert.NilError(t, err)
	assert.Check(t, created)
	assert.Check(t, mode(t, repo.Join(".abcd", "work", "issues", "open")).IsDir())

	created, err = s.MkdirAll(".abcd/work/issues/open")
	assert.NilError(t, err)
	assert.Check(t, !created, "a folder that exists is not created again")
	created, err = s.MkdirAll(".abcd/work")
	assert.NilError(t, err)
	assert.Check(t, !created, "a parent made on the way exists")

	ok, err := s.Exists(".abcd/work/issues/open")
	assert.NilError(t, err)
	assert.Check(t, ok)
	ok, err = s.Exists(".abcd/work/issues/closed")
	assert.NilError(t, err)
	assert.Check(t, !ok)

	// A file where the folder should be is refused, not replaced.
	assert.NilError(t, os.WriteFile(repo.Join(".abcd", "notes"), []byte("x"), 0o644))
	_, err = s.MkdirAll(".abcd/notes")
	assert.Assert(t, err != nil)
	assert.Equal(t, string(mustRead(t, repo.Join(".abcd", "notes"))), "x")
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	assert.NilError(t, err)
	return data
}

func TestSetupCreateFileIsCreateOnly(t *testing.T) {
	repo, s := setupRepo(t, fs.WithDir(".abcd"))
	created, err := s.CreateFile(".abcd/config.json", []byte("first\n"))
	assert.NilError(t, err)
	assert.Check(t, created)
	assert.Check(t, is.Equal(mode(t, repo.Join(".abcd", "config.json")), os.FileMode(0o644)))

	created, err = s.CreateFile(".abcd/config.json", []byte("second\n"))
	assert.NilError(t, err)
	assert.Check(t, !created, "an existing file is never replaced")
	assert.Check(t, is.Equal(string(mustRead(t, repo.Join(".abcd", "config.json"))), "first\n"))

	// Empty content is a file too.
	created, err = s.CreateFile(".abcd/empty", nil)
	assert.NilError(t, err)
	assert.Check(t, created)
	assert.Check(t, is.Equal(len(mustRead(t, repo.Join(".abcd", "empty"))), 0))

	assert.Check(t, is.Len(tempLeftovers(t, repo.Path()), 0), "temporary files left behind")

	// The tree holds exactly what was written.
	assert.Assert(t, fs.Equal(repo.Path(), fs.Expected(t,
		fs.WithDir(".git"),
		fs.WithDir(".abcd",
			fs.WithFile("config.json", "first\n", fs.WithMode(0o644)),
			fs.WithFile("empty", "", fs.WithMode(0o644))),
	)))
}

func TestSetupCreateFileLeavesNoTempFileWhenItExists(t *testing.T) {
	repo, s := setupRepo(t, fs.WithDir(".abcd", fs.WithFile(".gitignore", "mine\n")))
	created, err := s.CreateFile(".abcd/.gitignore", []byte("theirs\n"))
	assert.NilError(t, err)
	assert.Check(t, !created)
	assert.Check(t, is.Equal(string(mustRead(t, repo.Join(".abcd", ".gitignore"))), "mine\n"))
	assert.Check(t, is.Len(tempLeftovers(t, repo.Path()), 0))
}

func TestSetupRefusesToWriteThroughASymlink(t *testing.T) {
	elsewhere := fs.NewDir(t, "setup-elsewhere", fs.WithFile("victim", "keep\n"))
	repo, s := setupRepo(t, fs.WithSymlink(".abcd", elsewhere.Path()))
	link := repo.Join(".abcd")

	_, err := s.MkdirAll(".abcd/work/issues/open")
	assertSetupRefused(t, err, "symlink_refused", link)
	_, err = s.CreateFile(".abcd/config.json", []byte("{}"))
	assertSetupRefused(t, err, "symlink_refused", link)
	_, err = s.CreateFile(".abcd/victim", []byte("overwritten"))
	assertSetupRefused(t, err, "symlink_refused", link)
	_, err = s.Exists(".abcd/config.json")
	assertSetupRefused(t, err, "symlink_refused", link)
	_, err = s.RemoveFileIf(".abcd/victim", []byte("keep\n"))
	assertSetupRefused(t, err, "symlink_refused", link)
	_, err = s.RemoveEmptyDir(".abcd")
	assertSetupRefused(t, err, "symlink_refused", link)

	// Nothing was written or removed outside the root.
	assert.Assert(t, fs.Equal(elsewhere.Path(), fs.Expected(t, fs.WithFile("victim", "keep\n", fs.WithMode(0o644)))))
	assert.Check(t, mode(t, link)&os.ModeSymlink != 0, "the link itself was replaced")
}

func TestSetupRefusesASymlinkedFile(t *testing.T) {
	elsewhere := fs.NewDir(t, "setup-elsewhere", fs.WithFile("target", "keep\n"))
	repo, s := setupRepo(t, fs.WithDir(".abcd", fs.WithSymlink(".gitignore", elsewhere.Join("target"))))
	_, err := s.CreateFile(".abcd/.gitignore", []byte("x"))
	assertSetupRefused(t, err, "symlink_refused", repo.Join(".abcd", ".gitignore"))
	_, err = s.RemoveFileIf(".abcd/.gitignore", []byte("keep\n"))
	assertSetupRefused(t, err, "symlink_refused", repo.Join(".abcd", ".gitignore"))
	assert.Check(t, is.Equal(string(mustRead(t, elsewhere.Join("target"))), "keep\n"))
}

func TestSetupRefusesAPathOutsideTheRoot(t *testing.T) {
	parent := fs.NewDir(t, "setup-parent", fs.WithDir("repo", fs.WithDir(".git")))
	s := Setup{Dir: parent.Join("repo"), Home: parent.Join("home")}
	for _, rel := range []string{"../escape", ".abcd/../../escape", "..", "/tmp/escape", "../repo/../escape"} {
		_, err := s.CreateFile(rel, []byte("x"))
		assert.Check(t, err != nil, "%q was not refused", rel)
		_, err = s.MkdirAll(rel)
		assert.Check(t, err != nil, "%q was not refused", rel)
		_, err = s.RemoveEmptyDir(rel)
		assert.Check(t, err != nil, "%q was not refused", rel)
	}
	_, err := os.Lstat(parent.Join("escape"))
	assert.Check(t, os.IsNotExist(err), "a file was written outside the root")
	assert.Assert(t, fs.Equal(parent.Path(), fs.Expected(t, fs.WithMode(0o700), fs.WithDir("repo", fs.WithDir(".git")))))
}

func TestSetupCreateMachineFile(t *testing.T) {
	_, s := setupRepo(t)
	created, err := s.CreateMachineFile("oracle-routing.json", []byte("first\n"))
	assert.NilError(t, err)
	assert.Check(t, created)
	assert.Check(t, is.Equal(mode(t, s.Home), os.ModeDir|0o700))
	p := s.MachinePath("oracle-routing.json")
	assert.Check(t, is.Equal(p, filepath.Join(s.Home, "oracle-routing.json")))
	assert.Check(t, is.Equal(mode(t, p), os.FileMode(0o600)))
	ok, err := s.MachineExists("oracle-routing.json")
	assert.NilError(t, err)
	assert.Check(t, ok)

	created, err = s.CreateMachineFile("oracle-routing.json", []byte("second\n"))
	assert.NilError(t, err)
	assert.Check(t, !created, "an existing machine file is never replaced")
	assert.Check(t, is.Equal(string(mustRead(t, p)), "first\n"))
	assert.Check(t, is.Len(tempLeftovers(t, s.Home), 0))

	// The guarded reader takes it back as a machine file.
	data, present, err := ReadGuarded(p, true)
	assert.NilError(t, err)
	assert.Check(t, present)
	assert.Check(t, is.Equal(string(data), "first\n"))

	ok, err = s.MachineExists("config.json")
	assert.NilError(t, err)
	assert.Check(t, !ok)
}

func TestSetupRefusesASymlinkedHome(t *testing.T) {
	target := fs.NewDir(t, "setup-real-home")
	links := fs.NewDir(t, "setup-links", fs.WithSymlink("abcd-home", target.Path()))
	s := Setup{Home: links.Join("abcd-home")}
	_, err := s.CreateMachineFile("oracle-routing.json", []byte("x"))
	assertSetupRefused(t, err, "symlink_refused", links.Join("abcd-home"))
	assert.Assert(t, fs.Equal(target.Path(), fs.Expected(t)), "a machine file was written through the link")

	// A file where the folder should be is refused too.
	notDir := fs.NewDir(t, "setup-notdir", fs.WithFile("abcd-home", "x"))
	_, err = Setup{Home: notDir.Join("abcd-home")}.CreateMachineFile("oracle-routing.json", []byte("x"))
	assertSetupRefused(t, err, "not_a_folder", notDir.Join("abcd-home"))
}

func TestSetupRemoveEmptyDir(t *testing.T) {
	repo, s := setupRepo(t, fs.WithDir(".abcd",
		fs.WithDir("empty"),
		fs.WithDir("full", fs.WithFile("iss-0001-keep.md", "keep\n")),
		fs.WithFile("file", "x")))
	removed, err := s.RemoveEmptyDir(".abcd/full")
	assert.NilError(t, err)
	assert.Check(t, !removed)
	assert.Check(t, is.Equal(string(mustRead(t, repo.Join(".abcd", "full", "iss-0001-keep.md"))), "keep\n"))

	removed, err = s.RemoveEmptyDir(".abcd/empty")
	assert.NilError(t, err)
	assert.Check(t, removed)
	_, err = os.Lstat(repo.Join(".abcd", "empty"))
	assert.Check(t, os.IsNotExist(err))

	for _, rel := range []string{".abcd/empty", ".abcd/file", ".abcd/absent"} {
		removed, err = s.RemoveEmptyDir(rel)
		assert.NilError(t, err, rel)
		assert.Check(t, !removed, rel)
	}
	assert.Check(t, is.Equal(string(mustRead(t, repo.Join(".abcd", "file"))), "x"))
}

func TestSetupRemoveFileIf(t *testing.T) {
	repo, s := setupRepo(t, fs.WithDir(".abcd",
		fs.WithFile("same", "ours\n"),
		fs.WithFile("changed", "ours\nand the person's line\n")))
	removed, err := s.RemoveFileIf(".abcd/changed", []byte("ours\n"))
	assert.NilError(t, err)
	assert.Check(t, !removed, "a changed file is kept")
	assert.Check(t, is.Equal(string(mustRead(t, repo.Join(".abcd", "changed"))), "ours\nand the person's line\n"))

	removed, err = s.RemoveFileIf(".abcd/same", []byte("ours\n"))
	assert.NilError(t, err)
	assert.Check(t, removed)
	_, err = os.Lstat(repo.Join(".abcd", "same"))
	assert.Check(t, os.IsNotExist(err))

	removed, err = s.RemoveFileIf(".abcd/absent", []byte("ours\n"))
	assert.NilError(t, err)
	assert.Check(t, !removed)
}

// TestAhoyInstallOnARealTree runs ahoy install through the core over this adapter: first --yes (the
// required steps), then interactively with yes to both routing offers (and no to the harness's
// sandbox, which harnesssandbox_test.go writes on a real tree).
func TestAhoyInstallOnARealTree(t *testing.T) {
	repo, s := setupRepo(t)
	ctx := context.Background()

	a := &app.App{Setup: s, Git: fake.NewGit("c0"), Config: fake.Config{}, Prompter: &fake.Prompter{}}
	res, err := a.Run(ctx, "ahoy_install", &setup.AhoyInstallInput{Yes: true})
	assert.NilError(t, err)
	assert.DeepEqual(t, res.(setup.AhoyInstallResult).OptionalSkipped, []string{"oracle-routing-machine", "oracle-routing-repository", "harness-sandbox"})
	_, err = os.Lstat(s.Home)
	assert.Check(t, os.IsNotExist(err), "--yes touched $ABCD_HOME")

	p := &fake.Prompter{TTY: true, Answers: []bool{true, true, false}}
	a = &app.App{Setup: s, Git: a.Git, Config: fake.Config{}, Prompter: p}
	res, err = a.Run(ctx, "ahoy_install", &setup.AhoyInstallInput{})
	assert.NilError(t, err)
	assert.Check(t, is.Len(p.Questions, 3), "questions: %v", p.Questions)
	machineFile := filepath.Join(s.Home, "oracle-routing.json")
	assert.DeepEqual(t, res.(setup.AhoyInstallResult).Written, []string{machineFile, ".abcd/config/oracle-routing.json"})

	proposal := oracle.RoutingFile{SchemaVersion: 1, Agents: oracle.Proposal()}
	isProposal := func(data []byte) fs.CompareResult {
		var rf oracle.RoutingFile
		if err := decodeStrict(data, &rf); err != nil {
			return is.ResultFailure(err.Error())
		}
		if !reflect.DeepEqual(rf, proposal) {
			return is.ResultFailure(fmt.Sprintf("routing file is not the proposal: %s", data))
		}
		return is.ResultSuccess
	}
	type configFile struct {
		SchemaVersion int `json:"schema_version"`
		SetupVersion  int `json:"setup_version"`
	}
	isConfig := func(data []byte) fs.CompareResult {
		var cfg configFile
		if err := decodeStrict(data, &cfg); err != nil {
			return is.ResultFailure(err.Error())
		}
		if cfg != (configFile{SchemaVersion: 1, SetupVersion: 1}) {
			return is.ResultFailure(fmt.Sprintf("config.json is not schema_version 1, setup_version 1: %s", data))
		}
		return is.ResultSuccess
	}
	ignoresLocalWork := func(data []byte) fs.CompareResult {
		if !strings.Contains(string(data), "/.work.local/") {
			return is.ResultFailure(fmt.Sprintf(".gitignore does not ignore /.work.local/: %q", data))
		}
		return is.ResultSuccess
	}

	// The repository tree: the record folders, the config, the ignore file, the routing table and the
	// record's merge driver in .gitattributes.
	dir := func(name string, ops ...fs.PathOp) fs.PathOp {
		return fs.WithDir(name, append([]fs.PathOp{fs.MatchAnyFileMode}, ops...)...)
	}
	// Every record folder holds its empty keep file, committed, so no branch ever empties it.
	kept := func(name string) fs.PathOp {
		return dir(name, fs.WithFile(record.KeepFile, "", fs.WithMode(0o644)))
	}
	namesTheDriver := func(data []byte) fs.CompareResult {
		if !strings.Contains(string(data), "/.abcd/work/**/*.md merge=abcd\n") {
			return is.ResultFailure(fmt.Sprintf(".gitattributes does not name the record's merge driver: %q", data))
		}
		return is.ResultSuccess
	}
	assert.Assert(t, fs.Equal(repo.Path(), fs.Expected(t,
		fs.WithDir(".git"),
		fs.WithFile(".gitattributes", "", fs.WithMode(0o644), fs.MatchFileContent(namesTheDriver)),
		dir(".abcd",
			fs.WithFile("config.json", "", fs.WithMode(0o644), fs.MatchFileContent(isConfig)),
			fs.WithFile(".gitignore", "", fs.WithMode(0o644), fs.MatchFileContent(ignoresLocalWork)),
			dir("config", fs.WithFile("oracle-routing.json", "", fs.WithMode(0o644), fs.MatchFileContent(isProposal))),
			dir("development",
				dir("intents", kept("drafts"), kept("planned"), kept("shipped")),
				dir("specs", kept("open"), kept("closed")),
				kept("decisions")),
			dir("work", dir("issues", kept("open"), kept("closed")))),
	)))
	for _, f := range record.Folders() {
		assert.Check(t, mode(t, repo.Join(filepath.FromSlash(f.Dir))).IsDir(), f.Dir)
	}

	// The machine file: 0600 in a 0700 folder, readable back through the guarded reader.
	assert.Check(t, is.Equal(mode(t, s.Home), os.ModeDir|0o700))
	assert.Check(t, is.Equal(mode(t, machineFile), os.FileMode(0o600)))
	data, present, err := ReadGuarded(machineFile, true)
	assert.NilError(t, err)
	assert.Assert(t, present)
	assert.Check(t, isProposal(data).Success())
	assert.Check(t, is.Len(tempLeftovers(t, repo.Path()), 0))
	assert.Check(t, is.Len(tempLeftovers(t, s.Home), 0))

	// The config source reads what install wrote, all four files present.
	files, err := ConfigSource{Dir: repo.Path(), Home: s.Home}.ReadConfig(ctx)
	assert.NilError(t, err)
	assert.Check(t, files.RepoConfig.Present && files.RepoRouting.Present && files.MachineRouting.Present)

	// Uninstall keeps the person's files and removes the empty record folders.
	res2, err := a.Run(ctx, "ahoy_uninstall", &setup.AhoyUninstallInput{})
	assert.NilError(t, err)
	un := res2.(setup.AhoyUninstallResult)
	assert.Check(t, is.Contains(un.Removed, ".abcd/.gitignore"))
	assert.Check(t, is.Contains(un.Kept, ".abcd/config.json"))
	assert.Check(t, is.Contains(un.Kept, ".abcd/config/oracle-routing.json"))
	assert.Check(t, is.Contains(un.Kept, machineFile))
	assert.Assert(t, fs.Equal(repo.Path(), fs.Expected(t,
		fs.WithDir(".git"),
		dir(".abcd",
			fs.WithFile("config.json", "", fs.WithMode(0o644), fs.MatchFileContent(isConfig)),
			dir("config", fs.WithFile("oracle-routing.json", "", fs.WithMode(0o644), fs.MatchFileContent(isProposal)))),
	)))
	assert.Check(t, is.Equal(mode(t, machineFile), os.FileMode(0o600)))
}

// TestAhoyInstallRefusesASymlinkedAbcd: install through the core stops at the link, writing nothing
// through it.
func TestAhoyInstallRefusesASymlinkedAbcd(t *testing.T) {
	elsewhere := fs.NewDir(t, "setup-elsewhere")
	repo, s := setupRepo(t, fs.WithSymlink(".abcd", elsewhere.Path()))
	a := &app.App{Setup: s, Git: fake.NewGit("c0"), Config: fake.Config{}, Prompter: &fake.Prompter{}}
	_, err := a.Run(context.Background(), "ahoy_install", &setup.AhoyInstallInput{Yes: true})
	assertSetupRefused(t, err, "symlink_refused", repo.Join(".abcd"))
	assert.Check(t, is.Equal(refusal.DocumentOf(err).ExitCode, 2))
	assert.Assert(t, fs.Equal(elsewhere.Path(), fs.Expected(t)), "install wrote through the link")
	_, err = os.Lstat(s.Home)
	assert.Check(t, os.IsNotExist(err))
}

func TestSetupNamesListsAFolderSortedAndNothingElse(t *testing.T) {
	elsewhere := fs.NewDir(t, "setup-elsewhere", fs.WithFile("secret", "x"))
	repo, s := setupRepo(t, fs.WithDir(".abcd",
		fs.WithFile("b.json", "{}"), fs.WithFile("a.md", "x"), fs.WithDir("run", fs.WithDir("run-1")),
		fs.WithSymlink("linked", elsewhere.Path())))
	names, err := s.Names(".abcd", 10)
	assert.NilError(t, err)
	assert.DeepEqual(t, names, []string{"a.md", "b.json", "linked", "run"})
	names, err = s.Names(".abcd/run", 10)
	assert.NilError(t, err)
	assert.DeepEqual(t, names, []string{"run-1"})
	// Absent, and a file where a folder would be: nothing.
	for _, rel := range []string{".abcd/absent", ".abcd/absent/deeper", ".abcd/a.md"} {
		names, err = s.Names(rel, 10)
		assert.NilError(t, err, rel)
		assert.Check(t, is.Len(names, 0), rel)
	}
	// A file on the way is refused, as every other read of the setup refuses it.
	_, err = s.Names(".abcd/a.md/under", 10)
	assert.ErrorContains(t, err, "is not a folder")
	// A link is never listed through.
	_, err = s.Names(".abcd/linked", 10)
	assertSetupRefused(t, err, "symlink_refused", repo.Join(".abcd", "linked"))
	// More names than the bound is refused, not listed in part.
	_, err = s.Names(".abcd", 3)
	assert.ErrorContains(t, err, "more than 3 names")
}
