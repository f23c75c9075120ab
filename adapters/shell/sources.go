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
	words = pastWrappers(words)
	if len(words) == 0 {
		return stdin.sources()
	}
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
	out = addReads(out, stdin.sources())
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

// outputWrappers run the command after them with its output theirs (sudo cat FILE).
var outputWrappers = []string{"sudo", "doas", "env", "nice", "nohup", "command", "builtin", "exec", "stdbuf", "ionice", "time", "timeout", "chronic"}

// pastWrappers drops the wrappers before the command whose output it is, with their options and
// assignments (and timeout's duration).
func pastWrappers(words []guard.Word) []guard.Word {
	for len(words) > 0 {
		name, ok := words[0].Text()
		if !ok || !slices.Contains(outputWrappers, path.Base(name)) {
			return words
		}
		base := path.Base(name)
		whole := words
		words = words[1:]
		for len(words) > 0 {
			t, ok := words[0].Text()
			if !ok || !strings.HasPrefix(t, "-") && !strings.Contains(t, "=") {
				break
			}
			words = words[1:]
			if t == "-u" || t == "-g" || t == "-n" || t == "-c" || t == "-s" || t == "-k" || t == "-o" || t == "-i" || t == "-e" {
				if base != "env" && len(words) > 0 {
					words = words[1:]
				}
			}
		}
		if base == "timeout" && len(words) > 0 {
			words = words[1:]
		}
		if len(words) == 0 {
			// env alone prints the environment: it is the command
			return whole
		}
	}
	return words
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

// maxHolds bounds the files a line is known to have written from others.
const maxHolds = 64

// stage records what the files a command writes are made from, when it copies or archives other
// files into them (cp, mv, install, ln, tar -c, zip, 7z a, gpg -o, openssl -out): sending the copy
// later is sending what it holds.
func stage(c *cmdCall, base string) {
	holds := c.sc.st.holds
	if len(holds) >= maxHolds {
		return
	}
	var dest string
	var srcs []guard.Word
	ops, values := operandsOf(c.words[1:], stageValues[base])
	switch base {
	case "cp", "mv", "install", "ln", "rsync", "scp":
		if t, ok := values["-t"]; ok {
			dest, srcs = t, ops
		} else if len(ops) >= 2 {
			dest, _ = ops[len(ops)-1].Text()
			srcs = ops[:len(ops)-1]
		}
	case "tar", "bsdtar":
		if f, ok := values["-f"]; ok {
			dest, srcs = f, ops
		} else if len(ops) >= 2 && strings.Trim(ops[0].String(), "AcdrtuxzjJvfpPkWOmMGSlhBiZ") == "" && strings.ContainsRune(ops[0].String(), 'f') {
			// the old style: tar czf ARCHIVE FILES...
			dest, _ = ops[1].Text()
			srcs = ops[2:]
		}
	case "zip":
		if len(ops) >= 2 {
			dest, _ = ops[0].Text()
			srcs = ops[1:]
		}
	case "7z", "7za":
		if len(ops) >= 3 && ops[0].String() == "a" {
			dest, _ = ops[1].Text()
			srcs = ops[2:]
		}
	case "gpg", "openssl":
		if o, ok := values["-o"]; ok {
			dest = o
		} else if o, ok := values["-out"]; ok {
			dest = o
		}
		srcs = ops
		if in, ok := values["-in"]; ok {
			srcs = append(srcs, guard.Lit(in))
		}
	}
	if dest == "" || dest == "-" || len(srcs) == 0 {
		return
	}
	for _, s := range srcs {
		holds[path.Clean(dest)] = append(holds[path.Clean(dest)], guard.Source{File: s})
	}
}

// stageValues are the options that take a value of the commands stage reads, the ones whose value
// it needs kept by their short name.
var stageValues = map[string][]string{
	"cp": {"-t", "--target-directory", "-S", "--suffix"}, "mv": {"-t", "--target-directory", "-S", "--suffix"},
	"install": {"-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S"}, "ln": {"-t", "--target-directory", "-S"},
	"rsync": {"-e", "--rsh", "--exclude", "--include", "--filter", "-f"}, "scp": {"-P", "-i", "-o", "-F", "-J", "-l", "-c"},
	"tar": {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "--exclude", "-I"}, "bsdtar": {"-f", "--file", "-C"},
	"zip": {"-P", "--password", "-x", "-i", "-b"}, "gpg": {"-o", "--output", "-r", "--recipient", "-u", "--local-user"},
	"openssl": {"-out", "-in", "-pass", "-k", "-md"},
}

// longNames are the short names stage keeps an option's value under.
var longNames = map[string]string{"--target-directory": "-t", "--file": "-f", "--output": "-o"}

// operandsOf splits words into operands and the known values of the options listed (by their short
// name).
func operandsOf(words []guard.Word, values []string) ([]guard.Word, map[string]string) {
	var ops []guard.Word
	vals := map[string]string{}
	for i := 0; i < len(words); i++ {
		t, ok := words[i].Text()
		if !ok || !strings.HasPrefix(t, "-") || t == "-" {
			ops = append(ops, words[i])
			continue
		}
		name, v, joined := strings.Cut(t, "=")
		if !joined && slices.Contains(values, name) && i+1 < len(words) {
			i++
			v, _ = words[i].Text()
		} else if !joined {
			continue
		}
		if short, ok := longNames[name]; ok {
			name = short
		}
		vals[name] = v
	}
	return ops, vals
}

// heldFiles are what the files the line wrote were made from, for the guard's model: the copies and
// archives stage saw, and the files redirected output went to.
func (s *state) heldFiles() map[string][]guard.Source {
	out := map[string][]guard.Source{}
	for p, srcs := range s.holds {
		out[p] = srcs
	}
	for p, in := range s.files {
		if srcs := in.sources(); len(srcs) > 0 && len(out) < maxHolds {
			out[p] = append(out[p], srcs...)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
