// Command extract writes the secret detector's rule set and gitleaks' own test cases for it as data,
// from gitleaks' Go module at the pinned version (through the Go module proxy), so history's redaction
// uses a maintained detector's rules without linking gitleaks (or its dependencies) into abcd.
//
// gitleaks generates its default configuration from Go functions, one per rule, each of which checks
// the rule against its true and false positives by calling utils.Validate. This program copies those
// functions into a scratch module beside a utils package of its own that forwards to gitleaks' and
// records what each Validate was handed, calls every rule function, and writes:
//
//   - domain/history/gitleaks/rules.json: every rule with a regex (id, description, regex, secret
//     group, entropy, keywords, allowlists) and the global allowlist, as gitleaks' detector reads them;
//   - domain/history/testdata/gitleaks-cases.json: each rule's true and false positives.
//
// Run it by hand when moving to a new gitleaks version: go run ./tools/secrets/extract -version v8.x.y
// (it needs the Go module proxy), then go test ./domain/history/ and review the diff.
package main

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const module = "github.com/zricethezav/gitleaks/v8"

func main() {
	version := flag.String("version", "v8.30.1", "the gitleaks version to read")
	out := flag.String("out", "domain/history", "the history domain's folder")
	flag.Parse()
	if err := run(*version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
}

func run(version, out string) (err error) {
	out, err = filepath.Abs(out)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "abcd-gitleaks-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	gomod := fmt.Sprintf("module scratch\n\ngo 1.26\n\nrequire %s %s\n", module, version)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if err := goCmd(dir, "mod", "download", module+"@"+version); err != nil {
		return err
	}
	src, err := goOutput(dir, "list", "-m", "-f", "{{.Dir}}", module)
	if err != nil {
		return err
	}
	src = strings.TrimSpace(src)

	// The rule functions, with their utils import pointed at the recorder.
	rulesDir := filepath.Join(src, "cmd", "generate", "config", "rules")
	entries, err := os.ReadDir(rulesDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "rules"), 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(rulesDir, e.Name()))
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), `"`+module+`/cmd/generate/config/utils"`, `"scratch/utils"`)
		if err := os.WriteFile(filepath.Join(dir, "rules", e.Name()), []byte(text), 0o644); err != nil {
			return err
		}
	}
	// The rules gitleaks' default configuration is made of: the calls its generator lists.
	funcs, err := listedRules(filepath.Join(src, "cmd", "generate", "config", "main.go"))
	if err != nil {
		return err
	}

	// The recorder: every exported name of gitleaks' utils, forwarded; Validate records its cases.
	utilsSrc, err := forwarders(filepath.Join(src, "cmd", "generate", "config", "utils"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "utils"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "utils", "utils.go"), []byte(utilsSrc), 0o644); err != nil {
		return err
	}
	var calls strings.Builder
	for _, f := range funcs {
		fmt.Fprintf(&calls, "\t\trules.%s(),\n", f)
	}
	mainSrc := strings.Replace(mainTemplate, "\t\t// RULES\n", calls.String(), 1)
	mainSrc = strings.Replace(mainSrc, "VERSION", version, 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(mainSrc), 0o644); err != nil {
		return err
	}
	if err := goCmd(dir, "mod", "tidy"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "gitleaks"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "testdata"), 0o755); err != nil {
		return err
	}
	if err := goCmd(dir, "run", ".", filepath.Join(out, "gitleaks", "rules.json"), filepath.Join(out, "testdata", "gitleaks-cases.json")); err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(src, "LICENSE"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "gitleaks", "LICENSE"), license, 0o644)
}

// listedRules are the rule functions gitleaks' generator calls (rules.X() in its main.go), in order.
func listedRules(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "rules" {
				out = append(out, sel.Sel.Name)
			}
		}
		return true
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no rules", path)
	}
	return out, nil
}

