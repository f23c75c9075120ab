package shell

import (
	"maps"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// redirected is what a statement's redirections do: the files it writes, what feeds its standard
// input, and what each input descriptor it opens holds.
type redirected struct {
	out   []guard.Redirect
	stdin *input
	fds   map[string]*input
}

// redirects reads a statement's redirections: output targets, heredocs and here-strings, process
// substitutions read with <, and descriptors duplicated with <& (exec 3<<<'...'; bash <&3).
func (w *walker) redirects(rs []*syntax.Redirect, sc scope) redirected {
	var r redirected
	fds := sc.st.fds
	if sc.fds != nil {
		fds = sc.fds
	}
	set := func(n string, in *input) {
		if r.fds == nil {
			r.fds = maps.Clone(fds)
			if r.fds == nil {
				r.fds = map[string]*input{}
			}
		}
		r.fds[n] = in
	}
	get := func(n string) *input {
		if r.fds != nil {
			return r.fds[n]
		}
		return fds[n]
	}
	for _, rd := range rs {
		n := "0"
		if rd.N != nil {
			n = rd.N.Value
		}
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			r.out = append(r.out, guard.Redirect{Op: rd.Op.String(), Target: w.word(rd.Word, sc)})
		case syntax.DplOut:
			// >&word is a file when word is not a descriptor number or -
			t := w.word(rd.Word, sc)
			if s, ok := t.Text(); !ok || !isFD(s) {
				r.out = append(r.out, guard.Redirect{Op: rd.Op.String(), Target: t})
			}
		case syntax.Hdoc, syntax.DashHdoc:
			set(n, known(w.word(rd.Hdoc, sc)))
		case syntax.WordHdoc:
			body := w.word(rd.Word, sc)
			set(n, known(guard.Word{Parts: append(body.Parts, guard.Part{Text: "\n"})}))
		case syntax.DplIn:
			src := w.word(rd.Word, sc)
			if s, ok := src.Text(); ok && isFD(s) && s != "-" {
				set(n, get(s))
			}
		case syntax.RdrIn:
			src := w.word(rd.Word, sc)
			if in := w.fileInput(src, sc, nil); in != nil {
				set(n, in)
			} else {
				// a file the line did not write: its content is not known, only where it came from
				set(n, &input{unread: true, reads: []guard.Source{{File: src}}})
			}
		default:
			w.word(rd.Word, sc)
		}
	}
	if r.fds != nil {
		r.stdin = r.fds["0"]
	}
	return r
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// fileInput is what reading a file named on the line yields, when the line decides it: standard
// input (/dev/stdin, /dev/fd/0), another descriptor (/dev/fd/3), a process substitution's output,
// or a file downloaded earlier in the line. A file the line does not write is nil: the guard cannot
// read it.
func (w *walker) fileInput(wd guard.Word, sc scope, fds map[string]*input) *input {
	if len(wd.Parts) == 1 && wd.Parts[0].Hole && strings.HasPrefix(wd.Parts[0].From, "process substitution") || len(wd.Parts) == 1 && wd.Parts[0].Output != nil {
		p := wd.Parts[0]
		if p.Output != nil {
			return known(*p.Output)
		}
		return fromNames(strings.TrimPrefix(p.From, "process substitution"))
	}
	if len(wd.Parts) == 1 && wd.Parts[0].Hole && wd.Parts[0].From != "" {
		return nil
	}
	t, ok := wd.Text()
	if !ok {
		return nil
	}
	if fds == nil {
		fds = sc.st.fds
		if sc.fds != nil {
			fds = sc.fds
		}
	}
	switch {
	case t == "/dev/stdin" || t == "-":
		return orEmpty(sc.stdin)
	case strings.HasPrefix(t, "/dev/fd/"), strings.HasPrefix(t, "/proc/self/fd/"), strings.HasPrefix(t, "/proc/thread-self/fd/"):
		n := t[strings.LastIndexByte(t, '/')+1:]
		if n == "0" {
			return orEmpty(sc.stdin)
		}
		if in, ok := fds[n]; ok {
			return in
		}
		return fromNames("descriptor " + n)
	}
	if d, ok := sc.st.downloads[path.Clean(t)]; ok {
		return fromNames(d)
	}
	if in, ok := sc.st.files[path.Clean(t)]; ok {
		return in
	}
	return nil
}

func orEmpty(in *input) *input {
	if in == nil {
		return fromNames("stdin")
	}
	return in
}
