package arch

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// ErrorAssertions finds the type assertions on an error value written without the comma-ok form
// (err.(*T) alone): one panics the day the error is wrapped or its type changes, where errors.As
// answers. A type switch, and v, ok := err.(T), are fine.
func ErrorAssertions(fset *token.FileSet, files []*ast.File, info *types.Info) []string {
	var problems []string
	for _, f := range files {
		checked := map[*ast.TypeAssertExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				if len(x.Lhs) == 2 && len(x.Rhs) == 1 {
					if ta, ok := ast.Unparen(x.Rhs[0]).(*ast.TypeAssertExpr); ok {
						checked[ta] = true
					}
				}
			case *ast.ValueSpec:
				if len(x.Names) == 2 && len(x.Values) == 1 {
					if ta, ok := ast.Unparen(x.Values[0]).(*ast.TypeAssertExpr); ok {
						checked[ta] = true
					}
				}
			case *ast.TypeAssertExpr:
				// x.Type is nil in a type switch's guard, which cannot panic.
				if x.Type != nil && !checked[x] && isError(info.Types[x.X].Type) {
					problems = append(problems, fmt.Sprintf("%s: asserts the type of an error without checking it: use errors.As",
						fset.Position(x.Pos())))
				}
			}
			return true
		})
	}
	return problems
}

func isError(t types.Type) bool {
	return t != nil && types.Identical(t, types.Universe.Lookup("error").Type())
}
