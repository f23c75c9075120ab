// Package interpreters reads code the interpreters run in their own language (python -c, perl -e,
// node -e, php -r, awk's program, Tcl, Emacs Lisp, an editor's Lua and Vim script): how each takes
// its code, and in that code the shell commands it hands to a shell (os.system, subprocess,
// execSync, system, backticks, do shell script), the folders it removes whole (shutil.rmtree,
// fs.rmSync, FileUtils.rm_rf, File::Path's rmtree, read as rm -rf) and the files it writes. The
// guard does not read those languages otherwise; adapters/shell reads what they run as the shell
// runs it.
package interpreters

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// table is the interpreters, by program name.
var table = sync.OnceValue(func() map[string]Spec {
	return map[string]Spec{
		"python":    {Code: []string{"-c"}, Values: []string{"-W", "-X", "-Q"}, Stop: []string{"-m"}},
		"pypy":      {Code: []string{"-c"}, Values: []string{"-W", "-X"}, Stop: []string{"-m"}},
		"perl":      {Code: []string{"-e", "-E"}, Values: []string{"-I", "-x", "-0", "-l", "-C", "-F", "-d", "-D", "-V"}},
		"ruby":      {Code: []string{"-e"}, Values: []string{"-I", "-r", "-E", "-C", "-F", "-x", "-0", "-T", "-W"}},
		"node":      {Code: []string{"-e", "--eval", "-p", "--print"}, Values: []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--env-file", "--title"}},
		"nodejs":    {Code: []string{"-e", "--eval", "-p", "--print"}, Values: []string{"-r", "--require", "--import"}},
		"deno":      {Code: []string{"eval"}, Values: []string{"--allow-read", "--allow-write", "--allow-run", "--allow-net", "--config", "-c", "--import-map"}, Sub: true},
		"bun":       {Code: []string{"-e", "--eval", "-p", "--print"}, Values: []string{"-r", "--preload", "--cwd", "--env-file"}},
		"php":       {Code: []string{"-r"}, Values: []string{"-c", "-d", "-z"}},
		"lua":       {Code: []string{"-e"}, Values: []string{"-l"}},
		"luajit":    {Code: []string{"-e"}, Values: []string{"-l", "-j", "-O"}},
		"Rscript":   {Code: []string{"-e"}, Values: []string{"--default-packages"}},
		"R":         {Code: []string{"-e"}, Values: []string{"-f", "--file", "-d", "--debugger"}},
		"osascript": {Code: []string{"-e"}, Values: []string{"-l", "-s"}},
		"julia":     {Code: []string{"-e", "--eval", "-E", "--print"}, Values: []string{"-J", "-L", "-p", "-t", "--project"}},
		"raku":      {Code: []string{"-e"}, Values: []string{"-I", "-M"}},
		"racket":    {Code: []string{"-e", "--eval"}, Values: []string{"-l", "-t", "-r"}},
		"guile":     {Code: []string{"-c"}, Values: []string{"-l", "-e", "-L"}},
		"elixir":    {Code: []string{"-e", "--eval"}, Values: []string{"-r", "-pa", "-pz"}},
		"groovy":    {Code: []string{"-e"}, Values: []string{"-cp", "--classpath"}},
		"tclsh":     {},
		"irb":       {},
		"jshell":    {},
		"awk":       {Values: []string{"-F", "-v", "--assign", "--field-separator"}, Program: true},
	}
})

// Spec is how an interpreter takes its code: options whose value is code, options that take a
// value, options after which it runs a module rather than code, a subcommand that takes the code
// (deno eval), or a program as its first operand (awk).
type Spec struct {
	Code, Values, Stop []string
	Sub                bool
	Program            bool
}

// Of is the interpreter a program name runs, its version suffix ignored (python3.12, php8.2,
// gawk).
func Of(base string) (Spec, bool) {
	if i, ok := table()[base]; ok {
		return i, true
	}
	trimmed := strings.TrimRightFunc(base, func(r rune) bool { return unicode.IsDigit(r) || r == '.' })
	if i, ok := table()[trimmed]; ok {
		return i, true
	}
	switch base {
	case "gawk", "mawk", "nawk", "busybox-awk":
		return table()["awk"], true
	case "python3", "python2", "pypy3":
		return table()["python"], true
	}
	return Spec{}, false
}

// Is reports a program that is an interpreter.
func Is(base string) bool {
	_, ok := Of(base)
	return ok
}

// Code is what one piece of code runs and writes, as far as its text tells.
type Code struct {
	// Source is the code as read: python's __import__('os') is read as os.
	Source string
	// Commands are the shell command lines it hands a shell, in order; UnknownCommand stands for
	// one whose text the code builds as it runs.
	Commands []string
	// Written are the files it opens for writing or writes whole, by a literal name.
	Written []string
}

// UnknownCommand marks a shell-out whose command the code builds at run time (a variable, a
// decoded string): what it runs cannot be read.
const UnknownCommand = "\x00unknown"

// importCall is python's __import__('os'), read as the module it names; compiled on first use, so
// abcd's start pays nothing for it.
var importCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`__import__\(\s*['"]([\w.]+)['"]\s*\)`) })

// Read reads code the interpreter base runs.
func Read(base, src string) Code {
	if strings.Contains(src, "__import__") {
		src = importCall().ReplaceAllString(src, "$1")
	}
	cmds := append(shellOuts(src), aliasedShellOuts(src)...)
	cmds = append(cmds, httpDeletes(src)...)
	if base == "tclsh" || base == "wish" || base == "jimsh" {
		cmds = append(cmds, tclExecs(src)...)
	}
	return Code{Source: src, Commands: cmds, Written: writtenFiles(src)}
}
