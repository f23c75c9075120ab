package guard

import (
	"slices"
	"strings"
	"sync"
)

// Sent is one thing a command sends off the machine: text on its line (a URL, a form field, a name
// it looks up, a remote command), the content of a file (File), or its standard input (Word is then
// the command's Stdin).
type Sent struct {
	Word Word
	File bool
	// Tree is a folder sent with everything in it (scp -r, rsync).
	Tree bool
	// Auth is a header or a user option: a credential sent where it is meant to be used.
	Auth bool
}

// sender is how one program says what it sends: the options that take a value, and what it sends
// read from its split words.
type sender struct {
	values []string
	sends  func(a args, cmd Command) []Sent
}

// senders are the programs the guard knows to send data off the machine: to a web server, a socket,
// another host's shell or files, a gist, a bucket, a mail server, or a name server asked for a name.
var senders = sync.OnceValue(func() map[string]sender {
	httpie := sender{[]string{"-a", "--auth", "-A", "--auth-type", "--session", "--session-read-only", "-o", "--output", "--verify", "--cert", "--cert-key",
		"--proxy", "--timeout", "--pretty", "-s", "--style", "-p", "--print", "--format-options", "--max-redirects", "--boundary", "--raw"}, httpieSends}
	stdinAndWords := func(values ...string) sender { return sender{values, stdinSends} }
	dns := func(values ...string) sender { return sender{values, wordSends} }
	mail := sender{[]string{"-s", "-c", "-b", "-r", "-a", "-A", "-q", "-S", "-f", "-F", "-i", "-e"}, mailSends}
	return map[string]sender{
		"curl":       {sendCurlValues, curlSends},
		"curlie":     {sendCurlValues, curlSends},
		"wget":       {wgetValues, wgetSends},
		"aria2c":     {[]string{"-o", "--out", "-d", "--dir", "-x", "-s", "-j", "--header", "--http-user", "--http-passwd"}, wordSends},
		"http":       httpie,
		"https":      httpie,
		"xh":         httpie,
		"xhs":        httpie,
		"nc":         stdinAndWords("-p", "-s", "-w", "-i", "-q", "-x", "-X", "-e", "-c", "-o", "-O", "-T", "-V"),
		"ncat":       stdinAndWords("-p", "-s", "-w", "-i", "-e", "-c", "-o", "-x", "--sh-exec", "--exec", "--proxy", "--proxy-type", "--source-port", "--wait", "--idle-timeout"),
		"netcat":     stdinAndWords("-p", "-s", "-w", "-i", "-q", "-e", "-c"),
		"telnet":     stdinAndWords("-l", "-n", "-b", "-e"),
		"openssl":    {[]string{"-connect", "-servername", "-cert", "-key", "-CAfile", "-CApath", "-proxy"}, opensslSends},
		"socat":      {nil, socatSends},
		"ssh":        {[]string{"-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"}, sshSends},
		"scp":        {[]string{"-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X", "-D"}, remoteCopySends},
		"rsync":      {rsyncValues, remoteCopySends},
		"sftp":       {[]string{"-B", "-b", "-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-R", "-S", "-s", "-X"}, sftpSends},
		"gh":         {nil, ghSends},
		"aws":        {nil, bucketSends("s3://")},
		"gsutil":     {nil, bucketSends("gs://")},
		"gcloud":     {nil, bucketSends("gs://")},
		"rclone":     {nil, bucketSends("")},
		"mail":       mail,
		"mailx":      mail,
		"mutt":       mail,
		"sendmail":   mail,
		"msmtp":      mail,
		"dig":        dns("-b", "-c", "-f", "-k", "-p", "-q", "-t", "-x", "-y"),
		"kdig":       dns("-b", "-c", "-k", "-p", "-q", "-t", "-x", "-y"),
		"delv":       dns("-a", "-b", "-c", "-d", "-p", "-q", "-t", "-x"),
		"drill":      dns("-c", "-k", "-p", "-s", "-y", "-z"),
		"nslookup":   dns(),
		"host":       dns("-c", "-m", "-N", "-R", "-t", "-W"),
		"ping":       dns("-c", "-i", "-w", "-W", "-s", "-t", "-I", "-p", "-Q", "-l", "-M", "-m"),
		"ping6":      dns("-c", "-i", "-w", "-W", "-s", "-t", "-I", "-p"),
		"getent":     dns("-s", "--service"),
		"resolvectl": dns("-i", "--interface", "-t", "--type", "-c", "--class", "-p", "--protocol"),
		"traceroute": dns("-f", "-g", "-i", "-m", "-N", "-p", "-t", "-w", "-q", "-s", "-z"),
		"tracepath":  dns("-l", "-m", "-p"),
		"whois":      dns("-h", "-p"),
	}
})

