package arch

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
)

// refusalPkg is where refusal codes are declared.
const refusalPkg = Prefix + "domain/refusal"

// CodeUse is one refusal code product code writes, and where.
type CodeUse struct {
	Code string
	Pos  token.Position
}

// Codes walks type-checked files for the refusal codes they write. A code is written as a
// constant of type refusal.Code (a literal given where a Code is taken, or a declared constant), or
// as the Code of a refusal.Error built or assigned directly. It returns every code written, and a
// problem for every code that is not a constant (a Code converted from text computed at run time,
// a refusal.Error with no code or a computed one), since no test could tell what such a code is.
// Expressions inside skip (the declarations themselves) are not uses.
func Codes(fset *token.FileSet, files []*ast.File, info *types.Info, skip func(*ast.File) bool) ([]CodeUse, []string) {
	var uses []CodeUse
	var problems []string
	seen := map[token.Pos]bool{}
	use := func(e ast.Expr, v constant.Value) {
		if seen[e.Pos()] {
			return
		}
		seen[e.Pos()] = true
		uses = append(uses, CodeUse{Code: constant.StringVal(v), Pos: fset.Position(e.Pos())})
	}
	problem := func(n ast.Node, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	// code checks an expression that sets a refusal.Error's Code.
	code := func(e ast.Expr) {
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			use(e, tv.Value)
			return
		}
		if tv, ok := info.Types[e]; ok && isCode(tv.Type) {
			return // a refusal.Code value: its constants are checked where they are written
		}
		if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if tv, ok := info.Types[call.Args[0]]; ok && isCode(tv.Type) {
				return // string(code): a refusal.Code, checked where it was written
			}
		}
		problem(e, "a refusal's code is set from text computed at run time: use a declared refusal.Code")
	}
	for _, f := range files {
		if skip(f) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case ast.Expr:
				tv, ok := info.Types[x]
				if !ok || !isCode(tv.Type) {
					break
				}
				if tv.Value != nil {
					use(x, tv.Value)
					return false
				}
				if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 1 && tv.IsValue() {
					if ftv, ok := info.Types[call.Fun]; ok && ftv.IsType() {
						problem(call, "converts text computed at run time to a refusal.Code: use a declared code")
					}
				}
			}
			switch x := n.(type) {
			case *ast.CompositeLit:
				if !isRefusalError(info.Types[x].Type) {
					return true
				}
				set := false
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
							code(kv.Value)
							set = true
						}
					}
				}
				if !set {
					problem(x, "builds a refusal with no code: give it a declared refusal.Code")
				}
			case *ast.AssignStmt:
				for i, lhs := range x.Lhs {
					sel, ok := lhs.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "Code" || i >= len(x.Rhs) || !isRefusalError(info.Types[sel.X].Type) {
						continue
					}
					code(x.Rhs[i])
				}
			}
			return true
		})
	}
	sort.SliceStable(uses, func(i, j int) bool {
		a, b := uses[i].Pos, uses[j].Pos
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Offset < b.Offset
	})
	return uses, problems
}

func isCode(t types.Type) bool { return isNamed(t, refusalPkg, "Code") }

func isRefusalError(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return isNamed(t, refusalPkg, "Error")
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// Undeclared names every use of a code that is not declared, where it is.
func Undeclared(uses []CodeUse, declared map[string]bool) []string {
	var out []string
	for _, u := range uses {
		if !declared[u.Code] {
			out = append(out, fmt.Sprintf("%s: refusal code %q is not declared in domain/refusal (declare it with its meaning, or use a declared one)", u.Pos, u.Code))
		}
	}
	return out
}

// Unused names every declared code no product code writes.
func Unused(uses []CodeUse, declared map[string]bool) []string {
	used := map[string]bool{}
	for _, u := range uses {
		used[u.Code] = true
	}
	var out []string
	for c := range declared {
		if !used[c] {
			out = append(out, fmt.Sprintf("refusal code %q is declared and nothing writes it: remove it from domain/refusal", c))
		}
	}
	sort.Strings(out)
	return out
}
