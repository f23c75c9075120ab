package shell

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// scope is what holds for the commands of one stretch of the line.
type scope struct {
	cd    []guard.CdStep
	depth int
	via   []string
	// stdin is what feeds the command's standard input: a pipe, a heredoc, a duplicated descriptor.
	stdin *input
	src   string
	// piped and background say the command runs in a pipeline or with &, where a function calling
	// itself multiplies.
	piped, background bool
	// fds are the descriptors this command's own redirections open, over the shell's.
	fds map[string]*input
	st  *state
	// remote is set for what another machine runs (ssh host CMD).
	remote bool
}

// state is what one shell remembers from one command to the next in the line: the variables it set
// (and which it exported), its open descriptors, its functions, the git configuration earlier git
// commands set, and the files it downloaded. A subshell works on a copy.
type state struct {
	vars     map[string]wordexp.Value
	exported map[string]bool
	fds      map[string]*input
	// funcs are the functions the line defines, by name; calling names those being read now.
	funcs   map[string]*syntax.Stmt
	calling map[string]bool
	// inFunc names the function whose body is being read.
	inFunc string
	// gitConfig are KEY=VALUE words earlier commands set for later git commands (git config,
	// exported GIT_CONFIG_* variables).
	gitConfig []guard.Word
	// downloads are the files a downloader wrote earlier in the line, by path as written; files are
	// the files the line wrote with text it knows (echo ... > x.sh). Both are the file system, so a
	// subshell shares them.
	downloads map[string]string
	files     map[string]*input
	// holds are what the files the line copies or archives into were made from (sources.go); the
	// file system too, so shared.
	holds map[string][]guard.Source
	// refs are declare -n names and the variable each stands for.
	refs map[string]string
	// forever is set in the body of a loop that never ends (while true).
	forever bool
	// ints are the variables declare -i made integers: a value assigned to one is arithmetic.
	ints map[string]bool
}

func newState() *state {
	return &state{vars: map[string]wordexp.Value{}, exported: map[string]bool{}, fds: map[string]*input{}, funcs: map[string]*syntax.Stmt{}, calling: map[string]bool{}, downloads: map[string]string{},
		files: map[string]*input{}, refs: map[string]string{}, ints: map[string]bool{}, holds: map[string][]guard.Source{}}
}

// clone is the copy a subshell or a child shell works on.
func (s *state) clone() *state {
	return &state{vars: maps.Clone(s.vars), exported: maps.Clone(s.exported), fds: maps.Clone(s.fds), funcs: maps.Clone(s.funcs), calling: maps.Clone(s.calling),
		inFunc: s.inFunc, gitConfig: slices.Clone(s.gitConfig), downloads: s.downloads, files: s.files, holds: s.holds, refs: maps.Clone(s.refs), forever: s.forever,
		ints: maps.Clone(s.ints)}
}

// sub is the scope of a subshell: the same place, a copy of the state.
func (s scope) sub() scope {
	s.st = s.st.clone()
	return s
}

func (s scope) with(via string) scope {
	s.via = append(slices.Clone(s.via), via)
	return s
}

// child is the scope of a string run by a new shell one level deeper (bash -c, eval, an alias).
func (s scope) child(via []string, how string) scope {
	s.via = append(slices.Clone(via), how)
	s.depth++
	s.stdin = nil
	s.fds = nil
	s.piped, s.background = false, false
	return s
}

