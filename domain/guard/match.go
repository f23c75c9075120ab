package guard

import (
	"slices"
	"strings"
)

// tri is a match that may rest on a value that cannot be known.
type tri int

const (
	no tri = iota
	maybe
	yes
)

// opt is one option as written: -r from -rf, --force from --forc=..., or any option at all when the
// word's text is unknown.
type opt struct {
	name  string
	value *Word
	any   bool
}

// args is a command's words split the way the command reads them.
type args struct {
	sub      []Word
	opts     []opt
	operands []Word
	// unknown are words whose text is unknown from their first character: options or operands.
	unknown []Word
	config  []Word
}

// split reads a command's words the way it does: global options and subs subcommand words for a
// command with subcommands, then options and operands by the longest syntax described for them.
func (r *Registry) split(base string, words []Word, subs int) (args, bool) {
	var a args
	rest := words
	top := r.syntax[base]
	body := Syntax{}
	if top.Style == "subcommand" {
		g := r.getopt(words, top, true)
		a.opts, a.unknown, a.config = g.opts, g.unknown, g.config
		rest = g.operands
	} else {
		body = top
	}
	if len(rest) < subs {
		return a, false
	}
	a.sub, rest = rest[:subs], rest[subs:]
	names := []string{base}
	for _, w := range a.sub {
		t, _ := w.Text()
		names = append(names, t)
	}
	for n := len(names); n > 1; n-- {
		if s, ok := r.syntax[strings.Join(names[:n], " ")]; ok {
			body = s
			break
		}
	}
	var b args
	if body.Style == "find" {
		b = findArgs(rest)
	} else {
		b = r.getopt(rest, body, false)
	}
	a.opts = append(a.opts, b.opts...)
	a.operands = b.operands
	a.unknown = append(a.unknown, b.unknown...)
	return a, true
}

// getopt reads options anywhere until -- (or, for global options, until the first operand, which
// is the subcommand and everything after it).
func (r *Registry) getopt(words []Word, syn Syntax, global bool) args {
	var a args
	for i := 0; i < len(words); i++ {
		w := words[i]
		t, known := w.Text()
		if !known {
			pre := w.prefix()
			switch {
			case strings.HasPrefix(pre, "--") && strings.Contains(pre, "=") && len(pre) > 3:
				// --name=$(...): the option is known, its value is not
				name, _, _ := strings.Cut(pre, "=")
				v := trimWord(w, len(name)+1)
				o := opt{name: resolveLong(name, syn), value: &v}
				a.opts = negate(a.opts, o, syn.Negate)
				if global && name == "--config-env" {
					a.config = append(a.config, v)
				}
			case strings.HasPrefix(pre, "-") && pre != "-":
				a.opts = append(a.opts, opt{name: pre, any: true})
			case pre == "" && w.AllHole():
				if global {
					a.operands = words[i:]
					return a
				}
				a.unknown = append(a.unknown, w)
			default:
				if global {
					a.operands = words[i:]
					return a
				}
				a.operands = append(a.operands, w)
			}
			continue
		}
		if t == "--" && !global {
			a.operands = append(a.operands, words[i+1:]...)
			return a
		}
		if t == "-" || !strings.HasPrefix(t, "-") {
			if global {
				a.operands = words[i:]
				return a
			}
			a.operands = append(a.operands, w)
			continue
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t, "=")
			name = resolveLong(name, syn)
			o := opt{name: name}
			switch {
			case hasVal:
				v := Lit(val)
				o.value = &v
			case slices.Contains(syn.Values, name) && i+1 < len(words):
				v := words[i+1]
				o.value = &v
				i++
			}
			a.opts = negate(a.opts, o, syn.Negate)
			if global && (name == "--config-env") && o.value != nil {
				a.config = append(a.config, *o.value)
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			o := opt{name: "-" + string(t[j])}
			if slices.Contains(syn.Values, o.name) {
				switch {
				case j+1 < len(t):
					v := Lit(t[j+1:])
					o.value = &v
				case i+1 < len(words):
					v := words[i+1]
					o.value = &v
					i++
				}
				a.opts = append(a.opts, o)
				if global && o.name == "-c" && o.value != nil {
					a.config = append(a.config, *o.value)
				}
				break
			}
			a.opts = append(a.opts, o)
		}
	}
	return a
}

