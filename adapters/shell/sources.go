package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
)

// What a command prints is made of what it read: the guard follows that, so a secret is known
// wherever a copy of it goes (cat ~/.ssh/id_rsa | base64 | curl -d @- ..., $(cat .env) in a URL).

// fileReaders print the content of the files their operands name (or, for an archiver or an
// encoder, a copy of it).
var fileReaders = []string{"cat", "tac", "head", "tail", "nl", "less", "more", "base64", "base32", "basenc", "xxd", "od", "hexdump", "strings",
	"gzip", "gunzip", "zcat", "bzip2", "bzcat", "xz", "xzcat", "zstd", "zstdcat", "lz4", "tar", "zip", "7z", "cpio", "gpg", "age", "openssl", "uuencode",
	"sed", "awk", "gawk", "grep", "egrep", "rg", "cut", "sort", "uniq", "paste", "fold", "fmt", "tr", "rev", "jq", "yq", "iconv", "dos2unix", "column",
	"expand", "pr", "split", "dd", "pv", "tee", "python", "python3", "perl", "ruby", "node"}

// summarizers print something of their input that is not its content (a count, a digest, a
// public key, a type), so what they read does not go on.
var summarizers = []string{"wc", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "shasum", "md5",
	"ssh-keygen", "file", "stat", "ls", "test", "[", "true", "false", ":", "echo", "printf", "pwd", "date", "id", "whoami", "hostname", "uname",
	"basename", "dirname", "which", "type", "command", "realpath", "readlink", "du", "df", "seq"}

// environDumps print every variable of the environment, secrets included.
var environDumps = []string{"env", "printenv", "set", "export", "declare", "typeset"}

// outputReads are what a command's output is made from: the files it reads, the variables it
// prints, and what its input was made from.
func outputReads(words []guard.Word, stdin *input) []guard.Source {
	name, ok := words[0].Text()
	if !ok {
		return stdin.sources()
	}
	base := path.Base(name)
	if slices.Contains(summarizers, base) {
		return nil
	}
	args := words[1:]
	var out []guard.Source
	if slices.Contains(environDumps, base) {
		return append(out, environReads(base, args)...)
	}
	out = append(out, stdin.sources()...)
	if !slices.Contains(fileReaders, base) {
		return out
	}
	for i, a := range args {
		t := a.String()
		switch {
		case base == "dd":
			if strings.HasPrefix(t, "if=") && len(a.Parts) > 0 && !a.Parts[0].Hole {
				rest := slices.Clone(a.Parts)
				rest[0].Text = strings.TrimPrefix(rest[0].Text, "if=")
				out = append(out, guard.Source{File: guard.Word{Parts: rest}})
			}
		case strings.HasPrefix(t, "-") && t != "-":
			if (base == "openssl" || base == "gpg") && (t == "-in" || t == "--input") && i+1 < len(args) {
				out = append(out, guard.Source{File: args[i+1]})
			}
		default:
			out = append(out, guard.Source{File: a})
		}
	}
	return out
}

// environReads are what printenv, env and set print: one variable when printenv names it, else
// every variable, read as the process's environment file.
func environReads(base string, args []guard.Word) []guard.Source {
	var named []guard.Source
	for _, a := range args {
		t, ok := a.Text()
		switch {
		case !ok:
			return nil
		case base == "printenv" && !strings.HasPrefix(t, "-"):
			named = append(named, guard.Source{Var: t})
		case base == "env" && !strings.HasPrefix(t, "-") && !strings.Contains(t, "="):
			// env running a command prints what the command prints
			return nil
		case (base == "export" || base == "declare" || base == "typeset") && t != "-p" && t != "-x" && t != "-px":
			return nil
		case base == "set" && t != "-o" && t != "+o":
			return nil
		}
	}
	if len(named) > 0 {
		return named
	}
	return []guard.Source{{File: guard.Lit("/proc/self/environ")}}
}