// sendCurlValues are curl's options that take a value, as far as what it sends is concerned.
var sendCurlValues = append(slices.Clone(curlValues), "--data-ascii", "--form-string", "--proxy-user", "--url-query", "--variable")

// Sends lists what cmd sends off the machine, for the programs the guard knows to send.
func (r *Registry) Sends(cmd Command) []Sent {
	base := cmd.Base()
	s, ok := senders()[base]
	if !ok && strings.HasPrefix(base, "python") {
		s, ok = sender{[]string{"-m", "-W", "-X", "-c", "-d", "--directory", "-b", "--bind", "-p", "--protocol"}, serverSends}, true
	}
	if !ok {
		return nil
	}
	return s.sends(r.getopt(cmd.Args, Syntax{Values: s.values}, false), cmd)
}

// stdin is what the command reads on standard input, sent as it is.
func stdin(cmd Command) Sent { return Sent{Word: cmd.Stdin} }

func texts(words []Word) []Sent {
	out := make([]Sent, 0, len(words))
	for _, w := range words {
		out = append(out, Sent{Word: w})
	}
	return out
}

// wordSends are a program's words, sent as they are: the URLs a downloader asks for, the names a
// lookup asks a name server for.
func wordSends(a args, _ Command) []Sent { return texts(a.words()) }

// stdinSends are a socket's: its standard input, and the host it is given.
func stdinSends(a args, cmd Command) []Sent { return append(texts(a.words()), stdin(cmd)) }

func curlSends(a args, cmd Command) []Sent {
	var out []Sent
	for _, o := range a.opts {
		if o.value == nil {
			continue
		}
		v := *o.value
		switch o.name {
		case "-d", "--data", "--data-ascii", "--data-binary", "--json":
			out = append(out, atFile(v, cmd))
		case "--data-urlencode", "--url-query":
			out = append(out, urlencoded(v, cmd))
		case "-F", "--form":
			out = append(out, formField(v, cmd))
		case "-T", "--upload-file":
			out = append(out, fileOrStdin(v, cmd))
		case "-H", "--header":
			s := atFile(v, cmd)
			s.Auth = !s.File
			out = append(out, s)
		case "-u", "--user", "--oauth2-bearer", "-b", "--cookie", "--proxy-user":
			out = append(out, Sent{Word: v, Auth: true})
		case "--data-raw", "--url", "-e", "--referer", "-A", "--user-agent", "--form-string", "--variable":
			out = append(out, Sent{Word: v})
		}
	}
	return append(out, texts(a.words())...)
}

func wgetSends(a args, _ Command) []Sent {
	var out []Sent
	for _, o := range a.opts {
		if o.value == nil {
			continue
		}
		switch o.name {
		case "--post-file", "--body-file", "-i", "--input-file":
			out = append(out, Sent{Word: *o.value, File: true})
		case "--header", "--user", "--password":
			out = append(out, Sent{Word: *o.value, Auth: true})
		case "--post-data", "--body-data":
			out = append(out, Sent{Word: *o.value})
		}
	}
	return append(out, texts(a.words())...)
}

