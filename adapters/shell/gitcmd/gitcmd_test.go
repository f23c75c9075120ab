package gitcmd

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/guard"
)

func lits(line string) []guard.Word {
	var out []guard.Word
	for _, f := range strings.Fields(line) {
		out = append(out, guard.Lit(f))
	}
	return out
}

// runLines is what Read finds git runs, as "how: command" lines.
func runLines(g Command) []string {
	var out []string
	for _, r := range g.Runs {
		var words []string
		for _, w := range r.Words {
			words = append(words, w.String())
		}
		out = append(out, r.How+": "+strings.Join(words, " "))
	}
	return out
}

// TestReadFollowsWhatGitRuns: each way git is made to run a shell command is found, named by how.
func TestReadFollowsWhatGitRuns(t *testing.T) {
	for line, want := range map[string][]string{
		"-c core.sshCommand=evil fetch":          {"git core.sshcommand: evil"},
		"-c core.fsmonitor=true status":          nil,
		"rebase -x make origin/main":             {"git rebase -x: make"},
		"bisect run ./check.sh":                  {"git bisect run: ./check.sh"},
		"submodule foreach --recursive git pull": {"git submodule foreach: git pull"},
		"fetch --upload-pack=evil origin":        {"git --upload-pack: evil"},
		"-c credential.helper=!evil push":        {"git credential.helper: evil"},
		"clone -c core.pager=evil url":           {"git core.pager: evil"},
		"status":                                 nil,
	} {
		assert.DeepEqual(t, runLines(Read(lits(line), nil, nil)), want)
	}
	ext := Read([]guard.Word{guard.Lit("clone"), guard.Lit("ext::sh -c evil% x"), guard.Lit("dir")}, nil, nil)
	assert.DeepEqual(t, runLines(ext), []string{"git ext::: 'sh' '-c' 'evil x'"})
	env := []guard.Assign{{Name: "GIT_CONFIG_COUNT", Value: guard.Lit("1")}, {Name: "GIT_CONFIG_KEY_0", Value: guard.Lit("core.editor")},
		{Name: "GIT_CONFIG_VALUE_0", Value: guard.Lit("evil")}, {Name: "GIT_SSH_COMMAND", Value: guard.Lit("evil2")}}
	g := Read(lits("commit"), env, nil)
	assert.DeepEqual(t, runLines(g), []string{"git core.editor: evil", "git GIT_SSH_COMMAND: evil2"})
	assert.Equal(t, len(g.Config), 1)
	assert.Equal(t, g.Config[0].String(), "core.editor=evil")
}

// TestConfigSetsAndAliases: git config leaves its setting for later commands (and a ! alias is
// read where it is set); a later command's subcommand runs an alias the configuration defines.
func TestConfigSetsAndAliases(t *testing.T) {
	set := Read(lits("config --global alias.up !rm"), nil, nil)
	assert.Assert(t, set.Sets != nil)
	assert.Equal(t, set.Sets.String(), "alias.up=!rm")
	assert.DeepEqual(t, runLines(set), []string{"git alias.up: rm"})
	assert.Check(t, set.Alias == nil)

	later := Read(lits("-C repo UP --now"), nil, []guard.Word{*set.Sets})
	assert.DeepEqual(t, later.Alias, &Alias{Name: "UP", Body: "rm", Shell: true})
	assert.Equal(t, len(later.Global), 2)
	assert.Equal(t, len(later.Rest), 2)
	plain := Read(lits("-c alias.co=checkout co main"), nil, nil)
	assert.DeepEqual(t, plain.Alias, &Alias{Name: "co", Body: "checkout"})
	assert.Check(t, len(plain.Config) == 0, "a command's own -c is in its words already")
}
