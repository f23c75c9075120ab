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

// CodeUse is one refusal code product code writes or compares, and where.
type CodeUse struct {
	Code string
	Pos  token.Position
	// Spelling is how the code is written there.
	Spelling Spelling
	// Constant is the domain/refusal constant that holds Code ("" when none does).
	Constant string
}

// Spelling is how a use writes its code.
type Spelling int

const (
	// Named: the code is a constant domain/refusal declares (refusal.CodeNotInitialized).
	Named Spelling = iota
	// Text: the code is written out as a string ("not_initialized", refusal.Code("...")), or
	// compared as one (string(r.Code) == "...").
	Text
	// Local: the code is a constant declared outside domain/refusal, a second name for it.
	Local
)

// Codes walks type-checked files for the refusal codes they write. A code is written as a
// constant of type refusal.Code (a literal given where a Code is taken, set or compared, or a
// declared constant; a refusal.Error's Code is one); a code compared as text
// (string(r.Code) == "...") is a use too. Each use says how it is spelled (info needs Types and
// Uses). It returns every use, and a problem for every code that is not a constant (a Code
// converted from text computed at run time, a refusal.Error built with no code), since no test
// could tell what such a code is. The empty Code compared (r.Code == "") is no code, so no use.
// Expressions inside skip (the declarations themselves) are not uses.
func Codes(fset *token.FileSet, files []*ast.File, info *types.Info, skip func(*ast.File) bool) ([]CodeUse, []string) {
	var uses []CodeUse
	var problems []string
	seen := map[token.Pos]bool{}
	names := declaredNames{}
	// use records e, a constant expression holding code v; codeType is the refusal.Code type it
	// stands for (its package names the declared constants).
	use := func(e ast.Expr, v constant.Value, codeType types.Type) {
		if seen[e.Pos()] {
			return
		}
		seen[e.Pos()] = true
		c := constant.StringVal(v)
		uses = append(uses, CodeUse{Code: c, Pos: fset.Position(e.Pos()), Spelling: spelling(info, e), Constant: names.of(codeType, c)})
	}
	problem := func(n ast.Node, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	for _, f := range files {
		if skip(f) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					break
				}
				for _, side := range [][2]ast.Expr{{x.X, x.Y}, {x.Y, x.X}} {
					if tv := info.Types[side[0]]; isCode(tv.Type) && isEmpty(info.Types[side[1]]) {
						seen[side[1].Pos()] = true // r.Code == "": the zero Code, no code at all
					}
					if t, ok := codeAsText(info, side[0]); ok {
						if tv := info.Types[side[1]]; isString(tv) && !isCodeAsText(info, side[1]) {
							use(side[1], tv.Value, t)
						}
					}
				}
			case *ast.SwitchStmt:
				if t, ok := codeAsText(info, x.Tag); ok {
					for _, st := range x.Body.List {
						cc, ok := st.(*ast.CaseClause)
						if !ok {
							continue
						}
						for _, e := range cc.List {
							if tv := info.Types[e]; isString(tv) && !isCodeAsText(info, e) {
								use(e, tv.Value, t)
							}
						}
					}
				}
			}
			switch x := n.(type) {
			case ast.Expr:
				tv, ok := info.Types[x]
				if !ok || !isCode(tv.Type) {
					break
				}
				if tv.Value != nil {
					use(x, tv.Value, tv.Type)
					return false
				}
				if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 1 && tv.IsValue() {
					if ftv, ok := info.Types[call.Fun]; ok && ftv.IsType() {
						problem(call, "converts text computed at run time to a refusal.Code: use a declared code")
					}
				}
			}
			if x, ok := n.(*ast.CompositeLit); ok {
				if !isRefusalError(info.Types[x].Type) {
					return true
				}
				// The code it is given, typed, is a use the walk meets below it.
				set := false
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
							set = true
						}
					}
				}
				if !set {
					problem(x, "builds a refusal with no code: give it a declared refusal.Code")
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

// isString: tv is a constant string.
func isString(tv types.TypeAndValue) bool {
	return tv.Value != nil && tv.Value.Kind() == constant.String
}

func isEmpty(tv types.TypeAndValue) bool { return isString(tv) && constant.StringVal(tv.Value) == "" }

// codeAsText: e is a refusal.Code converted to text (string(r.Code)); it returns the Code's type.
func codeAsText(info *types.Info, e ast.Expr) (types.Type, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, false
	}
	if ftv := info.Types[call.Fun]; !ftv.IsType() {
		return nil, false
	}
	arg := info.Types[call.Args[0]]
	return arg.Type, isCode(arg.Type)
}

// isCodeAsText: e is string(c) of a refusal.Code c, whose code the walk meets in c itself.
func isCodeAsText(info *types.Info, e ast.Expr) bool {
	_, ok := codeAsText(info, e)
	return ok
}

// spelling says how e, a constant expression holding a code, writes it.
func spelling(info *types.Info, e ast.Expr) Spelling {
	var id *ast.Ident
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	}
	if id == nil {
		return Text
	}
	c, ok := info.Uses[id].(*types.Const)
	if !ok {
		return Text
	}
	if c.Pkg() != nil && c.Pkg().Path() == refusalPkg {
		return Named
	}
	return Local
}

// declaredNames finds, per code, the domain/refusal constant that holds it, from the package of
// the refusal.Code type at hand (so the walk needs no list of its own).
type declaredNames map[string]string

func (d declaredNames) of(codeType types.Type, code string) string {
	if len(d) == 0 {
		n, ok := codeType.(*types.Named)
		if !ok || n.Obj().Pkg() == nil {
			return ""
		}
		scope := n.Obj().Pkg().Scope()
		for _, name := range scope.Names() {
			if c, ok := scope.Lookup(name).(*types.Const); ok && isCode(c.Type()) && c.Val().Kind() == constant.String {
				d[constant.StringVal(c.Val())] = name
			}
		}
	}
	return d[code]
}

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

// Spelled names every use that does not name its code by the constant domain/refusal declares for
// it, where it is and the constant to use: a code written as text is not checked by the compiler,
// and a second constant is a second place a code is declared.
func Spelled(uses []CodeUse) []string {
	var out []string
	for _, u := range uses {
		if u.Spelling == Named {
			continue
		}
		how := "spelled as a string"
		if u.Spelling == Local {
			how = "named by a constant declared outside domain/refusal"
		}
		fix := "use refusal." + u.Constant
		if u.Constant == "" {
			fix = "declare it in domain/refusal with its meaning and use that constant"
		}
		out = append(out, fmt.Sprintf("%s: refusal code %q is %s: %s", u.Pos, u.Code, how, fix))
	}
	return out
}

// Constants checks the refusal.Code constants pkg declares (domain/refusal's own, when it is the
// package): one constant per code, and none for a code Codes() does not list with its meaning.
func Constants(pkg *types.Package, declared map[string]bool) []string {
	var out []string
	held := map[string]string{}
	scope := pkg.Scope()
	for _, name := range scope.Names() { // sorted, so the report is stable
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok || !isCode(c.Type()) || c.Val().Kind() != constant.String {
			continue
		}
		code := constant.StringVal(c.Val())
		if other, ok := held[code]; ok {
			out = append(out, fmt.Sprintf("%s.%s and %s.%s both hold refusal code %q: keep one constant per code", pkg.Name(), other, pkg.Name(), name, code))
			continue
		}
		held[code] = name
		if !declared[code] {
			out = append(out, fmt.Sprintf("%s.%s holds refusal code %q, which Codes() does not declare with its meaning", pkg.Name(), name, code))
		}
	}
	return out
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
