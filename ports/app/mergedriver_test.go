package app

import (
	"context"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/fake"
)

const wantAttrs = "# abcd: the record's files merge with abcd's merge driver (abcd ahoy install sets it up in each clone)\n" +
	"/.abcd/development/**/*.md merge=abcd\n" +
	"/.abcd/work/**/*.md merge=abcd\n"

func TestAhoyInstallSetsUpTheMergeDriver(t *testing.T) {
	s := fake.NewSetup(ahoyRoot, ahoyHome)
	a := bareApp(s)
	a.Self = func() string { return "'/opt/my tools/abcd'" }
	res, err := install(t, a, true)
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[".gitattributes"]), wantAttrs)
	assert.DeepEqual(t, ahoyGits[s].Config, map[string]string{
		"merge.abcd.name":   "abcd's record merge",
		"merge.abcd.driver": "'/opt/my tools/abcd' merge-record %O %A %B %L %P",
	})
	assert.Check(t, is.Contains(res.Written, ".gitattributes"))
	assert.Check(t, is.Contains(res.Written, "git config merge.abcd.driver"))
}

// A collaborator's clone has the committed .gitattributes but no driver in its own git config: install
// asks that one question and adds the driver, leaving the file as it is.
func TestAhoyInstallByACollaboratorAddsTheDriverToTheirClone(t *testing.T) {
	s := fullInstall(t)
	delete(ahoyGits, s) // another clone: the same files, its own git config
	attrs := string(s.Files[".gitattributes"])
	p := &fake.Prompter{TTY: true, Answers: []bool{true}}
	a, _ := ahoyApp(s, p)
	res, err := install(t, a, false)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(p.Questions, 1), "%v", p.Questions)
	assert.Check(t, is.Contains(p.Questions[0], "merge driver"))
	assert.Equal(t, string(s.Files[".gitattributes"]), attrs)
	assert.Equal(t, ahoyGits[s].Config["merge.abcd.driver"], "abcd merge-record %O %A %B %L %P")
	assert.DeepEqual(t, res.Written, []string{"git config merge.abcd.driver"})
	assert.DeepEqual(t, stepStatus(res.Steps)["record"], "created")

	// Declined, nothing is written.
	delete(ahoyGits, s)
	before := stateOf(s)
	a, _ = ahoyApp(s, &fake.Prompter{TTY: true, Answers: []bool{false}})
	_, err = install(t, a, false)
	assertRefusal(t, err, "consent_declined")
	assert.DeepEqual(t, stateOf(s), before)
}

func TestAhoyInstallKeepsThePersonsAttributesAndDriver(t *testing.T) {
	s := fake.NewSetup(ahoyRoot, ahoyHome)
	s.Files[".gitattributes"] = []byte("*.png binary\n/.abcd/work/**/*.md   merge=abcd")
	a := bareApp(s)
	assert.NilError(t, a.Git.SetConfig(context.Background(), "merge.abcd.driver", "my-wrapper %O %A %B"))
	_, err := install(t, a, true)
	assert.NilError(t, err)
	// Only the missing line is added, after the file's own last line; the person's driver stays.
	assert.Equal(t, string(s.Files[".gitattributes"]), "*.png binary\n/.abcd/work/**/*.md   merge=abcd\n/.abcd/development/**/*.md merge=abcd\n")
	assert.Equal(t, ahoyGits[s].Config["merge.abcd.driver"], "my-wrapper %O %A %B")

	res, err := uninstall(t, a)
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[".gitattributes"]), "*.png binary\n")
	assert.Check(t, is.Contains(res.Removed, ".gitattributes (abcd's lines)"))
	assert.Check(t, is.Contains(res.Removed, "git config merge.abcd"))
	assert.Check(t, is.Len(ahoyGits[s].Config, 0))
}

func TestAhoyUninstallRemovesTheAttributesFileInstallMade(t *testing.T) {
	s := fake.NewSetup(ahoyRoot, ahoyHome)
	a := bareApp(s)
	_, err := install(t, a, true)
	assert.NilError(t, err)
	res, err := uninstall(t, a)
	assert.NilError(t, err)
	_, present := s.Files[".gitattributes"]
	assert.Check(t, !present)
	assert.Check(t, slices.Contains(res.Removed, ".gitattributes"), "%v", res.Removed)
	assert.Check(t, is.Len(ahoyGits[s].Config, 0))
}

// mergeFiles is the driver's files in memory.
type mergeFiles map[string][]byte

func (m mergeFiles) Read(p string, _ int) ([]byte, error) { return m[p], nil }
func (m mergeFiles) Replace(p string, data []byte) error  { m[p] = data; return nil }

func TestMergeRecordWritesTheMergeOverOurs(t *testing.T) {
	files := mergeFiles{"O": []byte("a\nb\nc\n"), "A": []byte("A\nb\nc\n"), "B": []byte("a\nb\nC\n")}
	a := &App{MergeFiles: files}
	res, err := a.MergeRecord(context.Background(), MergeDriverInput{Base: "O", Ours: "A", Theirs: "B", MarkerSize: 7, Path: "x.md"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Conflicts, 0))
	assert.Equal(t, string(files["A"]), "A\nb\nC\n")
	assert.Equal(t, res.Say(), "")

	files["A"], files["B"] = []byte("X\nb\nc\n"), []byte("Y\nb\nc\n")
	res, err = a.MergeRecord(context.Background(), MergeDriverInput{Base: "O", Ours: "A", Theirs: "B", MarkerSize: 7, Path: "x.md"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Conflicts, 1))
	assert.Equal(t, string(files["A"]), "<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\nb\nc\n")
	assert.Check(t, is.Contains(res.Say(), "x.md: a conflict in the file"))
}