// negate applies git's --no-X: the later of --X and --no-X wins.
func negate(opts []opt, o opt, abbrev bool) []opt {
	if abbrev {
		other := "--no-" + strings.TrimPrefix(o.name, "--")
		if rest, ok := strings.CutPrefix(o.name, "--no-"); ok {
			other = "--" + rest
		}
		opts = slices.DeleteFunc(opts, func(p opt) bool { return p.name == other })
	}
	return append(opts, o)
}

// resolveLong reads an abbreviated long option as the one option it can only mean, the way
// getopt_long and git's parser do; an ambiguous prefix stays as written (the command refuses it, so
// nothing runs).
func resolveLong(name string, syn Syntax) string {
	if !syn.Abbrev || len(syn.Long) == 0 || slices.Contains(syn.Long, name) {
		return name
	}
	cands := map[string]bool{}
	for _, l := range syn.Long {
		cands[l] = true
		if syn.Negate && !strings.HasPrefix(l, "--no-") {
			cands["--no-"+strings.TrimPrefix(l, "--")] = true
		}
	}
	if cands[name] {
		return name
	}
	var found string
	count := 0
	for c := range cands {
		if strings.HasPrefix(c, name) {
			found = c
			count++
		}
	}
	if count == 1 {
		return found
	}
	return name
}

// findArgs reads find: options -H -L -P -D x -Ox, start points, then an expression whose words are
// options matched whole (-delete, -exec).
func findArgs(words []Word) args {
	var a args
	i := 0
	for ; i < len(words); i++ {
		t, known := words[i].Text()
		if !known {
			break
		}
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") {
			continue
		}
		if t == "-D" {
			i++
			continue
		}
		break
	}
	for ; i < len(words); i++ {
		w := words[i]
		t, known := w.Text()
		if known && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == ",") {
			break
		}
		if !known && strings.HasPrefix(w.prefix(), "-") {
			break
		}
		a.operands = append(a.operands, w)
	}
	for ; i < len(words); i++ {
		w := words[i]
		t, known := w.Text()
		switch {
		case known && strings.HasPrefix(t, "-"):
			a.opts = append(a.opts, opt{name: t})
			if (t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir") && i+1 < len(words) && deletes(words[i+1:]) {
				// -exec rm {} deletes what find walks, as -delete does
				a.opts = append(a.opts, opt{name: "-delete"})
			}
		case !known && w.prefix() == "":
			a.unknown = append(a.unknown, w)
		}
	}
	return a
}

// removers are the programs that delete (or empty) the files find hands them.
var removers = []string{"rm", "rmdir", "unlink", "shred", "srm", "rimraf", "trash", "trash-put", "gio", "truncate"}

// emptiers are what a shell string does to empty the file it is given: removing it, or writing
// nothing over it.
var emptiers = []string{"rm ", "unlink ", "shred ", "truncate ", "> \"$1\"", ">\"$1\"", "> $1", ">$1", "> \"$0\"", "> $0", "> {}", ">{}", "> '{}'", "cp /dev/null "}

// deletes reports an -exec whose command removes or empties what it is given: rm {}, truncate -s0
// {}, cp /dev/null {}, dd of={}, or a shell whose string does one of those.
func deletes(words []Word) bool {
	for i, w := range words {
		t, ok := w.Text()
		if !ok || t == ";" || t == "+" {
			return false
		}
		if t == "sudo" || t == "command" || t == "env" || t == "nice" || strings.HasPrefix(t, "-") && i > 0 {
			continue
		}
		base := t[strings.LastIndexByte(t, '/')+1:]
		if slices.Contains(removers, base) {
			return true
		}
		switch base {
		case "mv", "cp":
			// mv {} /dev/null throws each file away; cp /dev/null {} empties it
			return slices.ContainsFunc(words[i+1:], func(x Word) bool { s, _ := x.Text(); return s == "/dev/null" })
		case "dd":
			return slices.ContainsFunc(words[i+1:], func(x Word) bool { s, _ := x.Text(); return strings.HasPrefix(s, "of=") && strings.Contains(s, "{}") })
		case "sh", "bash", "zsh", "dash":
			for _, x := range words[i+1:] {
				if s, ok := x.Text(); ok && slices.ContainsFunc(emptiers, func(e string) bool { return strings.Contains(s, e) }) {
					return true
				}
			}
		}
		return false
	}
	return false
}

func boolTri(b bool) tri {
	if b {
		return yes
	}
	return no
}

// validUser is a name ~name can expand (letters, digits, ., _ and -).
func validUser(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