// set records a variable the line assigns; special names change how later words read.
func (s *state) set(name string, v wordexp.Value) {
	if len(s.vars) >= maxVars && !hasKey(s.vars, name) {
		return
	}
	s.vars[name] = v
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// maxVars bounds the variables one line may track; later ones are read as unknown.
const maxVars = 256

// lookup is a variable's value when the line set it (through declare -n names too). $0, $SHELL
// and $BASH, when the line did not set them, are the shell running it.
func (s *state) lookup(name string) (wordexp.Value, bool) {
	for i := 0; i < 8; i++ {
		target, ok := s.refs[name]
		if !ok {
			break
		}
		name = target
	}
	v, ok := s.vars[name]
	if !ok && (name == "0" || name == "SHELL" || name == "BASH") {
		return wordexp.Value{Words: []guard.Word{guard.Lit("bash")}}, true
	}
	if !ok && name == "PPID" {
		// the shell's parent, the agent's harness: named so a rule can say so
		return wordexp.Value{Words: []guard.Word{guard.Lit("$PPID")}}, true
	}
	return v, ok
}

// ifs is the field separators: the line's IFS when it set one, else space, tab and newline.
func (s *state) ifs() (string, bool) {
	v, ok := s.vars["IFS"]
	if !ok || len(v.Words) == 0 {
		return " \t\n", true
	}
	t, known := v.Words[0].Text()
	return t, known
}

// exportedEnv is the variables the line exported, as a command's environment.
func (s *state) exportedEnv() []guard.Assign {
	if len(s.exported) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(s.exported))
	var out []guard.Assign
	for _, n := range names {
		if !s.exported[n] {
			continue
		}
		w := guard.Word{Parts: []guard.Part{{Hole: true, Var: n}}}
		if v, ok := s.vars[n]; ok && len(v.Words) > 0 {
			w = v.Words[0]
		}
		out = append(out, guard.Assign{Name: n, Value: w})
	}
	return out
}

// assign reads one NAME=value (or NAME=(array)) and records it.
func (w *walker) assign(a *syntax.Assign, sc scope) (guard.Assign, bool) {
	if a.Name == nil {
		w.substs(a, sc)
		return guard.Assign{}, false
	}
	name := a.Name.Value
	if a.Index != nil {
		// a[$(cmd)]=x: the subscript is arithmetic, and runs what it holds
		w.substs(a.Index, sc)
		w.arithNames(a.Index, sc)
	}
	switch {
	case a.Array != nil:
		var elems []guard.Word
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				w.substs(e.Index, sc)
			}
			if e.Value != nil {
				for _, f := range w.fields(e.Value, sc) {
					elems = append(elems, wordexp.ExpandTilde(f))
				}
			}
		}
		if a.Index == nil {
			sc.st.set(name, wordexp.Value{Words: elems, Array: true})
		}
		return guard.Assign{Name: name, Value: wordexp.Join(elems)}, true
	case a.Naked:
		return guard.Assign{Name: name, Value: guard.Word{Parts: []guard.Part{{Hole: true, Var: name}}}}, true
	}
	v := guard.Lit("")
	if a.Value != nil {
		v = w.assignValue(a.Value, sc)
	}
	if a.Append {
		if old, ok := sc.st.lookup(name); ok && len(old.Words) > 0 {
			v = guard.Word{Parts: append(slices.Clone(old.Words[0].Parts), v.Parts...)}
		} else {
			v = guard.Word{Parts: append([]guard.Part{{Hole: true, Var: name}}, v.Parts...)}
		}
	}
	if a.Index == nil {
		sc.st.set(name, wordexp.Value{Words: []guard.Word{v}})
	}
	if t, known := v.Text(); known && sc.st.ints[name] {
		w.arith(t, sc, "declare -i "+name)
	}
	w.special(name, v, sc)
	return guard.Assign{Name: name, Value: v}, true
}

// assignValue reads the value of an assignment: no field splitting, and a leading ~ is home.
func (w *walker) assignValue(wd *syntax.Word, sc scope) guard.Word {
	return wordexp.ExpandTilde(w.word(wd, sc))
}

// special reads the variables whose value is code the shell runs later: PROMPT_COMMAND runs as a
// command, PS1 to PS4 are expanded (their $(...) run) each time they are shown, BASH_ENV and ENV
// name a file every later shell reads first.
func (w *walker) special(name string, v guard.Word, sc scope) {
	switch name {
	case "PROMPT_COMMAND":
		w.executed([]guard.Word{v}, sc, sc.via, "PROMPT_COMMAND")
	case "PS1", "PS2", "PS3", "PS4":
		w.prompt(v, sc, name)
	case "BASH_ENV", "ENV":
		w.sourced(v, sc, sc.via, name)
	default:
		if strings.HasPrefix(name, "BASH_FUNC_") {
			// an exported function's body, run when a later bash calls it
			body := strings.TrimSpace(wordexp.Source(v))
			w.executed([]guard.Word{guard.Lit(strings.TrimPrefix(body, "()"))}, sc, sc.via, name)
		}
	}
}