// httpieSends are httpie's (and xh's): the URL, each request item (field=value, field@file,
// field=@file, field:=@file, @file as the body, Header:value as a credential), and standard input
// unless it is told to ignore it.
func httpieSends(a args, cmd Command) []Sent {
	var out []Sent
	if v, ok := a.value("-a", "--auth"); ok {
		out = append(out, Sent{Word: v, Auth: true})
	}
	if v, ok := a.value("--raw"); ok {
		out = append(out, Sent{Word: v})
	}
	ops := a.words()
	if t, ok := firstWordText(ops); ok && t != "" && strings.ToUpper(t) == t && !strings.ContainsAny(t, "/:.") {
		ops = ops[1:] // the method
	}
	for i, w := range ops {
		if i == 0 {
			out = append(out, Sent{Word: w})
			continue
		}
		out = append(out, httpieItem(w))
	}
	if !a.has("--ignore-stdin", "-I") {
		out = append(out, stdin(cmd))
	}
	return out
}

func httpieItem(w Word) Sent {
	_, sep, after, ok := cutWord(w, ":=@")
	if !ok {
		return Sent{Word: w}
	}
	switch {
	case sep == '@':
		return Sent{Word: after, File: true}
	case sep == '=' && hasPrefix(after, "@"):
		return Sent{Word: trimWord(after, 1), File: true}
	case sep == ':' && hasPrefix(after, "=@"):
		return Sent{Word: trimWord(after, 2), File: true}
	case sep == ':' && !hasPrefix(after, "="):
		// Header:value
		return Sent{Word: w, Auth: true}
	}
	return Sent{Word: w}
}

// serverSends are what python -m http.server serves to whoever asks: the folder it is given, or
// the one it runs in, with everything in it.
func serverSends(a args, cmd Command) []Sent {
	mod, ok := a.value("-m")
	if t, _ := mod.Text(); !ok || t != "http.server" && t != "SimpleHTTPServer" {
		return nil
	}
	dir, ok := a.value("-d", "--directory")
	if !ok {
		dir = Lit(".")
	}
	return []Sent{{Word: dir, File: true, Tree: true}}
}

// opensslSends are openssl s_client's: its standard input, to the server -connect names.
func opensslSends(a args, cmd Command) []Sent {
	if t, _ := firstWordText(a.operands); t != "s_client" {
		return nil
	}
	out := []Sent{stdin(cmd)}
	if v, ok := a.value("-connect"); ok {
		out = append(out, Sent{Word: v})
	}
	return out
}

// socatSends are socat's, when one of its addresses is a network peer: the files its other address
// reads (FILE:, OPEN:, GOPEN:), or its standard input (-, STDIN, STDIO).
func socatSends(a args, cmd Command) []Sent {
	var out []Sent
	network := false
	for _, w := range a.words() {
		t := w.prefix()
		upper := strings.ToUpper(t)
		switch {
		case t == "-" || strings.HasPrefix(t, "-,") || strings.HasPrefix(upper, "STDIN") || strings.HasPrefix(upper, "STDIO"):
			out = append(out, stdin(cmd))
		case strings.HasPrefix(upper, "FILE:") || strings.HasPrefix(upper, "OPEN:") || strings.HasPrefix(upper, "GOPEN:"):
			path := trimWord(w, strings.IndexByte(t, ':')+1)
			if p, _, _, ok := cutWord(path, ","); ok {
				path = p
			}
			out = append(out, Sent{Word: path, File: true})
		default:
			for _, p := range []string{"TCP", "UDP", "SCTP", "OPENSSL", "SSL", "DTLS", "SOCKS", "PROXY"} {
				if strings.HasPrefix(upper, p) {
					network = true
					out = append(out, Sent{Word: w})
				}
			}
		}
	}
	if !network {
		return nil
	}
	return out
}

// sshSends are ssh's: its standard input and the remote command, which the other host reads.
func sshSends(a args, cmd Command) []Sent {
	return append(texts(a.words()), stdin(cmd))
}

