package guard

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// Target is a place a command writes: a file it creates, changes, truncates, moves away or removes.
type Target struct {
	Word Word
	// Tree is a write that reaches everything under the place too: a recursive removal, a folder
	// moved away, a sync that deletes what the source lacks.
	Tree bool
	// Into is a write of names not known into the folder (a recursive copy, an archive unpacked).
	Into bool
}

// writer is how one command says what it writes: the options that take a value, and the targets
// read from its split words.
type writer struct {
	values  []string
	targets func(a args, cmd Command) []Target
}

// writers are the programs the guard knows to write the files their words name. A redirect (> f)
// is a write whatever the program; these are the rest. Each is exercised by a test.
var writers = sync.OnceValue(func() map[string]writer {
	return map[string]writer{
		"tee":      {nil, operands(false)},
		"sponge":   {nil, operands(false)},
		"truncate": {[]string{"-s", "--size", "-r", "--reference"}, operands(false)},
		"shred":    {[]string{"-n", "--iterations", "-s", "--size", "--random-source"}, operands(false)},
		"unlink":   {nil, operands(false)},
		"rmdir":    {nil, operands(false)},
		"rm":       {nil, recursive(operands, "-r", "-R", "--recursive")},
		"srm":      {nil, recursive(operands, "-r", "-R", "--recursive")},
		"rimraf":   {nil, operands(true)},
		"cp":       {copyValues, copyTargets(false)},
		"mv":       {copyValues, copyTargets(true)},
		"install":  {[]string{"-g", "-m", "-o", "-t", "-S", "--group", "--mode", "--owner", "--target-directory", "--suffix", "--strip-program"}, copyTargets(false)},
		"ln":       {copyValues, linkTargets},
		"rsync":    {rsyncValues, rsyncTargets},
		"scp":      {[]string{"-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X", "-D"}, scpTargets},
		"dd":       {nil, ddTargets},
		"dcfldd":   {nil, ddTargets},
		"dc3dd":    {nil, ddTargets},
		"ddrescue": {[]string{"-b", "--sector-size", "-c", "--cluster-size", "-i", "--input-position", "-o", "--output-position", "-s", "--size", "-m", "--domain-mapfile", "-K", "--skip-size", "-r", "--retry-passes"}, secondOperand},
		"sed":      {[]string{"-e", "--expression", "-f", "--file", "-l", "--line-length"}, sedTargets},
		"perl":     {[]string{"-e", "-E", "-I", "-M", "-m", "-x", "-C", "-F", "-l", "-0"}, inPlaceTargets},
		"ruby":     {[]string{"-e", "-I", "-r", "-E", "-C", "-F", "-x", "-0", "-T"}, inPlaceTargets},
		"curl":     {curlValues, curlTargets},
		"wget":     {wgetValues, wgetTargets},
		"tar":      {[]string{"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b", "--blocking-factor", "-H", "--format", "-I", "--use-compress-program", "--transform", "--exclude"}, tarTargets},
		"unzip":    {[]string{"-d", "-x", "-P"}, unzipTargets},
		"sort":     {[]string{"-o", "--output", "-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T", "--temporary-directory"}, optionTargets("-o", "--output")},
		"openssl":  {nil, wordAfter("-out")},
		"xxd":      {[]string{"-c", "-g", "-l", "-o", "-s", "-n"}, secondOperand},
		"uniq":     {[]string{"-f", "-s", "-w"}, secondOperand},
		"yq":       {nil, inPlaceFlag("-i", "--inplace")},
		"sd":       {nil, afterFirst(false)},
		"crontab":  {[]string{"-u"}, crontabTargets},
		"aria2c":   {[]string{"-o", "--out", "-d", "--dir", "-i", "--input-file", "-x", "-s", "-j", "--max-connection-per-server", "--split"}, aria2Targets},
		"go":       {[]string{"-o", "-C", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-overlay", "-pgo", "-buildmode", "-compiler", "-pkgdir", "-toolexec", "-exec"}, optionTargets("-o")},
	}
})

// editors write the files they open.
var editors = []string{"vi", "vim", "nvim", "gvim", "nano", "pico", "emacs", "emacsclient", "ed", "ex", "micro", "joe", "kak", "hx", "helix", "mcedit", "sudoedit", "vipw", "visudo"}

var (
	copyValues  = []string{"-t", "--target-directory", "-S", "--suffix"}
	rsyncValues = []string{"-e", "--rsh", "--rsync-path", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from",
		"--backup-dir", "--suffix", "-T", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest", "--log-file", "--password-file", "--port", "--chmod", "--chown", "-B", "--block-size", "--timeout", "--contimeout", "--max-size", "--min-size", "--bwlimit", "--partial-dir", "--info", "--debug", "--out-format", "--iconv", "--usermap", "--groupmap", "--sockopts", "--outbuf", "--skip-compress", "--max-delete", "--modify-window", "--compress-choice", "--checksum-choice", "--address", "--protocol", "--only-write-batch", "--write-batch", "--read-batch"}
	curlValues = []string{"-X", "--request", "-H", "--header", "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--json", "-o", "--output", "--output-dir", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-c", "--cookie-jar", "-F", "--form", "-T", "--upload-file", "-w", "--write-out", "-m", "--max-time", "--connect-timeout", "-x", "--proxy", "--url", "-K", "--config", "-r", "--range", "--retry", "--cacert", "--cert", "--key", "-E", "--resolve", "-Y", "-y", "--limit-rate", "--oauth2-bearer", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--libcurl"}
	wgetValues = []string{"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix", "-U", "--user-agent", "--header", "--method", "--body-data", "--body-file", "--post-data", "--post-file", "-t", "--tries", "-T", "--timeout", "-e", "--execute", "-i", "--input-file", "-B", "--base", "--user", "--password", "-l", "--level", "-A", "--accept", "-R", "--reject", "-D", "--domains", "-w", "--wait"}
)

// Writes lists the places cmd writes: its redirects, then what its program writes by its words.
func (r *Registry) Writes(cmd Command) []Target {
	var out []Target
	for _, rd := range cmd.Redirects {
		out = append(out, Target{Word: rd.Target})
	}
	base := cmd.Base()
	if slices.Contains(editors, base) {
		for _, w := range cmd.Args {
			if t, ok := w.Text(); ok && (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) {
				continue
			}
			out = append(out, Target{Word: w})
		}
		return out
	}
	switch base {
	case "git":
		g := r.getopt(cmd.Args, r.syntax["git"], true)
		return append(out, gitTargets(g.operands)...)
	case "find":
		// find -delete (or -exec rm {}) removes what it walks under its start points
		a := findArgs(cmd.Args)
		if a.has("-delete") || deletes(cmd.Args) {
			out = append(out, each(a.operands, true)...)
			// what it deletes ends in the name -name gives, in whatever folder it is found
			for i, w := range cmd.Args[:max(0, len(cmd.Args)-1)] {
				if t, ok := w.Text(); ok && (t == "-name" || t == "-iname") {
					if n, ok := cmd.Args[i+1].Text(); ok && !strings.ContainsAny(n, "*?[/") {
						out = append(out, Target{Word: Word{Parts: []Part{{Hole: true, From: "find"}, {Text: "/" + n}}}})
					}
				}
			}
		}
		// -fprint FILE and its kin write the list to FILE
		for i, w := range cmd.Args[:max(0, len(cmd.Args)-1)] {
			if t, ok := w.Text(); ok && (t == "-fprint" || t == "-fprint0" || t == "-fprintf" || t == "-fls") {
				out = append(out, Target{Word: cmd.Args[i+1]})
			}
		}
		return out
	}
	wr, ok := writers()[base]
	if !ok {
		return out
	}
	return append(out, wr.targets(r.getopt(cmd.Args, Syntax{Values: wr.values}, false), cmd)...)
}

func hasWord(ws []Word, names ...string) bool {
	for _, w := range ws {
		if t, ok := w.Text(); ok && slices.Contains(names, t) {
			return true
		}
	}
	return false
}

func firstWordText(ws []Word) (string, bool) {
	if len(ws) == 0 {
		return "", false
	}
	return ws[0].Text()
}

func (a args) has(names ...string) bool {
	return slices.ContainsFunc(a.opts, func(o opt) bool { return slices.Contains(names, o.name) })
}

func (a args) value(names ...string) (Word, bool) {
	for i := len(a.opts) - 1; i >= 0; i-- {
		if slices.Contains(names, a.opts[i].name) && a.opts[i].value != nil {
			return *a.opts[i].value, true
		}
	}
	return Word{}, false
}

func (a args) words() []Word { return append(slices.Clone(a.operands), a.unknown...) }

func operands(tree bool) func(args, Command) []Target {
	return func(a args, _ Command) []Target { return each(a.words(), tree) }
}

func afterFirst(tree bool) func(args, Command) []Target {
	return func(a args, _ Command) []Target {
		if a.has("--reference") {
			return each(a.words(), tree)
		}
		if len(a.operands) == 0 {
			return each(a.unknown, tree)
		}
		return each(append(slices.Clone(a.operands[1:]), a.unknown...), tree)
	}
}

// recursive is targets whose writes reach everything under each place when one of flags is given.
func recursive(targets func(bool) func(args, Command) []Target, flags ...string) func(args, Command) []Target {
	return func(a args, cmd Command) []Target { return targets(a.has(flags...))(a, cmd) }
}

func each(words []Word, tree bool) []Target {
	out := make([]Target, 0, len(words))
	for _, w := range words {
		out = append(out, Target{Word: w, Tree: tree})
	}
	return out
}

// Destination is where cp, mv, install, ln, rsync or scp put what they copy, and the sources it comes
// from; ok is false for another command or when there is none.
func (r *Registry) Destination(cmd Command) (dest Word, sources []Word, ok bool) {
	base := cmd.Base()
	wr, known := writers()[base]
	if !known || !slices.Contains([]string{"cp", "mv", "install", "ln", "rsync", "scp"}, base) {
		return Word{}, nil, false
	}
	a := r.getopt(cmd.Args, Syntax{Values: wr.values}, false)
	return destination(a)
}

func destination(a args) (Word, []Word, bool) {
	ops := a.words()
	if t, ok := a.value("-t", "--target-directory"); ok {
		return t, ops, true
	}
	if len(ops) < 2 {
		return Word{}, nil, false
	}
	return ops[len(ops)-1], ops[:len(ops)-1], true
}

// copyTargets are cp's, install's and mv's: the destination, and each source's name inside it
// (everything under it for a recursive copy); mv also takes each source away.
func copyTargets(move bool) func(args, Command) []Target {
	return func(a args, _ Command) []Target {
		dest, srcs, ok := destination(a)
		if !ok {
			return nil
		}
		tree := move || a.has("-r", "-R", "--recursive", "-a", "--archive")
		out := []Target{{Word: dest, Into: tree}}
		for _, s := range srcs {
			out = append(out, Target{Word: inside(dest, s), Tree: tree})
			if move {
				out = append(out, Target{Word: s, Tree: true})
			}
		}
		return out
	}
}

// inside is the path a copy of src gets in the folder dest: dest/base(src).
func inside(dest, src Word) Word {
	parts := slices.Clone(dest.Parts)
	if t, ok := src.Text(); ok {
		parts = append(parts, Part{Text: "/" + path.Base(t)})
		return Word{Parts: parts}
	}
	return Word{Parts: append(append(parts, Part{Text: "/"}), Part{Hole: true})}
}

func linkTargets(a args, _ Command) []Target {
	ops := a.words()
	if t, ok := a.value("-t", "--target-directory"); ok {
		var out []Target
		for _, s := range ops {
			out = append(out, Target{Word: inside(t, s)})
		}
		return out
	}
	switch len(ops) {
	case 0:
		return nil
	case 1:
		return []Target{{Word: inside(Lit("."), ops[0])}}
	}
	dest := ops[len(ops)-1]
	out := []Target{{Word: dest}}
	for _, s := range ops[:len(ops)-1] {
		out = append(out, Target{Word: inside(dest, s)})
	}
	return out
}

func rsyncTargets(a args, _ Command) []Target {
	dest, srcs, ok := destination(a)
	if !ok || isRemote(dest) {
		return nil
	}
	del := slices.ContainsFunc(a.opts, func(o opt) bool { return strings.HasPrefix(o.name, "--del") })
	out := []Target{{Word: dest, Tree: del, Into: !del}}
	if a.has("--remove-source-files") {
		out = append(out, each(srcs, true)...)
	}
	return out
}

func scpTargets(a args, _ Command) []Target {
	dest, srcs, ok := destination(a)
	if !ok || isRemote(dest) {
		return nil
	}
	out := []Target{{Word: dest, Into: a.has("-r")}}
	for _, s := range srcs {
		out = append(out, Target{Word: inside(dest, s)})
	}
	return out
}

// isRemote is an rsync or scp place on another host (host:path).
func isRemote(w Word) bool {
	t := w.prefix()
	i := strings.IndexByte(t, ':')
	return i > 0 && !strings.Contains(t[:i], "/")
}

func ddTargets(a args, _ Command) []Target {
	var out []Target
	for _, w := range a.words() {
		if len(w.Parts) > 0 && !w.Parts[0].Hole && strings.HasPrefix(w.Parts[0].Text, "of=") {
			rest := slices.Clone(w.Parts)
			rest[0].Text = strings.TrimPrefix(rest[0].Text, "of=")
			out = append(out, Target{Word: Word{Parts: rest}})
		}
	}
	return out
}

// sedTargets are the files sed -i edits: its operands after the script (the first operand when no
// -e or -f gives it).
func sedTargets(a args, _ Command) []Target {
	inPlace := slices.ContainsFunc(a.opts, func(o opt) bool {
		return o.name == "-i" || strings.HasPrefix(o.name, "--in-place") || o.name == "-I"
	})
	if !inPlace {
		return nil
	}
	files := a.words()
	if !a.has("-e", "--expression", "-f", "--file") && len(files) > 0 {
		files = files[1:]
	}
	return each(files, false)
}

// inPlaceTargets are the files perl -i or ruby -i edit.
func inPlaceTargets(a args, _ Command) []Target {
	if !a.has("-i") {
		return nil
	}
	files := a.words()
	if !a.has("-e", "-E") && len(files) > 0 {
		files = files[1:]
	}
	return each(files, false)
}

func inPlaceFlag(flags ...string) func(args, Command) []Target {
	return func(a args, _ Command) []Target {
		if !a.has(flags...) {
			return nil
		}
		files := a.words()
		if len(files) > 0 {
			files = files[1:]
		}
		return each(files, false)
	}
}

func optionTargets(names ...string) func(args, Command) []Target {
	return func(a args, _ Command) []Target {
		var out []Target
		for _, o := range a.opts {
			if slices.Contains(names, o.name) && o.value != nil {
				out = append(out, Target{Word: *o.value})
			}
		}
		return out
	}
}

func wordAfter(option string) func(args, Command) []Target {
	return func(_ args, cmd Command) []Target {
		for i, w := range cmd.Args {
			if t, ok := w.Text(); ok && t == option && i+1 < len(cmd.Args) {
				return []Target{{Word: cmd.Args[i+1]}}
			}
		}
		return nil
	}
}

func secondOperand(a args, _ Command) []Target {
	if len(a.operands) < 2 {
		return nil
	}
	return []Target{{Word: a.operands[1]}}
}

// curlTargets are where curl saves: -o FILE, -O (the URL's last segment, in --output-dir), and the
// header, cookie and trace files it is told to write.
func curlTargets(a args, _ Command) []Target {
	out := optionTargets("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--libcurl", "--stderr")(a, Command{})
	if a.has("-O", "--remote-name", "--remote-name-all") {
		dir, _ := a.value("--output-dir")
		for _, u := range a.words() {
			out = append(out, Target{Word: remoteName(dir, u)})
		}
	}
	return out
}

// wgetTargets are where wget saves: -O FILE, or the URL's last segment in -P DIR (or here).
func wgetTargets(a args, _ Command) []Target {
	if doc, ok := a.value("-O", "--output-document"); ok {
		return append(optionTargets("-o", "--output-file", "-a", "--append-output")(a, Command{}), Target{Word: doc})
	}
	dir, _ := a.value("-P", "--directory-prefix")
	out := optionTargets("-o", "--output-file", "-a", "--append-output")(a, Command{})
	for _, u := range a.words() {
		out = append(out, Target{Word: remoteName(dir, u)})
	}
	return out
}

// remoteName is the file a download of url is saved as: its last path segment, in dir.
func remoteName(dir, url Word) Word {
	name := Word{Parts: []Part{{Hole: true}}}
	if t, ok := url.Text(); ok {
		t, _, _ = strings.Cut(t, "?")
		t, _, _ = strings.Cut(t, "#")
		if i := strings.LastIndexByte(t, '/'); i >= 0 && i < len(t)-1 && strings.Contains(t, "://") {
			name = Lit(t[i+1:])
		} else if !strings.Contains(t, "/") {
			name = Lit("index.html")
		}
	}
	if len(dir.Parts) == 0 {
		return name
	}
	return Word{Parts: append(append(slices.Clone(dir.Parts), Part{Text: "/"}), name.Parts...)}
}

// tarTargets are where tar unpacks (-C DIR, or here) and the archive it creates.
func tarTargets(a args, cmd Command) []Target {
	mode := ""
	for _, o := range a.opts {
		switch o.name {
		case "-x", "--extract", "--get":
			mode = "x"
		case "-c", "--create", "-r", "--append", "-u", "--update":
			mode = "c"
		}
	}
	if len(cmd.Args) > 0 {
		// the old style: tar xzf archive, its first word a cluster without a dash
		if t, ok := cmd.Args[0].Text(); ok && !strings.HasPrefix(t, "-") && strings.Trim(t, "AcdrtuxzjJvfpPkWOmMGSlhBiZ") == "" {
			switch {
			case strings.ContainsRune(t, 'x'):
				mode = "x"
			case strings.ContainsAny(t, "cru"):
				mode = "c"
			}
		}
	}
	switch mode {
	case "x":
		dir, ok := a.value("-C", "--directory")
		// the members named after the archive are written where they say (tar xf a.tar .abcd/guard.json)
		members := a.operands
		if len(cmd.Args) > 0 && len(members) > 0 && members[0].String() == cmd.Args[0].String() {
			members = members[1:]
			if t, _ := cmd.Args[0].Text(); strings.ContainsRune(t, 'f') && len(members) > 0 {
				members = members[1:]
			}
		}
		out := under(dir, ok, members)
		if ok {
			out = append(out, Target{Word: dir, Into: true})
		}
		return out
	case "c":
		if f, ok := a.value("-f", "--file"); ok {
			return []Target{{Word: f}}
		}
	}
	return nil
}

func unzipTargets(a args, _ Command) []Target {
	d, ok := a.value("-d")
	var out []Target
	if len(a.operands) > 1 {
		// the members named after the archive are written where they say
		out = under(d, ok, a.operands[1:])
	}
	if ok {
		out = append(out, Target{Word: d, Into: true})
	}
	return out
}

// under is the targets of archive members written into dir (or the folder the command runs in).
func under(dir Word, inDir bool, members []Word) []Target {
	out := make([]Target, 0, len(members))
	for _, m := range members {
		if t, ok := m.Text(); ok && strings.HasPrefix(t, "-") {
			continue
		}
		if inDir {
			m = Word{Parts: append(append(slices.Clone(dir.Parts), Part{Text: "/"}), m.Parts...)}
		}
		out = append(out, Target{Word: m})
	}
	return out
}

func crontabTargets(a args, _ Command) []Target {
	if a.has("-l", "-e") && len(a.operands) == 0 {
		return nil
	}
	return []Target{{Word: Lit("/var/spool/cron/crontabs/user")}}
}

// gitTargets are the working-tree files a git command writes by naming them: checkout and restore
// of paths, rm, mv, and a config file named with -f.
func gitTargets(words []Word) []Target {
	if len(words) == 0 {
		return nil
	}
	sub, _ := words[0].Text()
	rest := words[1:]
	switch sub {
	case "checkout", "restore", "rm", "mv":
		if sub == "restore" && hasWord(rest, "--staged", "-S") && !hasWord(rest, "--worktree", "-W") {
			// git restore --staged only unstages: the working tree is left as it is
			return nil
		}
		paths, dashed := gitPaths(rest)
		if sub == "checkout" && !dashed {
			// git checkout <ref> <path>...: everything after the ref; a lone word that looks like a
			// path is one too.
			switch {
			case len(paths) > 1:
				paths = paths[1:]
			case len(paths) == 1 && (strings.Contains(paths[0].prefix(), "/") || strings.HasPrefix(paths[0].prefix(), ".")):
			default:
				paths = nil
			}
		}
		// a pathspec names a folder and everything under it as well as a file
		return each(paths, true)
	case "stash":
		// git stash push PATH puts the path back as it was committed
		if t, _ := firstWordText(rest); t == "push" || t == "save" {
			paths, _ := gitPaths(rest[1:])
			return each(paths, true)
		}
	case "config":
		for i, w := range rest {
			t, _ := w.Text()
			if (t == "-f" || t == "--file") && i+1 < len(rest) {
				return []Target{{Word: rest[i+1]}}
			}
			if v, ok := strings.CutPrefix(t, "--file="); ok {
				return []Target{{Word: Lit(v)}}
			}
		}
	}
	return nil
}

// gitPaths are a git command's operands (options set aside), and whether a -- came first.
func gitPaths(words []Word) ([]Word, bool) {
	var out []Word
	for i, w := range words {
		t, ok := w.Text()
		if ok && t == "--" {
			return append(out[:0], words[i+1:]...), true
		}
		if ok && strings.HasPrefix(t, "-") {
			continue
		}
		out = append(out, w)
	}
	return out, false
}

// downloaders save what they fetch from the network.
var downloaders = []string{"curl", "wget", "aria2c"}

// aria2Targets are where aria2c saves: -o NAME in -d DIR, or the URL's last segment.
func aria2Targets(a args, _ Command) []Target {
	dir, _ := a.value("-d", "--dir")
	if o, ok := a.value("-o", "--out"); ok {
		if len(dir.Parts) == 0 {
			return []Target{{Word: o}}
		}
		return []Target{{Word: Word{Parts: append(append(slices.Clone(dir.Parts), Part{Text: "/"}), o.Parts...)}}}
	}
	var out []Target
	for _, u := range a.words() {
		out = append(out, Target{Word: remoteName(dir, u)})
	}
	return out
}

// Saved are the files a downloader's command saves (curl -o, curl -O, wget, or its output
// redirected), so a line that runs one afterwards is known to run what it fetched.
func Saved(cmd Command) []Word {
	base := cmd.Base()
	if !slices.Contains(downloaders, base) {
		return nil
	}
	var out []Word
	for _, rd := range cmd.Redirects {
		out = append(out, rd.Target)
	}
	wr := writers()[base]
	var r Registry
	for _, t := range wr.targets(r.getopt(cmd.Args, Syntax{Values: wr.values}, false), cmd) {
		out = append(out, t.Word)
	}
	return out
}
