package arch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// product is the code abcd runs: every layer but gen and tools, tests left out.
var product = []string{"./domain/...", "./ports/...", "./adapters/...", "./frontdoors/..."}

// listed is one package as go list -export shows it.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
}

// loadExports lists patterns and every dependency, compiled, with where each package's export data
// is, so a package can be type-checked from its source against its imports' export data.
func loadExports(t *testing.T, patterns ...string) (map[string]listed, []listed) {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Standard"}, patterns...)
	out := goList(t, args...)
	all := map[string]listed{}
	var ours []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			assert.NilError(t, err)
		}
		all[p.ImportPath] = p
		if !p.Standard && strings.HasPrefix(p.ImportPath, Prefix) {
			ours = append(ours, p)
		}
	}
	return all, ours
}

// exportImporter imports packages from the export data go list named. One serves every package a
// test checks, so a package many import is read once.
func exportImporter(fset *token.FileSet, all map[string]listed) types.Importer {
	return importer.ForCompiler(fset, "gc", func(p string) (io.ReadCloser, error) {
		l, ok := all[p]
		if !ok || l.Export == "" {
			return nil, errors.New("no export data for " + p)
		}
		return os.Open(l.Export)
	})
}

// typeCheck type-checks one package's files against export data.
func typeCheck(t *testing.T, imp types.Importer, path string, fset *token.FileSet, files []*ast.File) *types.Info {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	_, err := (&types.Config{Importer: imp}).Check(path, fset, files, info)
	assert.NilError(t, err, path)
	return info
}

// TestEveryRefusalCodeIsDeclared: every refusal code the product writes, as a literal, a constant
// or a refusal built directly, is one domain/refusal declares with its meaning (and so one the
// published refusal schema lists); every one is written as that declared constant, never spelled
// as a string or named by a constant of its own; every declared code is written somewhere; and no
// code is made from text computed at run time. The same type-checked walk finds any unchecked type
// assertion on an error.
func TestEveryRefusalCodeIsDeclared(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	all, ours := loadExports(t, product...)
	fset := token.NewFileSet()
	imp := exportImporter(fset, all)
	var uses []CodeUse
	var problems []string
	for _, p := range ours {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			assert.NilError(t, err)
			files = append(files, f)
		}
		info := typeCheck(t, imp, p.ImportPath, fset, files)
		u, pr := Codes(fset, files, info, func(f *ast.File) bool {
			return p.ImportPath == refusalPkg && filepath.Base(fset.Position(f.Pos()).Filename) == "codes.go"
		})
		uses, problems = append(uses, u...), append(problems, pr...)
		problems = append(problems, ErrorAssertions(fset, files, info)...)
	}
	declared := map[string]bool{}
	for _, c := range refusal.Codes() {
		declared[string(c.Code)] = true
	}
	assert.Assert(t, len(uses) > 150, "found only %d code uses: is the walk reading the product?", len(uses))
	problems = append(append(append(problems, Undeclared(uses, declared)...), Unused(uses, declared)...), Spelled(uses)...)
	pkg, err := imp.Import(refusalPkg)
	assert.NilError(t, err)
	problems = append(problems, Constants(pkg, declared)...)
	assert.Assert(t, len(problems) == 0, "%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	named := 0
	for _, u := range uses {
		if u.Spelling == Named && u.Constant != "" {
			named++
		}
	}
	assert.Assert(t, named > 250, "only %d uses name a declared constant: is the walk telling spellings apart?", named)
}