// remoteCopySends are scp's and rsync's when the destination is another host: every source,
// with what it holds.
func remoteCopySends(a args, _ Command) []Sent {
	dest, srcs, ok := destination(a)
	if !ok || !isRemote(dest) && !hasPrefix(dest, "rsync://") {
		return nil
	}
	out := []Sent{{Word: dest}}
	for _, s := range srcs {
		if !isRemote(s) {
			out = append(out, Sent{Word: s, File: true, Tree: true})
		}
	}
	return out
}

// sftpSends are the files an sftp session fed known commands puts on the other host.
func sftpSends(_ args, cmd Command) []Sent {
	text, ok := cmd.Stdin.Text()
	if !ok {
		return []Sent{stdin(cmd)}
	}
	var out []Sent
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "put" || f[0] == "mput" || f[0] == "reput") {
			out = append(out, Sent{Word: Lit(f[1]), File: true, Tree: true})
		}
	}
	return out
}

// ghSends are the files gh publishes: a gist's files (standard input for - or none), files added
// to a gist or uploaded to a release, an API field read from a file (-F k=@file, --input), and a
// body read from a file.
func ghSends(_ args, cmd Command) []Sent {
	if t, _ := firstWordText(cmd.Args); t == "secret" || t == "auth" || t == "variable" {
		// a secret stored in GitHub, or gh's own login: where that credential is meant to go
		return nil
	}
	var words, sub []Word
	values := map[string]bool{"-d": true, "--desc": true, "--filename": true, "-f": true, "-R": true, "--repo": true, "-X": true, "--method": true,
		"-H": true, "--header": true, "-t": true, "--title": true, "-b": true, "--body": true, "-l": true, "--label": true, "-a": true, "--add": true,
		"-F": true, "--field": true, "--raw-field": true, "--input": true, "--body-file": true, "-q": true, "--jq": true, "--template": true}
	var out []Sent
	for i := 0; i < len(cmd.Args); i++ {
		w := cmd.Args[i]
		t, known := w.Text()
		if known && strings.HasPrefix(t, "-") {
			name, val, joined := strings.Cut(t, "=")
			var v *Word
			switch {
			case joined:
				lit := Lit(val)
				v = &lit
			case values[name] && i+1 < len(cmd.Args):
				i++
				v = &cmd.Args[i]
			}
			if v == nil {
				continue
			}
			switch name {
			case "-a", "--add", "--input", "--body-file":
				out = append(out, fileOrStdin(*v, cmd))
			case "-F", "--field":
				if _, sep, after, ok := cutWord(*v, "="); ok && sep == '=' && hasPrefix(after, "@") {
					out = append(out, fileOrStdin(trimWord(after, 1), cmd))
				} else {
					out = append(out, Sent{Word: *v})
				}
			case "-f", "--raw-field", "-b", "--body", "-t", "--title", "-d", "--desc":
				out = append(out, Sent{Word: *v})
			}
			continue
		}
		if len(sub) < 2 {
			sub = append(sub, w)
			continue
		}
		words = append(words, w)
	}
	names := make([]string, len(sub))
	for i, s := range sub {
		names[i], _ = s.Text()
	}
	switch strings.Join(names, " ") {
	case "gist create", "gist new":
		if len(words) == 0 {
			out = append(out, stdin(cmd))
		}
		for _, w := range words {
			out = append(out, fileOrStdin(w, cmd))
		}
	case "release upload":
		for _, w := range words[min(1, len(words)):] {
			if p, _, _, ok := cutWord(w, "#"); ok {
				w = p
			}
			out = append(out, Sent{Word: w, File: true})
		}
	}
	return out
}

