package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/interpreters"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// interpreter follows an interpreter's code: given with -c or -e, read from its input, or a file the
// line wrote (a download) or a process substitution.
func (w *walker) interpreter(c *cmdCall, base string) {
	c.emit(w)
	spec, _ := interpreters.Of(base)
	inner := c.sc.sub().child(c.via, base)
	rest := c.words[1:]
	if spec.Sub {
		if t, _ := argv.FirstText(rest); len(rest) > 0 && (t == "eval" || t == "run") {
			if t == "run" {
				rest = rest[1:]
			}
		} else {
			return
		}
	}
	var script *guard.Word
	for i := 0; i < len(rest); i++ {
		t, ok := rest[i].Text()
		if !ok || !strings.HasPrefix(t, "-") || t == "-" {
			if spec.Program || (spec.Sub && t == "eval") {
				if spec.Sub {
					i++
					if i >= len(rest) {
						return
					}
				}
				w.interpCode(rest[i], inner, base)
				return
			}
			script = &rest[i]
			break
		}
		if t == "--" {
			if i+1 < len(rest) {
				script = &rest[i+1]
			}
			break
		}
		name, val, joined := t[:min(2, len(t))], t[min(2, len(t)):], len(t) > 2 && !strings.HasPrefix(t, "--")
		if strings.HasPrefix(t, "--") {
			name, val, joined = strings.Cut(t, "=")
		}
		switch {
		case slices.Contains(spec.Stop, name):
			return
		case slices.Contains(spec.Code, name):
			if joined {
				w.interpCode(guard.Lit(val), inner, base)
			} else if i+1 < len(rest) {
				w.interpCode(rest[i+1], inner, base)
			}
			return
		case slices.Contains(spec.Values, name) && !joined:
			i++
		}
	}
	if script == nil {
		if onlyInteractive(rest) && w.interactive(c, base) {
			return
		}
		w.interpInput(c.sc.stdin, inner, base, c.text)
		return
	}
	if t, _ := script.Text(); t == "-" {
		w.interpInput(c.sc.stdin, inner, base, c.text)
		return
	} else if strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "http://") {
		// deno run https://...: code fetched from the network as it runs
		w.opaque(inner, c.text, "url")
		return
	}
	w.interpInput(w.fileInput(*script, c.sc, nil), inner, base, c.text)
}

// onlyInteractive is an interpreter's argument list that starts its REPL and nothing else: no words,
// or only the flags that ask for the REPL or quiet it.
func onlyInteractive(words []guard.Word) bool {
	for _, wd := range words {
		if t, _ := wd.Text(); t != "-i" && t != "-q" && t != "-u" && t != "--interactive" {
			return false
		}
	}
	return true
}

// interpInput reads code an interpreter gets from its input or a file. Known code is also recorded
// as the interpreter given that code (python3 -c CODE), so rules about what code touches see it.
func (w *walker) interpInput(in *input, sc scope, base, text string) {
	in = in.code()
	switch {
	case in == nil:
	case in.hasWord():
		w.emit(guard.Command{Name: guard.Lit(base), Args: []guard.Word{guard.Lit("-c"), in.word}, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Remote: sc.remote, Text: text})
		w.interpCode(in.word, sc, base)
	default:
		w.opaque(sc, text, in.from)
	}
}

// interpCode reads one piece of code for the shell commands it runs and the folders it removes.
func (w *walker) interpCode(code guard.Word, sc scope, base string) {
	if code.AllHole() {
		w.opaque(sc, base+" "+code.String(), holeFrom([]guard.Word{code}))
		return
	}
	src := wordexp.Source(code)
	if len(src) > maxOutput {
		src = text.Prefix(src, maxOutput)
	}
	read := interpreters.Read(base, src)
	for _, line := range read.Commands {
		if line == interpreters.UnknownCommand {
			// a shell-out or an eval of text the code builds as it runs (a variable, a decoded
			// string): the guard cannot read what it runs
			w.opaque(sc, base+" "+text.ClipAt(read.Source, maxEcho), base)
			continue
		}
		if _, err := parse(line); err != nil {
			// a string that is not shell (python's own exec("print(1)")): nothing the shell runs
			continue
		}
		w.line(line, sc)
		if w.refused != "" {
			return
		}
	}
	for _, f := range read.Written {
		sc.st.files[path.Clean(f)] = fromNames(base)
	}
}
