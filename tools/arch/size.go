package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Sizes is where the product's code runs long: every function longer than maxFunc lines outside
// tools/, tests and test-support packages, and every file of ports/app longer than maxFile lines, each as "lines path name".
// A use case that grows past these bounds is doing two jobs; the bounds keep it readable.
func Sizes(root string, maxFunc, maxFile int) (funcs, files []string, err error) {
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// tools/ and test-support packages (named …test, as net/http/httptest) are not the product.
			if rel == "tools" || d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasSuffix(d.Name(), "test") ||
				strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if lines := fset.Position(f.End()).Line; strings.HasPrefix(rel, "ports/app/") && lines > maxFile {
			files = append(files, fmt.Sprintf("%d %s", lines, rel))
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFunc {
				funcs = append(funcs, fmt.Sprintf("%d %s %s", n, rel, fd.Name.Name))
			}
		}
		return nil
	})
	slices.Sort(funcs)
	slices.Sort(files)
	return funcs, files, err
}