// bucketSends are the local files a storage CLI copies to a bucket or remote (aws s3 cp, gsutil cp,
// gcloud storage cp, rclone copy) and the file an upload's --body or --file names: with a scheme, a
// destination that has it; with none (rclone), one named remote:path.
func bucketSends(scheme string) func(args, Command) []Sent {
	return func(_ args, cmd Command) []Sent {
		var out, ops []Sent
		for i := 0; i < len(cmd.Args); i++ {
			w := cmd.Args[i]
			t, known := w.Text()
			switch {
			case known && (t == "--body" || t == "--file") && i+1 < len(cmd.Args):
				i++
				out = append(out, Sent{Word: cmd.Args[i], File: true})
			case known && slices.Contains(bucketValues, t):
				i++
			case known && strings.HasPrefix(t, "-"):
			case known && slices.Contains(bucketVerbs, t):
			default:
				ops = append(ops, Sent{Word: w, File: true, Tree: true})
			}
		}
		if len(ops) < 2 || !remoteIn(ops[len(ops)-1].Word, scheme) {
			return out
		}
		for _, s := range ops[:len(ops)-1] {
			if !remoteIn(s.Word, scheme) {
				out = append(out, s)
			}
		}
		return out
	}
}

// bucketVerbs are the storage CLIs' subcommand words; bucketValues their options that take a value.
var (
	bucketVerbs  = []string{"s3", "s3api", "cp", "mv", "sync", "rsync", "storage", "copy", "copyto", "move", "moveto", "put-object"}
	bucketValues = []string{"--profile", "--region", "--exclude", "--include", "--acl", "--storage-class", "--config", "--bucket", "--key", "--endpoint-url"}
)

// remoteIn reports a storage place off the machine: a URL with the scheme, or remote:path.
func remoteIn(w Word, scheme string) bool {
	if scheme != "" {
		return hasPrefix(w, scheme)
	}
	return isRemote(w)
}

// mailSends are a mail client's: the message it reads on standard input, and its attachments.
func mailSends(a args, cmd Command) []Sent {
	out := []Sent{stdin(cmd)}
	for _, o := range a.opts {
		if o.value != nil && (o.name == "-a" || o.name == "-A" || o.name == "-q") {
			out = append(out, Sent{Word: *o.value, File: true})
		}
	}
	return out
}

// atFile reads curl's @file (the file's content), @- (standard input), or the text itself.
func atFile(v Word, cmd Command) Sent {
	if !hasPrefix(v, "@") {
		return Sent{Word: v}
	}
	return fileOrStdin(trimWord(v, 1), cmd)
}

// urlencoded reads curl's --data-urlencode: name@file and @file send a file's content.
func urlencoded(v Word, cmd Command) Sent {
	if _, sep, after, ok := cutWord(v, "@="); ok && sep == '@' {
		return fileOrStdin(after, cmd)
	}
	return Sent{Word: v}
}

// formField reads curl's -F name=@file (a file uploaded), name=<file (its content as the field),
// name=- ... or the field's text.
func formField(v Word, cmd Command) Sent {
	_, sep, after, ok := cutWord(v, "=")
	if !ok || sep != '=' || !hasPrefix(after, "@") && !hasPrefix(after, "<") {
		return Sent{Word: v}
	}
	file := trimWord(after, 1)
	if p, _, _, ok := cutWord(file, ";"); ok {
		file = p
	}
	return fileOrStdin(file, cmd)
}

// fileOrStdin is a file named to a sender, where - (or curl's .) is its standard input.
func fileOrStdin(v Word, cmd Command) Sent {
	if t, ok := v.Text(); ok && (t == "-" || t == ".") {
		return stdin(cmd)
	}
	return Sent{Word: v, File: true}
}

// hasPrefix reports a word whose known text starts with p.
func hasPrefix(w Word, p string) bool { return strings.HasPrefix(w.prefix(), p) }

// trimWord drops the first n bytes of a word's known text (which must hold them).
func trimWord(w Word, n int) Word {
	parts := slices.Clone(w.Parts)
	for len(parts) > 0 && n > 0 {
		if parts[0].Hole {
			break
		}
		if len(parts[0].Text) > n {
			parts[0].Text = parts[0].Text[n:]
			break
		}
		n -= len(parts[0].Text)
		parts = parts[1:]
	}
	if len(parts) == 0 {
		return Lit("")
	}
	return Word{Parts: parts}
}

