package shell

import (
	"slices"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// wrap is how a program runs another command given after its own words: `nice -n 5 rm -rf ~` runs
// rm. The guard reads past it to the command it runs. Each entry is exercised by a test that puts
// rm -rf ~ behind it (wrappers_test.go), so an entry that stops reading through is caught.
type wrap struct {
	// values are its options that take a value (-u user, --chdir=dir); two are options that take two
	// (bwrap --bind SRC DEST).
	values []string
	two    []string
	// skip is how many words after its options come before the command (timeout's duration,
	// chroot's new root, flock's lock file, gosu's user).
	skip int
	// stop are options after which it runs no command (sudo -l, taskset -p, strace -p).
	stop []string
	// str are options whose value is a command string a shell runs (flock -c, nix-shell --run).
	str []string
	// dir are options whose value is the folder the command runs in (env -C, sudo -D).
	dir []string
	// joined: its remaining words are joined with spaces and run by a shell (watch, ssh).
	joined bool
	// sub is the subcommand word it takes first, when it is a wrapper only under it (npm exec).
	sub []string
	// noCmd: its operands are not a command; it runs one only through its str options.
	noCmd bool
	// untilDash: the command follows the first -- after its options (chamber exec svc -- cmd).
	untilDash bool
	// after are options after which the rest of the words are the command it runs (gdb --args,
	// xterm -e); with after set, it runs no command without one of them.
	after []string
	// shell: the words after its options are arguments to bash (capsh -- -c 'cmd').
	shell bool
}

// wrappers is the maintained list of programs that run their argument as a command. Programs with
// handling of their own are read elsewhere: sudo, env, coreutils and start-stop-daemon below;
// xargs, find and fd in xargs.go; git in git.go; the shells, su, ssh, parallel and the rest in
// exec.go.
var wrappers = sync.OnceValue(func() map[string]wrap {
	return map[string]wrap{
		"nice":                {values: []string{"-n", "--adjustment"}},
		"nohup":               {},
		"setsid":              {},
		"unbuffer":            {},
		"caffeinate":          {values: []string{"-t", "-w"}},
		"catchsegv":           {},
		"nocache":             {},
		"eatmydata":           {},
		"fakechroot":          {values: []string{"-l", "--lib", "-d", "--elfloader", "-s", "--use-system-libs", "-e", "--environment", "-c", "--config-dir"}},
		"fakeroot":            {values: []string{"-l", "--lib", "--faked", "-s", "-i", "-b"}},
		"torsocks":            {values: []string{"-u", "-p", "-a", "-P", "--user", "--pass", "--address", "--port"}},
		"tsocks":              {},
		"proxychains":         {values: []string{"-f"}},
		"proxychains4":        {values: []string{"-f"}},
		"dbus-run-session":    {values: []string{"--config-file", "--dbus-daemon"}},
		"dbus-launch":         {values: []string{"--config-file", "--autolaunch"}},
		"xvfb-run":            {values: []string{"-n", "--server-num", "-s", "--server-args", "-e", "--error-file", "-f", "--auth-file", "-w", "--wait", "-p", "--xauth-protocol"}},
		"tini":                {values: []string{"-p", "-e"}},
		"dumb-init":           {values: []string{"-r", "--rewrite"}},
		"stdbuf":              {values: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
		"ionice":              {values: []string{"-c", "-n", "--class", "--classdata"}, stop: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
		"timeout":             {values: []string{"-s", "-k", "--signal", "--kill-after"}, skip: 1},
		"time":                {values: []string{"-f", "-o", "--format", "--output"}},
		"chroot":              {values: []string{"--userspec", "--groups"}, skip: 1},
		"taskset":             {stop: []string{"-p", "--pid"}, skip: 1},
		"chrt":                {values: []string{"-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"}, stop: []string{"-p", "--pid", "-m", "--max"}, skip: 1},
		"flock":               {values: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, str: []string{"-c", "--command"}, skip: 1},
		"strace":              {values: []string{"-o", "-e", "-s", "-a", "-b", "-u", "-I", "-O", "-P", "-S", "-X", "-E", "-U", "--output", "--string-limit", "--trace", "--signal", "--status", "--user", "--env", "--columns", "--summary-columns", "--trace-path"}, stop: []string{"-p", "--attach"}},
		"ltrace":              {values: []string{"-o", "-e", "-s", "-n", "-u", "-a", "-l", "-L", "-x", "-w", "-F", "-A", "-D", "--output", "--library", "--indent", "--align"}, stop: []string{"-p"}},
		"valgrind":            {values: []string{"--tool", "--log-file", "--log-fd", "--suppressions"}},
		"unshare":             {values: []string{"-S", "--setuid", "-G", "--setgid", "--propagation", "-R", "--root", "-t", "--time"}, dir: []string{"-w", "--wd"}},
		"nsenter":             {values: []string{"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-Z"}, dir: []string{"-w", "--wd"}},
		"systemd-run":         {values: []string{"-u", "--unit", "-p", "--property", "-E", "--setenv", "--uid", "--gid", "--description", "--slice", "-M", "--machine", "-H", "--host", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--on-clock-change", "--path-property", "--socket-property", "--timer-property", "--nice", "--service-type"}, dir: []string{"--working-directory"}},
		"firejail":            {values: []string{"--profile", "--name", "--private"}},
		"bwrap":               {values: []string{"--uid", "--gid", "--hostname", "--tmpfs", "--proc", "--dev", "--dir", "--remount-ro", "--unsetenv", "--lock-file", "--sync-fd", "--info-fd", "--json-status-fd", "--userns", "--userns2", "--pidns", "--seccomp", "--add-seccomp-fd", "--exec-label", "--file-label", "--block-fd", "--userns-block-fd", "--cap-add", "--cap-drop", "--perms", "--size", "--args", "--argv0"}, two: []string{"--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try", "--symlink", "--setenv", "--chmod", "--file", "--bind-data", "--ro-bind-data", "--overlay-src"}, dir: []string{"--chdir"}},
		"proot":               {values: []string{"-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-q", "--qemu", "-k", "--kernel-release"}, dir: []string{"-w", "--cwd"}},
		"trickle":             {values: []string{"-d", "-u", "-w", "-t", "-l", "-n"}},
		"cpulimit":            {values: []string{"-l", "--limit", "-c", "--cpu"}, stop: []string{"-p", "--pid", "-e", "--exe", "-P", "--path"}},
		"rlwrap":              {values: []string{"-a", "-b", "-C", "-D", "-e", "-f", "-g", "-H", "-l", "-O", "-p", "-P", "-q", "-s", "-S", "-t", "-w", "-z"}},
		"pkexec":              {values: []string{"--user"}},
		"gosu":                {skip: 1},
		"su-exec":             {skip: 1},
		"chpst":               {values: []string{"-u", "-U", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"}},
		"setpriv":             {values: []string{"--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"}},
		"prlimit":             {stop: []string{"-p", "--pid"}},
		"numactl":             {values: []string{"-C", "-N", "-m", "-p", "-i", "-P", "--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave"}},
		"cgexec":              {values: []string{"-g"}},
		"sem":                 {values: []string{"-j", "--jobs", "--id"}},
		"daemonize":           {values: []string{"-a", "-c", "-e", "-E", "-l", "-o", "-p", "-u"}},
		"command":             {stop: []string{"-v", "-V"}},
		"builtin":             {},
		"exec":                {values: []string{"-a"}},
		"nix-shell":           {values: []string{"-p", "--packages", "-I", "-A", "--attr", "--expr", "-E", "--pure", "--keep", "-k"}, two: []string{"--arg", "--argstr"}, str: []string{"--run", "--command"}, noCmd: true},
		"direnv":              {sub: []string{"exec"}, skip: 1},
		"npx":                 {values: []string{"-p", "--package"}, str: []string{"-c", "--call"}},
		"bunx":                {values: []string{"-p", "--package"}},
		"uvx":                 {values: []string{"--from", "--with", "-p", "--python"}},
		"pipx":                {sub: []string{"run"}, values: []string{"--spec", "--python"}},
		"npm":                 {sub: []string{"exec", "x"}, values: []string{"-p", "--package", "-w", "--workspace"}, str: []string{"-c", "--call"}},
		"pnpm":                {sub: []string{"exec", "dlx"}, values: []string{"-C", "--dir", "--filter"}, str: []string{"-c"}},
		"yarn":                {sub: []string{"exec", "dlx"}},
		"uv":                  {sub: []string{"run"}, values: []string{"--with", "-p", "--python", "--project", "--env-file", "--extra", "--group", "--package"}, dir: []string{"--directory"}},
		"poetry":              {sub: []string{"run"}},
		"pipenv":              {sub: []string{"run"}},
		"bundle":              {sub: []string{"exec"}},
		"rbenv":               {sub: []string{"exec"}},
		"pyenv":               {sub: []string{"exec"}},
		"asdf":                {sub: []string{"exec"}},
		"mise":                {sub: []string{"exec", "x"}, values: []string{"-C", "--cd", "-j", "--jobs"}},
		"conda":               {sub: []string{"run"}, values: []string{"-n", "--name", "-p", "--prefix"}, dir: []string{"--cwd"}},
		"micromamba":          {sub: []string{"run"}, values: []string{"-n", "--name", "-p", "--prefix"}},
		"op":                  {sub: []string{"run"}, values: []string{"--env-file"}},
		"doppler":             {sub: []string{"run"}, values: []string{"-p", "--project", "-c", "--config"}, str: []string{"--command"}},
		"infisical":           {sub: []string{"run"}, values: []string{"--env", "--projectId", "--path"}, str: []string{"--command"}},
		"aws-vault":           {sub: []string{"exec"}, skip: 1},
		"chamber":             {sub: []string{"exec"}, untilDash: true},
		"dotenv":              {values: []string{"-e", "-c", "-v"}},
		"dotenvx":             {sub: []string{"run"}, values: []string{"-f", "--env-file"}},
		"env-cmd":             {values: []string{"-f", "--file", "-e", "--environments", "-r", "--rc-file"}},
		"nodemon":             {values: []string{"-w", "--watch", "-e", "--ext", "-i", "--ignore", "-d", "--delay", "-x"}, str: []string{"--exec"}},
		"cross-env":           {},
		"watch":               {values: []string{"-n", "--interval", "-d", "--differences", "-q", "--equexit"}, joined: true},
		"watchexec":           {values: []string{"-e", "--exts", "-w", "--watch", "-i", "--ignore", "-f", "--filter", "-d", "--debounce", "--delay-run", "-s", "--signal", "--shell", "-E", "--env", "--project-origin", "--workdir"}, joined: true},
		"busybox":             {},
		"toybox":              {},
		"sudoedit":            {},
		"chronic":             {},
		"ifne":                {},
		"tsp":                 {values: []string{"-L", "-D", "-W", "-N", "-E"}},
		"pueue":               {sub: []string{"add"}, values: []string{"-w", "--working-directory", "-d", "--delay", "-g", "--group", "-l", "--label", "-a", "--after", "-o", "--priority"}},
		"lckdo":               {values: []string{"-w", "-W"}, skip: 1},
		"entr":                {},
		"vipe":                {},
		"retry":               {values: []string{"-t", "--tries", "-d", "--delay"}},
		"faketime":            {values: []string{"-p", "--date-prog"}, skip: 1},
		"systemd-inhibit":     {values: []string{"--what", "--who", "--why", "--mode"}, stop: []string{"--list"}},
		"ssh-agent":           {values: []string{"-a", "-E", "-t", "-P", "-O"}, stop: []string{"-k", "-D", "-d"}},
		"dtach":               {values: []string{"-A", "-c", "-n", "-N", "-e", "-r", "-E"}, stop: []string{"-a", "-p"}},
		"abduco":              {values: []string{"-c", "-n", "-A", "-e"}, stop: []string{"-a", "-l"}},
		"setuidgid":           {skip: 1},
		"envuidgid":           {skip: 1},
		"s6-setuidgid":        {skip: 1},
		"s6-envuidgid":        {skip: 1},
		"s6-applyuidgid":      {values: []string{"-u", "-g", "-G"}},
		"softlimit":           {values: []string{"-m", "-a", "-d", "-o", "-p", "-f", "-c", "-r", "-t", "-l", "-s"}},
		"runcon":              {values: []string{"-u", "--user", "-r", "--role", "-t", "--type", "-l", "--range"}},
		"perf":                {sub: []string{"stat", "record", "trace", "kvm", "sched", "lock", "mem", "c2c"}, values: []string{"-e", "--event", "-o", "--output", "-r", "--repeat", "-C", "--cpu", "-G", "--cgroup", "-F", "--freq", "-c", "--count", "--call-graph", "-I", "--interval-print", "-x", "--field-separator", "-D", "--delay", "-m", "--mmap-pages", "--filter", "-M", "--metrics"}, stop: []string{"-p", "--pid", "-t", "--tid", "-i", "--input", "report", "script"}},
		"gdb":                 {after: []string{"--args", "-args"}},
		"lldb":                {after: []string{"--"}},
		"xterm":               {values: []string{"-T", "-title", "-n", "-geometry", "-g", "-fa", "-fs", "-fn", "-bg", "-fg", "-class", "-name"}, after: []string{"-e"}},
		"uxterm":              {after: []string{"-e"}},
		"urxvt":               {after: []string{"-e"}},
		"rxvt":                {after: []string{"-e"}},
		"st":                  {after: []string{"-e"}},
		"alacritty":           {after: []string{"-e", "--command"}},
		"konsole":             {after: []string{"-e"}},
		"gnome-terminal":      {values: []string{"--title", "-t", "--geometry", "--profile", "--role"}, str: []string{"-e", "--command"}, after: []string{"--", "-x", "--execute"}},
		"mate-terminal":       {str: []string{"-e", "--command"}, after: []string{"-x", "--execute"}},
		"xfce4-terminal":      {str: []string{"-e", "--command"}, after: []string{"-x", "--execute"}},
		"terminator":          {str: []string{"-e", "--command"}, after: []string{"-x", "--execute"}},
		"tilix":               {str: []string{"-e", "--command"}},
		"lxterminal":          {str: []string{"-e", "--command"}},
		"kitty":               {values: []string{"-c", "--config", "-o", "--override", "--class", "--name", "-T", "--title", "--session", "--listen-on", "--start-as", "--instance-group"}, dir: []string{"-d", "--directory"}},
		"foot":                {values: []string{"-c", "--config", "-o", "--override", "-T", "--title", "-a", "--app-id", "-w", "--window-size-pixels", "-W", "--window-size-chars"}, dir: []string{"-D", "--working-directory"}},
		"wezterm":             {sub: []string{"start"}, values: []string{"--class", "--workspace", "--position", "--domain"}, dir: []string{"--cwd"}},
		"machinectl":          {sub: []string{"shell"}, values: []string{"--uid", "-E", "--setenv", "-M", "--machine"}, skip: 1},
		"capsh":               {shell: true},
		"run0":                {values: []string{"-u", "--user", "-g", "--group", "--nice", "--setenv", "--property", "--unit", "--description", "--slice", "--slice-inherit", "--machine", "--background"}, dir: []string{"-D", "--chdir"}},
		"please":              {values: []string{"-u", "--target", "-g", "--group"}, dir: []string{"-d", "--dir"}},
		"flatpak-spawn":       {values: []string{"--env", "--unset-env", "--forward-fd", "--sandbox-expose", "--sandbox-expose-ro", "--sandbox-flag", "--app-path", "--usr-path"}, dir: []string{"--directory"}},
		"distrobox-host-exec": {},
		"host-spawn":          {values: []string{"-cwd", "-env"}},
		"toolbox":             {sub: []string{"run"}, values: []string{"-c", "--container", "-r", "--release", "-d", "--distro"}},
		"distrobox":           {sub: []string{"enter"}, values: []string{"-n", "--name", "-a", "--additional-flags"}, untilDash: true},
		"podman":              {sub: []string{"unshare"}},
		"buildah":             {sub: []string{"unshare"}},
		"sudo-rs":             {values: []string{"-u", "--user", "-g", "--group"}, dir: []string{"-D", "--chdir"}},
	}
})

// cmdStrings are programs whose operands are each a shell command string they run (concurrently
// 'npm:a' 'rm -rf x', entr -s 'make test').
var cmdStrings = map[string][]string{
	"hyperfine":    {"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M", "--max-runs", "-S", "--shell", "-n", "--command-name", "--export-json", "--export-markdown", "--export-csv", "--export-asciidoc", "--export-orgmode", "-L", "--parameter-list", "--style", "-u", "--time-unit", "--output", "--input", "--sort", "-i", "--ignore-failure"},
	"concurrently": {"-n", "--names", "-c", "--prefix-colors", "-p", "--prefix", "-k", "--kill-others", "--restart-tries", "-s", "--success", "--max-processes", "-m"},
}

// unwrap reads a wrapper from the table: its options, the words before the command, and whether
// it runs a command string, no command at all, or the words after it.
func (w *walker) unwrap(c *cmdCall, base string, wr wrap) bool {
	rest := c.words[1:]
	if len(wr.after) > 0 {
		if cmd, ok := argv.After(rest, wr.after); ok {
			return len(cmd) > 0 && c.through(base, cmd)
		}
	}
	var done bool
	if rest, done = w.wrapOptions(c, base, wr, rest); done {
		return false
	}
	if len(wr.sub) > 0 {
		t, _ := argv.FirstText(rest)
		if !slices.Contains(wr.sub, t) {
			c.emit(w)
			return false
		}
		if rest, done = w.wrapOptions(c, base, wr, rest[1:]); done {
			return false
		}
	}
	if wr.shell {
		// capsh -- ARGS runs bash ARGS
		return len(rest) > 0 && c.through(base, append([]guard.Word{guard.Lit("bash")}, rest...))
	}
	if wr.noCmd || len(wr.after) > 0 {
		c.emit(w)
		return false
	}
	rest = rest[min(wr.skip, len(rest)):]
	// options may follow the words it skips (flock FILE -c 'cmd')
	if rest, done = w.wrapOptions(c, base, wr, rest); done {
		return false
	}
	if wr.untilDash {
		for len(rest) > 0 {
			t, _ := argv.FirstText(rest)
			rest = rest[1:]
			if t == "--" {
				break
			}
		}
	}
	if t, _ := argv.FirstText(rest); t == "--" {
		rest = rest[1:]
	}
	if wr.joined {
		w.executed(rest, c.sc, c.via, base)
		return false
	}

	if len(rest) == 0 {
		// nothing to run (exec 5<>/dev/tcp/...): the wrapper's own redirections still happen
		c.emit(w)
		return false
	}
	return c.through(base, rest)
}

// wrapOptions reads a wrapper's options; done is true when they settle what runs (an option that
// runs nothing, or a command string, which is followed here).
func (w *walker) wrapOptions(c *cmdCall, base string, wr wrap, rest []guard.Word) ([]guard.Word, bool) {
	for len(rest) > 0 {
		t, ok := rest[0].Text()
		if !ok || len(t) < 2 || t[0] != '-' {
			return rest, false
		}
		rest = rest[1:]
		if t == "--" {
			return rest, false
		}
		name, val, hasVal := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") && len(t) > 2 {
			name, val, hasVal = t[:2], t[2:], true
			if !slices.Contains(wr.values, name) && !slices.Contains(wr.str, name) && !slices.Contains(wr.dir, name) {
				hasVal = false // a cluster of flags
			}
		}
		value := func() (guard.Word, bool) {
			if hasVal {
				return guard.Lit(val), true
			}
			if len(rest) == 0 {
				return guard.Word{}, false
			}
			v := rest[0]
			rest = rest[1:]
			return v, true
		}
		switch {
		case slices.Contains(wr.stop, name):
			c.emit(w)
			return nil, true
		case slices.Contains(wr.str, name):
			if v, ok := value(); ok {
				c.emit(w)
				w.executed([]guard.Word{v}, c.sc, c.via, base+" "+name)
			}
			return nil, true
		case slices.Contains(wr.dir, name):
			if v, ok := value(); ok {
				c.sc.cd = append(slices.Clone(c.sc.cd), guard.CdStep{Target: v, Sure: true})
			}
		case slices.Contains(wr.two, name):
			if len(rest) >= 2 {
				rest = rest[2:]
			}
		case slices.Contains(wr.values, name):
			value()
		}
	}
	return rest, false
}

// Options that take a value, for the wrappers read here.
var (
	sudoValues = []string{"-u", "-g", "-h", "-p", "-C", "-r", "-t", "-T", "-U", "--user", "--group", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--close-from"}
	envValues  = []string{"-u", "--unset", "-S", "--split-string", "-C", "--chdir", "-P", "--default-signal", "--ignore-signal", "--block-signal"}
)

// leadingAssigns takes NAME=VALUE words (env and sudo accept them before the command).
func leadingAssigns(words []guard.Word) ([]guard.Word, []guard.Assign) {
	var env []guard.Assign
	for len(words) > 0 {
		p := words[0].Parts
		if len(p) == 0 || p[0].Hole {
			break
		}
		name, val, ok := strings.Cut(p[0].Text, "=")
		// a program's NAME=VALUE words may be quoted, and bash takes BASH_FUNC_name%% from its
		// environment as a function
		if !ok || !(wordexp.ValidName(name) || strings.HasPrefix(name, "BASH_FUNC_") && strings.HasSuffix(name, "%%")) {
			break
		}
		v := guard.Word{Parts: append([]guard.Part{{Text: val}}, p[1:]...)}
		env = append(env, guard.Assign{Name: name, Value: v})
		words = words[1:]
	}
	return words, env
}

// sudo runs its command as another user; -s and -i run the words through a shell, -e edits files.
func (w *walker) sudo(c *cmdCall) bool {
	rest, opts := argv.Skip(c.words[1:], sudoValues)
	for _, o := range []string{"-l", "--list", "-v", "--validate", "-k", "-K", "--reset-timestamp", "--remove-timestamp", "-V", "--version", "-h", "--help"} {
		if _, ok := opts[o]; ok && len(rest) == 0 {
			c.emit(w)
			return false
		}
	}
	rest = c.chdirAndAssign(opts, rest, "-D")
	if _, edit := argv.FirstOf(opts, "-e", "--edit"); edit {
		return c.through("sudo", append([]guard.Word{guard.Lit("sudoedit")}, rest...))
	}
	if _, sh := argv.FirstOf(opts, "-s", "--shell", "-i", "--login"); sh && len(rest) == 0 {
		// a shell reading its input: echo 'cmd' | sudo -s
		c.emit(w)
		if w.interactive(c, "sudo") {
			return false
		}
		w.runInput(c.sc.stdin, c.sc.sub().child(c.via, "sudo -s"), c.text)
		return false
	}
	// sudo -s cmd runs cmd through the shell with its words escaped: the same command
	return c.through("sudo", rest)
}

// chdirAndAssign applies a wrapper's change of folder (short, or --chdir) and the NAME=value words
// that lead its command, and returns the rest.
func (c *cmdCall) chdirAndAssign(opts map[string]guard.Word, rest []guard.Word, short string) []guard.Word {
	if d, ok := argv.FirstOf(opts, short, "--chdir"); ok {
		c.sc.cd = append(slices.Clone(c.sc.cd), guard.CdStep{Target: d, Sure: true})
	}
	rest, more := leadingAssigns(rest)
	c.env = append(c.env, more...)
	return rest
}

// env sets variables for its command, may clear them (-i), change folder (-C) or split a string
// into the command line (-S).
func (w *walker) env(c *cmdCall) bool {
	rest, opts := argv.Skip(c.words[1:], envValues)
	if _, clear := argv.FirstOf(opts, "-i", "--ignore-environment", "-"); clear {
		c.env = nil
	}
	before := len(c.env)
	rest = c.chdirAndAssign(opts, rest, "-C")
	for _, a := range c.env[before:] {
		// env PS4='$(...)' bash -x: the variables env sets are code as the shell's own are
		w.special(a.Name, a.Value, c.sc)
	}
	if split, ok := argv.FirstOf(opts, "-S", "--split-string"); ok {
		// env -S "cmd args" splits its string into the command line.
		w.executed(append([]guard.Word{split}, rest...), c.sc, c.via, "env -S")
		return false
	}
	if len(rest) == 0 {
		c.emit(w)
		return false
	}
	return c.through("env", rest)
}

// coreutils --coreutils-prog=rm runs the named program.
func (w *walker) coreutils(c *cmdCall) bool {
	for i, wd := range c.words[1:] {
		if t, ok := wd.Text(); ok {
			if prog, found := strings.CutPrefix(t, "--coreutils-prog="); found {
				return c.through("coreutils", append([]guard.Word{guard.Lit(prog)}, c.words[i+2:]...))
			}
		}
	}
	c.emit(w)
	return false
}

// startStop reads start-stop-daemon --start: the program of --exec (or --startas) runs with the
// words after --.
func (w *walker) startStop(c *cmdCall) bool {
	prog := argv.Values(c.words[1:], "--startas", "-a")
	if len(prog) == 0 {
		prog = argv.Values(c.words[1:], "--exec", "-x")
	}
	if len(prog) == 0 {
		c.emit(w)
		return false
	}
	var args []guard.Word
	for i, wd := range c.words {
		if t, _ := wd.Text(); t == "--" {
			args = c.words[i+1:]
			break
		}
	}
	return c.through("start-stop-daemon", append(prog[:1:1], args...))
}
