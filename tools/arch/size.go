package arch

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Limits are the measures that keep the product's code readable: a function, a file and a package
// past them is doing more than one job, and the assembly (ports/app) is the verb table and the
// wiring, no more.
type Limits struct {
	FuncLines, FileLines, PackageLines, AppFiles int
}

// Report is where the product's code runs past the limits, each entry "lines path [name]", and how
// many files ports/app holds.
type Report struct {
	Funcs, Files, Packages []string
	AppFiles               int
}

// Sizes measures the product's Go code under root: every function longer than FuncLines, every
// file longer than FileLines and every package (folder) longer than PackageLines, outside tools/,
// tests and test-support packages (named …test, as net/http/httptest); and the files of ports/app,
// tests included.
func Sizes(root string, lim Limits) (Report, error) {
	var rep Report
	fset := token.NewFileSet()
	pkgLines := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "tools" || d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasSuffix(d.Name(), "test") ||
				strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		if path.Dir(rel) == "ports/app" {
			rep.AppFiles++
		}
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, data, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		lines := bytes.Count(data, []byte("\n"))
		pkgLines[path.Dir(rel)] += lines
		if lines > lim.FileLines {
			rep.Files = append(rep.Files, fmt.Sprintf("%d %s", lines, rel))
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > lim.FuncLines {
				rep.Funcs = append(rep.Funcs, fmt.Sprintf("%d %s %s", n, rel, fd.Name.Name))
			}
		}
		return nil
	})
	for dir, n := range pkgLines {
		if n > lim.PackageLines {
			rep.Packages = append(rep.Packages, fmt.Sprintf("%d %s", n, dir))
		}
	}
	slices.Sort(rep.Funcs)
	slices.Sort(rep.Files)
	slices.Sort(rep.Packages)
	return rep, err
}

// executableMagic are the first bytes of the executables Go builds: ELF, Mach-O (both byte orders,
// 32 and 64 bits, and universal), and a Windows PE's MZ header.
var executableMagic = [][]byte{{0x7f, 'E', 'L', 'F'}, {0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe},
	{0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe}, {'M', 'Z'}}

// Executables are the files among paths (relative to root) that are compiled programs: a build
// output committed by mistake.
func Executables(root string, paths []string) ([]string, error) {
	var found []string
	for _, p := range paths {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			return nil, err
		}
		head := make([]byte, 4)
		n, err := f.Read(head)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil && n == 0 {
			continue // an empty file
		}
		for _, m := range executableMagic {
			if bytes.HasPrefix(head[:n], m) {
				found = append(found, p)
				break
			}
		}
	}
	return found, nil
}