// forwarders is a utils package that forwards every exported function and constant of gitleaks' and
// replaces Validate and ValidateWithPaths with recorders that still validate.
func forwarders(dir string) (string, error) {
	// go/build picks the package's files as the compiler will: no tests, build constraints applied.
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		return "", err
	}
	set := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(set, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return "", err
		}
		files = append(files, f)
	}
	var b strings.Builder
	b.WriteString("package utils\n\nimport (\n\treal \"" + module + "/cmd/generate/config/utils\"\n\t\"" + module + "/config\"\n)\n\n")
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch x := d.(type) {
			case *ast.FuncDecl:
				if x.Recv == nil && x.Name.IsExported() && x.Name.Name != "Validate" && x.Name.Name != "ValidateWithPaths" {
					names = append(names, "var "+x.Name.Name+" = real."+x.Name.Name)
				}
			case *ast.GenDecl:
				if x.Tok != token.CONST && x.Tok != token.VAR {
					continue
				}
				for _, s := range x.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.IsExported() {
							names = append(names, "var "+n.Name+" = real."+n.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	b.WriteString(strings.Join(names, "\n"))
	b.WriteString(recorder)
	return b.String(), nil
}

const recorder = `

// Cases are what each rule's Validate was handed, by rule id.
var Cases = map[string][2][]string{}

func Validate(rule config.Rule, tps, fps []string) *config.Rule {
	Cases[rule.RuleID] = [2][]string{tps, fps}
	return real.Validate(rule, tps, fps)
}

func ValidateWithPaths(rule config.Rule, tps, fps map[string]string) *config.Rule {
	var t, f []string
	for _, v := range tps {
		t = append(t, v)
	}
	for _, v := range fps {
		f = append(f, v)
	}
	Cases[rule.RuleID] = [2][]string{t, f}
	return real.ValidateWithPaths(rule, tps, fps)
}
`

const mainTemplate = `package main

import (
	"encoding/json"
	"os"
	"sort"

	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/base"
	"github.com/zricethezav/gitleaks/v8/config"
	"scratch/rules"
	"scratch/utils"
)

type allowlist struct {
	Description string   ` + "`json:\"description,omitempty\"`" + `
	Condition   string   ` + "`json:\"condition\"`" + `
	RegexTarget string   ` + "`json:\"regex_target,omitempty\"`" + `
	Regexes     []string ` + "`json:\"regexes,omitempty\"`" + `
	StopWords   []string ` + "`json:\"stopwords,omitempty\"`" + `
}

type rule struct {
	ID          string      ` + "`json:\"id\"`" + `
	Description string      ` + "`json:\"description\"`" + `
	Regex       string      ` + "`json:\"regex\"`" + `
	SecretGroup int         ` + "`json:\"secret_group,omitempty\"`" + `
	Entropy     float64     ` + "`json:\"entropy,omitempty\"`" + `
	Keywords    []string    ` + "`json:\"keywords,omitempty\"`" + `
	Path        string      ` + "`json:\"path,omitempty\"`" + `
	Allowlists  []allowlist ` + "`json:\"allowlists,omitempty\"`" + `
}

type file struct {
	Source     string      ` + "`json:\"source\"`" + `
	License    string      ` + "`json:\"license\"`" + `
	Allowlists []allowlist ` + "`json:\"allowlists\"`" + `
	Rules      []rule      ` + "`json:\"rules\"`" + `
}

type cases struct {
	Source string              ` + "`json:\"source\"`" + `
	Cases  map[string]ruleCase ` + "`json:\"cases\"`" + `
}

type ruleCase struct {
	True  []string ` + "`json:\"true\"`" + `
	False []string ` + "`json:\"false\"`" + `
}

func lists(in []*config.Allowlist) []allowlist {
	var out []allowlist
	for _, a := range in {
		if a == nil || (len(a.Regexes) == 0 && len(a.StopWords) == 0) {
			continue // paths and commits say nothing about a transcript
		}
		l := allowlist{Description: a.Description, Condition: a.MatchCondition.String(), RegexTarget: a.RegexTarget, StopWords: a.StopWords}
		sort.Strings(l.StopWords)
		if a.MatchCondition == config.AllowlistMatchAnd && (len(a.Paths) > 0 || len(a.Commits) > 0) {
			continue // an AND with a path or commit never holds for a transcript
		}
		for _, r := range a.Regexes {
			l.Regexes = append(l.Regexes, r.String())
		}
		out = append(out, l)
	}
	return out
}

func main() {
	all := []*config.Rule{
		// RULES
	}
	src := "gitleaks VERSION (github.com/gitleaks/gitleaks), cmd/generate/config"
	f := file{Source: src, License: "MIT, Copyright (c) 2019 Zachary Rice: see LICENSE beside this file", Allowlists: lists(base.CreateGlobalConfig().Allowlists)}
	c := cases{Source: src, Cases: map[string]ruleCase{}}
	for _, r := range all {
		if r == nil || r.Regex == nil {
			continue // a rule on file names only: a transcript has none
		}
		nr := rule{ID: r.RuleID, Description: r.Description, Regex: r.Regex.String(), SecretGroup: r.SecretGroup,
			Entropy: r.Entropy, Keywords: r.Keywords, Allowlists: lists(r.Allowlists)}
		if r.Path != nil {
			nr.Path = r.Path.String()
		}
		f.Rules = append(f.Rules, nr)
		if tc, ok := utils.Cases[r.RuleID]; ok {
			c.Cases[r.RuleID] = ruleCase{True: tc[0], False: tc[1]}
		}
	}
	sort.Slice(f.Rules, func(i, j int) bool { return f.Rules[i].ID < f.Rules[j].ID })
	for i, p := range []any{f, c} {
		data, err := json.MarshalIndent(p, "", " ")
		if err != nil {
			panic(err)
		}
		if err := os.WriteFile(os.Args[1+i], append(data, '\n'), 0o644); err != nil {
			panic(err)
		}
	}
}
`

func goCmd(dir string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func goOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return string(out), err
}
