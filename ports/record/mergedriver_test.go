package record_test

import (
	"context"
	"slices"
	"testing"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const wantAttrs = "# abcd: the record's files merge with abcd's merge driver (abcd ahoy install sets it up in each clone)\n" +
	"/.abcd/development/**/*.md merge=abcd\n" +
	"/.abcd/work/**/*.md merge=abcd\n"

func TestAhoyInstallSetsUpTheMergeDriver(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	a := apptest.BareApp(s)
	a.Self = func() string { return "'/opt/my tools/abcd'" }
	res, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[".gitattributes"]), wantAttrs)
	assert.DeepEqual(t, apptest.AhoyGits[s].Config, map[string]string{
		"merge.abcd.name":   "abcd's record merge",
		"merge.abcd.driver": "'/opt/my tools/abcd' merge-record %O %A %B %L %P",
	})
	assert.Check(t, is.Contains(res.Written, ".gitattributes"))
	assert.Check(t, is.Contains(res.Written, "git config merge.abcd.driver"))
}

// A collaborator's clone has the committed .gitattributes but no driver in its own git config: install
// asks that one question and adds the driver, leaving the file as it is.
func TestAhoyInstallByACollaboratorAddsTheDriverToTheirClone(t *testing.T) {
	s := apptest.FullInstall(t)
	delete(apptest.AhoyGits, s) // another clone: the same files, its own git config
	attrs := string(s.Files[".gitattributes"])
	p := &fake.Prompter{TTY: true, Answers: []bool{true}}
	a, _ := apptest.AhoyApp(s, p)
	res, err := apptest.Install(t, a, false)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(p.Questions, 1), "%v", p.Questions)
	assert.Check(t, is.Contains(p.Questions[0], "merge driver"))
	assert.Equal(t, string(s.Files[".gitattributes"]), attrs)
	assert.Equal(t, apptest.AhoyGits[s].Config["merge.abcd.driver"], "abcd merge-record %O %A %B %L %P")
	assert.DeepEqual(t, res.Written, []string{"git config merge.abcd.driver"})
	assert.DeepEqual(t, apptest.StepStatus(res.Steps)["record"], "created")

	// Declined, nothing is written.
	delete(apptest.AhoyGits, s)
	before := apptest.SetupStateOf(s)
	a, _ = apptest.AhoyApp(s, &fake.Prompter{TTY: true, Answers: []bool{false}})
	_, err = apptest.Install(t, a, false)
	apptest.AssertRefusal(t, err, "consent_declined")
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
}

func TestAhoyInstallKeepsThePersonsAttributesAndDriver(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	s.Files[".gitattributes"] = []byte("*.png binary\n/.abcd/work/**/*.md   merge=abcd")
	a := apptest.BareApp(s)
	assert.NilError(t, a.Git.SetConfig(context.Background(), "merge.abcd.driver", "my-wrapper %O %A %B"))
	_, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	// Only the missing line is added, after the file's own last line; the person's driver stays.
	assert.Equal(t, string(s.Files[".gitattributes"]), "*.png binary\n/.abcd/work/**/*.md   merge=abcd\n/.abcd/development/**/*.md merge=abcd\n")
	assert.Equal(t, apptest.AhoyGits[s].Config["merge.abcd.driver"], "my-wrapper %O %A %B")

	res, err := apptest.Uninstall(t, a)
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[".gitattributes"]), "*.png binary\n")
	assert.Check(t, is.Contains(res.Removed, ".gitattributes (abcd's lines)"))
	assert.Check(t, is.Contains(res.Removed, "git config merge.abcd"))
	assert.Check(t, is.Len(apptest.AhoyGits[s].Config, 0))
}

func TestAhoyUninstallRemovesTheAttributesFileInstallMade(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	a := apptest.BareApp(s)
	_, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	res, err := apptest.Uninstall(t, a)
	assert.NilError(t, err)
	_, present := s.Files[".gitattributes"]
	assert.Check(t, !present)
	assert.Check(t, slices.Contains(res.Removed, ".gitattributes"), "%v", res.Removed)
	assert.Check(t, is.Len(apptest.AhoyGits[s].Config, 0))
}

// mergeFiles is the driver's files in memory.
type mergeFiles map[string][]byte

func (m mergeFiles) Read(p string, _ int) ([]byte, error) { return m[p], nil }
func (m mergeFiles) Replace(p string, data []byte) error  { m[p] = data; return nil }

func TestMergeRecordWritesTheMergeOverOurs(t *testing.T) {
	files := mergeFiles{"O": []byte("a\nb\nc\n"), "A": []byte("A\nb\nc\n"), "B": []byte("a\nb\nC\n")}
	a := &app.App{MergeFiles: files}
	res, err := a.MergeRecord(context.Background(), record.MergeDriverInput{Base: "O", Ours: "A", Theirs: "B", MarkerSize: 7, Path: "x.md"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Conflicts, 0))
	assert.Equal(t, string(files["A"]), "A\nb\nC\n")
	assert.Equal(t, res.Say(), "")

	files["A"], files["B"] = []byte("X\nb\nc\n"), []byte("Y\nb\nc\n")
	res, err = a.MergeRecord(context.Background(), record.MergeDriverInput{Base: "O", Ours: "A", Theirs: "B", MarkerSize: 7, Path: "x.md"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Conflicts, 1))
	assert.Equal(t, string(files["A"]), "<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\nb\nc\n")
	assert.Check(t, is.Contains(res.Say(), "x.md: a conflict in the file"))
}