// TestCodesCatchesWhatIsNotDeclared: the walk finds an undeclared literal and an undeclared
// constant alike, a declared constant, a code built directly, and refuses codes made at run time.
func TestCodesCatchesWhatIsNotDeclared(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	all, _ := loadExports(t, "./domain/refusal")
	const src = `package fixture

import "github.com/abcd-dev/abcd/domain/refusal"

const stray refusal.Code = "stray_constant"

func f(s string) []error {
	var c refusal.Code = "assigned_literal"
	e := &refusal.Error{Kind: refusal.Refused}
	e.Code = "set_later"
	return []error{
		refusal.New("stray_literal", "", ""),
		refusal.Busy(stray, "", ""),
		refusal.New(c, "", ""),
		refusal.New(refusal.Code(s), "", ""),
		&refusal.Error{Code: "built_directly"},
		&refusal.Error{Code: refusal.Code(s)},
		e,
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixture.go", src, 0)
	assert.NilError(t, err)
	info := typeCheck(t, exportImporter(fset, all), "fixture", fset, []*ast.File{f})
	uses, problems := Codes(fset, []*ast.File{f}, info, func(*ast.File) bool { return false })
	var codes []string
	for _, u := range uses {
		codes = append(codes, u.Code)
	}
	assert.DeepEqual(t, codes, []string{"stray_constant", "assigned_literal", "set_later", "stray_literal", "stray_constant", "built_directly"})
	assert.Equal(t, len(problems), 3, strings.Join(problems, "\n"))
	for i, want := range []string{"builds a refusal with no code", "converts text computed at run time", "converts text computed at run time"} {
		assert.Check(t, strings.Contains(problems[i], want), problems[i])
	}
	undeclared := Undeclared(uses, map[string]bool{"assigned_literal": true, "set_later": true, "built_directly": true})
	assert.Equal(t, len(undeclared), 3, strings.Join(undeclared, "\n"))
	assert.Check(t, strings.Contains(undeclared[0], `"stray_constant"`) && strings.Contains(undeclared[1], `"stray_literal"`))
	assert.DeepEqual(t, Unused(uses, map[string]bool{"built_directly": true, "never_written": true}),
		[]string{`refusal code "never_written" is declared and nothing writes it: remove it from domain/refusal`})
}

// TestCodesCatchesACodeSpelledAsText: a code written as a string where a Code is taken, set or
// compared (a literal, a conversion, a constant expression, text compared with string(r.Code), in
// an expression or a switch) and a second constant for a code are each named with the declared
// constant to use; an undeclared one is told to be declared. A declared constant, and the empty
// Code compared (no code), are not.
func TestCodesCatchesACodeSpelledAsText(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	all, _ := loadExports(t, "./domain/refusal")
	const src = `package fixture

import "github.com/abcd-dev/abcd/domain/refusal"

const second = refusal.CodeRecordMissing

func f(err error) []error {
	r, _ := refusal.As(err)
	switch {
	case r.Code == "record_missing", "return_missing" != string(r.Code):
	case r.Code == "", "" != r.Code, r.Code == refusal.CodeRecordMissing, r.Code == second:
	case r.Code == refusal.Code("fault"):
	}
	switch string(r.Code) {
	case "usage", string(refusal.CodeRecordMissing):
	}
	switch r.Code {
	case "record_locked", refusal.CodeRunLocked:
	}
	r.Code = "run_locked"
	return []error{
		refusal.New("not_initialized", "", ""),
		refusal.Busy("record"+"_locked", "", ""),
		&refusal.Error{Code: "no_such_code"},
		refusal.New(refusal.CodeNotInitialized, "", ""),
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixture.go", src, 0)
	assert.NilError(t, err)
	info := typeCheck(t, exportImporter(fset, all), "fixture", fset, []*ast.File{f})
	uses, problems := Codes(fset, []*ast.File{f}, info, func(*ast.File) bool { return false })
	assert.Equal(t, len(problems), 0, strings.Join(problems, "\n"))
	for _, u := range uses {
		assert.Check(t, u.Code != "", "the empty Code compared is no code: %+v", u)
	}
	assert.DeepEqual(t, Spelled(uses), []string{
		`fixture.go:10:17: refusal code "record_missing" is spelled as a string: use refusal.CodeRecordMissing`,
		`fixture.go:10:35: refusal code "return_missing" is spelled as a string: use refusal.CodeReturnMissing`,
		`fixture.go:11:82: refusal code "record_missing" is named by a constant declared outside domain/refusal: use refusal.CodeRecordMissing`,
		`fixture.go:12:17: refusal code "fault" is spelled as a string: use refusal.CodeFault`,
		`fixture.go:15:7: refusal code "usage" is spelled as a string: use refusal.CodeUsage`,
		`fixture.go:18:7: refusal code "record_locked" is spelled as a string: use refusal.CodeRecordLocked`,
		`fixture.go:20:11: refusal code "run_locked" is spelled as a string: use refusal.CodeRunLocked`,
		`fixture.go:22:15: refusal code "not_initialized" is spelled as a string: use refusal.CodeNotInitialized`,
		`fixture.go:23:16: refusal code "record_locked" is spelled as a string: use refusal.CodeRecordLocked`,
		`fixture.go:24:24: refusal code "no_such_code" is spelled as a string: declare it in domain/refusal with its meaning and use that constant`,
	})
	var named []string
	for _, u := range uses {
		if u.Spelling == Named {
			named = append(named, fmt.Sprintf("%d:%s", u.Pos.Line, u.Constant))
		}
	}
	assert.DeepEqual(t, named, []string{"5:CodeRecordMissing", "11:CodeRecordMissing", "15:CodeRecordMissing", "18:CodeRunLocked", "25:CodeNotInitialized"})
}

// TestConstantsCatchesASecondConstant: two constants holding one code, and a constant for a code
// Codes() does not declare, are each named; a declared code held once is not.
func TestConstantsCatchesASecondConstant(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	all, _ := loadExports(t, "./domain/refusal")
	const src = `package fixture

import "github.com/abcd-dev/abcd/domain/refusal"

const (
	CodeA refusal.Code = "record_missing"
	CodeB refusal.Code = "record_missing"
	CodeC refusal.Code = "not_declared"
	CodeD refusal.Code = "usage"
	Other              = "usage"
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixture.go", src, 0)
	assert.NilError(t, err)
	pkg, err := (&types.Config{Importer: exportImporter(fset, all)}).Check("fixture", fset, []*ast.File{f}, nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, Constants(pkg, map[string]bool{"record_missing": true, "usage": true}), []string{
		`fixture.CodeA and fixture.CodeB both hold refusal code "record_missing": keep one constant per code`,
		`fixture.CodeC holds refusal code "not_declared", which Codes() does not declare with its meaning`,
	})
}

// TestErrorAssertionsCatchesTheUncheckedForm: err.(*T) alone is found, in any expression; the
// comma-ok forms, a type switch and an assertion on something that is not an error are not.
func TestErrorAssertionsCatchesTheUncheckedForm(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	const src = `package fixture

import "strconv"

func f(err error, v any) string {
	n := err.(*strconv.NumError).Num
	e, ok := err.(*strconv.NumError)
	var e2, ok2 = err.(*strconv.NumError)
	switch err.(type) {
	case *strconv.NumError:
	}
	s := v.(string)
	_, _, _, _ = e, ok, e2, ok2
	return n + s + err.(interface{ Unwrap() error }).Unwrap().Error()
}
`
	all, _ := loadExports(t, "strconv")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixture.go", src, 0)
	assert.NilError(t, err)
	info := typeCheck(t, exportImporter(fset, all), "fixture", fset, []*ast.File{f})
	problems := ErrorAssertions(fset, []*ast.File{f}, info)
	assert.Equal(t, len(problems), 1, strings.Join(problems, "\n"))
	assert.Check(t, strings.HasPrefix(problems[0], "fixture.go:14:"), strings.Join(problems, "\n"))
}