// cutWord splits a word at the first of the bytes in seps found in its known text: the part
// before, the byte, and the part after.
func cutWord(w Word, seps string) (before Word, sep byte, after Word, ok bool) {
	for i, p := range w.Parts {
		if p.Hole {
			continue
		}
		j := strings.IndexAny(p.Text, seps)
		if j < 0 {
			continue
		}
		// an empty piece of text is left out, so that a hole ($HOME) that follows a separator
		// starts the word it is in
		head := slices.Clone(w.Parts[:i])
		if p.Text[:j] != "" || len(head) == 0 {
			head = append(head, Part{Text: p.Text[:j], Quoted: p.Quoted})
		}
		tail := slices.Clone(w.Parts[i+1:])
		if p.Text[j+1:] != "" || len(tail) == 0 {
			tail = append([]Part{{Text: p.Text[j+1:], Quoted: p.Quoted}}, tail...)
		}
		return Word{Parts: head}, p.Text[j], Word{Parts: tail}, true
	}
	return w, 0, Word{}, false
}

// credentialPlaces are where credentials live, in any home: keys, cloud and registry credentials,
// tokens, .env files, keystores, shell histories, the environment, abcd's machine folder. A rule's
// class send:credentials holds when what a command sends comes from one of them.
var credentialPlaces = []string{
	"**/.ssh/id_*[!b]", "**/.ssh/*.pem", "**/.ssh/*.key", "**/id_rsa", "**/id_ed25519", "**/id_ecdsa",
	"**/id_dsa", "**/.aws/credentials", "**/.aws/sso/cache/**", "**/.aws/cli/cache/**", "**/.netrc",
	"**/_netrc", "**/.git-credentials", "**/.config/git/credentials", "**/.docker/config.json",
	"**/.kube/config", "**/kubeconfig", "**/.config/gcloud/**", "**/.azure/**", "**/.config/gh/hosts.yml",
	"**/.npmrc", "**/.pypirc", "**/.gem/credentials", "**/.cargo/credentials*", "**/.gnupg/**",
	"**/.password-store/**", "**/.vault-token", "**/.terraform.d/credentials.tfrc.json",
	"**/.claude/.credentials.json", "**/.codex/auth.json", "**/.gemini/oauth_creds.json", "**/.env",
	"**/.env.local", "**/.env.*.local", "**/.env.production", "**/.env.prod", "**/.env.development",
	"**/.env.dev", "**/.env.staging", "**/.envrc", "{abcd}/**", "~/.abcd/**", "/proc/*/environ", "/etc/shadow",
	"/etc/gshadow", "/etc/ssh/ssh_host_*_key", "**/master.key", "**/credentials.json",
	"**/service-account*.json", "**/*.p12", "**/*.pfx", "**/*.keystore", "**/*.jks", "**/.pgpass", "**/.my.cnf",
	"**/.boto", "**/.s3cfg", "**/.config/hub", "**/.*_history", "**/secrets.yml", "**/secrets.yaml",
	"**/secrets.json", "**/*.tfstate", "**/.htpasswd",
}

// secretVars are the names of variables that hold a secret: class send:secret-vars holds when what a
// command sends (not in a header or a user option) holds one.
var secretVars = []string{
	"$*TOKEN*", "$*_KEY", "$KEY", "$*_KEY_*", "$*APIKEY*", "$*SECRET*", "$*PASSWORD*", "$*PASSWD*", "$*_PASS",
	"$*_PAT", "$*AUTH", "$*AUTH_*", "$*CREDENTIAL*", "$*PRIVATE*", "$*COOKIE*", "$*WEBHOOK*", "$*DATABASE_URL*",
	"$*_DSN", "$*CONNECTION_STRING*",
}
