package arch

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// ErrorAssertions finds the type assertions of an error value to an interface written without the
// comma-ok form (err.(interface{ Unwrap() error }) alone): one panics the day the error does not
// have the method. A type switch, and v, ok := err.(I), are fine. An error asserted to a concrete
// type, in any form, is errorlint's (golangci-lint, .golangci.yml), which wants errors.As there and
// lets assertions to an interface through: the two checks share nothing.
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
				if x.Type != nil && !checked[x] && isError(info.Types[x.X].Type) && types.IsInterface(info.Types[x.Type].Type) {
					problems = append(problems, fmt.Sprintf("%s: asserts an error to an interface without checking it: use v, ok := err.(I), or errors.As",
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
