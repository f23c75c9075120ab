package interpreters

import (
	"testing"

	"gotest.tools/v3/assert"
)

// TestReadFindsWhatCodeHandsAShell: each language's ways of running a shell command, removing a
// folder whole and writing a file are read from the code's text, and a shell-out of text the code
// builds is marked as not readable.
func TestReadFindsWhatCodeHandsAShell(t *testing.T) {
	for _, c := range []struct {
		base, code string
		want       Code
	}{
		{"python3", `import os; os.system("rm -rf ~")`, Code{Commands: []string{"rm -rf ~"}}},
		{"python3", `import subprocess; subprocess.run(["git", "push", "-f"])`, Code{Commands: []string{"'git' 'push' '-f'"}}},
		{"python3", `__import__('shutil').rmtree(os.path.expanduser('~'))`, Code{Source: `shutil.rmtree(os.path.expanduser('~'))`, Commands: []string{"rm -rf -- ~"}}},
		{"python3", `import os; os.system(cmd)`, Code{Commands: []string{UnknownCommand}}},
		{"perl", `system "git", "push", "-f"`, Code{Commands: []string{"'git' 'push' '-f'"}}},
		{"ruby", "%x(rm -rf ~)", Code{Commands: []string{"rm -rf ~"}}},
		{"node", `require('child_process').execSync('r' + 'm -rf ~')`, Code{Commands: []string{"rm -rf ~"}}},
		{"python3", `open('/tmp/job', 'w').write('rm -rf ~')`, Code{Written: []string{"/tmp/job"}}},
		{"tclsh", "exec rm -rf ~", Code{Commands: []string{"rm -rf ~"}}},
		{"python3", `print("hello")`, Code{}},
	} {
		got := Read(c.base, c.code)
		if c.want.Source == "" {
			c.want.Source = c.code
		}
		assert.DeepEqual(t, got, c.want)
	}
}

// TestOfIgnoresTheVersionSuffix: python3.12, php8.2 and gawk are the interpreters they version.
func TestOfIgnoresTheVersionSuffix(t *testing.T) {
	for base, like := range map[string]string{"python3.12": "python", "php8.2": "php", "gawk": "awk", "python3": "python"} {
		got, ok := Of(base)
		want, _ := Of(like)
		assert.Check(t, ok, base)
		assert.DeepEqual(t, got, want)
	}
	assert.Check(t, !Is("rm"))
}
