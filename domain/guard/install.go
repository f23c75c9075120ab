package guard

import (
	"path"
	"slices"
	"strings"
)

// selfNames are the programs abcd installs; an agent that replaces either replaces the guard's own
// hook (abcd) or what captures its history (abcd-history).
var selfNames = []string{"abcd", "abcd-history"}

// installsAbcd says whether cmd installs abcd over the one on the PATH: go install of a package
// whose program is abcd (./frontdoors/cmd/abcd, …/abcd@latest, go install . in its folder), or an
// install whose programs are not named (go install ./..., make install) in abcd's own repository.
// Whether a repository is abcd's is read from its folder's name, the one thing the guard knows of
// it without reading files: in any other repository such an install may be abcd's, so it rests on a
// value not known.
func (w where) installsAbcd(r *Registry, cmd Command) tri {
	switch cmd.Base() {
	case "go":
		a := r.getopt(cmd.Args, Syntax{Values: writers()["go"].values}, false)
		if t, _ := firstWordText(a.operands); t != "install" {
			return no
		}
		pkgs := a.operands[1:]
		if len(pkgs) == 0 {
			pkgs = []Word{Lit(".")}
		}
		best := no
		for _, p := range pkgs {
			best = max(best, w.installsSelf(p))
		}
		return best
	case "make", "gmake":
		a := r.getopt(cmd.Args, Syntax{Values: []string{"-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-j", "--jobs", "-l", "-o", "-W"}}, false)
		if !slices.ContainsFunc(a.operands, func(op Word) bool { t, _ := op.Text(); return t == "install" }) {
			return no
		}
		if dir, ok := a.value("-C", "--directory"); ok {
			if t, known := dir.Text(); known && slices.Contains(selfNames, path.Base(path.Clean(t))) {
				return yes
			}
		}
		return w.selfRepo()
	}
	return no
}

// installsSelf says whether go install of one package installs a program named abcd.
func (w where) installsSelf(pkg Word) tri {
	raw, ok := pkg.Text()
	if !ok {
		return maybe
	}
	raw, _, _ = strings.Cut(raw, "@")
	if raw == "all" || raw == "std" || raw == "cmd" {
		return no
	}
	if strings.HasSuffix(raw, "...") {
		if strings.Contains(raw, "frontdoors") {
			// abcd's programs live under frontdoors/cmd
			return yes
		}
		return w.selfRepo()
	}
	var name string
	if raw == "." || raw == ".." || strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") || strings.HasPrefix(raw, "/") {
		places := w.places(raw, false)
		if len(places) != 1 || places[0].place == "" {
			return maybe
		}
		name = path.Base(places[0].place)
	} else {
		name = path.Base(raw)
		if major := strings.TrimPrefix(name, "v"); major != name && strings.Trim(major, "0123456789") == "" {
			// example.com/abcd/v2: the program is named by the element before the major version
			name = path.Base(path.Dir(raw))
		}
	}
	if slices.Contains(selfNames, foldName(name)) {
		return yes
	}
	if raw == "." || raw == "./" {
		return no
	}
	return no
}

// selfRepo says whether the repository is abcd's: yes for a folder named abcd, else not known.
func (w where) selfRepo() tri {
	if w.repo != "" && foldName(path.Base(w.repo)) == "abcd" {
		return yes
	}
	return maybe
}

// Mounts are the host folders a container command gives the container: the host side of -v and
// --volume (a path, not a named volume), and the source of a --mount of type bind.
func Mounts(cmd Command) []Word {
	switch cmd.Base() {
	case "docker", "podman", "nerdctl":
	default:
		return nil
	}
	args := containerRun(cmd.Args)
	var out []Word
	for i := 0; i < len(args); i++ {
		t := args[i].prefix()
		var v Word
		switch {
		case (t == "-v" || t == "--volume" || t == "--mount") && len(args[i].Parts) == 1 && i+1 < len(args):
			i++
			v = args[i]
		case strings.HasPrefix(t, "--volume=") || strings.HasPrefix(t, "--mount="):
			v = trimWord(args[i], strings.IndexByte(t, '=')+1)
		case strings.HasPrefix(t, "-v") && len(t) > 2 && !strings.HasPrefix(t, "--"):
			v = trimWord(args[i], 2)
		default:
			continue
		}
		if strings.HasPrefix(t, "--mount") {
			if src, ok := bindSource(v); ok {
				out = append(out, src)
			}
			continue
		}
		host, sep, _, ok := cutWord(v, ":")
		if !ok || sep != ':' {
			continue
		}
		if p := host.prefix(); len(host.Parts) > 0 && !host.Parts[0].Hole && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, ".") {
			continue // a named volume
		}
		out = append(out, host)
	}
	return out
}

// bindSource is the src= (or source=) of a --mount of type bind.
func bindSource(v Word) (Word, bool) {
	var src Word
	bind, found := false, false
	rest := v
	for {
		field, sep, after, ok := cutWord(rest, ",")
		key, _, val, kv := cutWord(field, "=")
		if k, known := key.Text(); kv && known {
			switch strings.ToLower(k) {
			case "type":
				t, _ := val.Text()
				bind = t == "bind"
			case "src", "source":
				src, found = val, true
			}
		}
		if !ok || sep != ',' {
			break
		}
		rest = after
	}
	return src, bind && found
}

// containerRun is the words after a container CLI's run or create (container run, container
// create): nil for any other subcommand.
func containerRun(args []Word) []Word {
	for i := 0; i < len(args); i++ {
		t, known := args[i].Text()
		switch {
		case !known:
			return nil
		case t == "-H" || t == "--host" || t == "-c" || t == "--context" || t == "--config" || t == "-l" || t == "--log-level" || t == "--url" || t == "--connection":
			i++
		case strings.HasPrefix(t, "-"):
		case t == "container":
		case t == "run" || t == "create":
			return args[i+1:]
		default:
			return nil
		}
	}
	return nil
}

// installsService says whether cmd makes a service start by itself from now on, at every boot or
// login: systemctl enable (link, mask, edit, preset, ...) and launchctl load or bootstrap.
func installsService(cmd Command) tri {
	var verbs []string
	switch cmd.Base() {
	case "systemctl":
		verbs = []string{"enable", "reenable", "link", "preset", "preset-all", "mask", "edit", "add-wants", "add-requires", "set-property", "set-environment", "import-environment"}
	case "launchctl":
		verbs = []string{"load", "bootstrap", "enable", "submit", "setenv"}
	default:
		return no
	}
	for i := 0; i < len(cmd.Args); i++ {
		t, known := cmd.Args[i].Text()
		switch {
		case !known:
			return maybe
		case t == "-H" || t == "--host" || t == "-M" || t == "--machine" || t == "--root" || t == "-t" || t == "--type" || t == "-p" || t == "--property":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return boolTri(slices.Contains(verbs, t))
		}
	}
	return no
}
