package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
)

// The CLI's prompter and diagnostics are the ports.
var (
	_ ports.Prompter    = (*Prompter)(nil)
	_ ports.Diagnostics = Diag{}
)

func TestPrompterIsNotInteractiveWithoutATerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPrompter(&IO{In: strings.NewReader("y\n"), Out: &out, Err: &errOut, InTTY: false})
	assert.Check(t, !p.Interactive())
	assert.Check(t, NewPrompter(&IO{InTTY: true}).Interactive())
	assert.Check(t, is.Equal(out.String(), ""))
	assert.Check(t, is.Equal(errOut.String(), ""))
}

func TestPrompterConfirm(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPrompter(&IO{In: strings.NewReader("y\nno\n\n"), Out: &out, Err: &errOut, InTTY: true})
	ctx := context.Background()
	want := []bool{true, false, false}
	for i, q := range []string{"First?", "Second?", "Third?"} {
		got, err := p.Confirm(ctx, q)
		assert.NilError(t, err, q)
		assert.Check(t, is.Equal(got, want[i]), q)
	}
	assert.Check(t, is.Equal(errOut.String(), "First? [y/N] Second? [y/N] Third? [y/N] "))

	// The end of input is no, never a hang or an error.
	got, err := p.Confirm(ctx, "Fourth?")
	assert.NilError(t, err)
	assert.Check(t, !got)
	got, err = p.Confirm(ctx, "Fifth?")
	assert.NilError(t, err)
	assert.Check(t, !got)
	assert.Check(t, is.Contains(errOut.String(), "Fourth? [y/N] "))
	assert.Check(t, is.Equal(out.String(), ""), "a question never reaches stdout")
}

func TestPrompterAnswers(t *testing.T) {
	cases := map[string]bool{
		"y\n": true, "yes\n": true, "Y\n": true, "YES\n": true, "  y  \n": true, "y": true,
		"n\n": false, "\n": false, "yep\n": false, "sure\n": false, "": false, "no\n": false,
	}
	for in, want := range cases {
		var errOut bytes.Buffer
		p := NewPrompter(&IO{In: strings.NewReader(in), Err: &errOut, InTTY: true})
		got, err := p.Confirm(context.Background(), "Go?")
		assert.NilError(t, err, "%q", in)
		assert.Check(t, is.Equal(got, want), "answer %q", in)
	}
}

func TestPrompterCancelledAsksNothing(t *testing.T) {
	var errOut bytes.Buffer
	p := NewPrompter(&IO{In: strings.NewReader("y\n"), Err: &errOut, InTTY: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := p.Confirm(ctx, "Go?")
	assert.Check(t, err != nil)
	assert.Check(t, !got)
	assert.Check(t, is.Equal(errOut.String(), ""))
}

func TestPrompterShowAndDiagUseStderr(t *testing.T) {
	var out, errOut bytes.Buffer
	s := &IO{In: strings.NewReader(""), Out: &out, Err: &errOut, InTTY: true}
	NewPrompter(s).Show("  AGENT  TIER\n")
	NewDiag(s).Warn("a row was skipped")
	assert.Check(t, is.Equal(out.String(), ""))
	assert.Check(t, is.Equal(errOut.String(), "  AGENT  TIER\nabcd: warning: a row was skipped\n"))
}

// TestAhoyInstallWithoutATerminalOrYes: nobody can answer, so install is refused before anything
// is written.
func TestAhoyInstallWithoutATerminalOrYes(t *testing.T) {
	for _, args := range [][]string{{"ahoy", "install"}, {"ahoy", "install", "--json"}} {
		a := newApp(factsNotInitialized)
		setup := fake.NewSetup("/work/repo", "/home/ada/.abcd")
		prompter := &fake.Prompter{TTY: false, Answers: []bool{true, true, true, true}}
		a.Setup, a.Prompter = setup, prompter

		res := run(t, a, args...)
		assert.Check(t, is.Equal(res.code, 2), "stderr: %s", res.stderr)
		if strings.Contains(strings.Join(args, " "), "--json") {
			doc := checkDocument(t, res, refusal.Refused, 2)
			assert.Check(t, is.Equal(doc.Code, refusal.CodeConsentNeeded))
			assert.Check(t, is.Contains(doc.Remedy, "--yes"))
		} else {
			assert.Check(t, is.Equal(res.stdout, ""))
			assert.Check(t, strings.HasPrefix(res.stderr, "abcd: refused: "), "stderr: %q", res.stderr)
			assert.Check(t, is.Contains(res.stderr, "--yes"))
		}
		assert.Check(t, is.Len(prompter.Questions, 0))
		assert.Check(t, is.Len(setup.Dirs, 0))
		assert.Check(t, is.Len(setup.Files, 0))
		assert.Check(t, is.Len(setup.Machine, 0))
	}
}

// TestAhoyInstallYesThroughTheCLI: -y and --yes accept the required steps and report the skipped
// offers, in text and in JSON.
func TestAhoyInstallYesThroughTheCLI(t *testing.T) {
	for _, flag := range []string{"--yes", "-y"} {
		a := newApp(factsNotInitialized)
		setup := fake.NewSetup("/work/repo", "/home/ada/.abcd")
		a.Setup, a.Prompter = setup, &fake.Prompter{}
		res := run(t, a, "ahoy", "install", flag)
		assert.Check(t, is.Equal(res.code, 0), "stderr: %s", res.stderr)
		assert.Check(t, is.Contains(res.stdout, "oracle-routing-machine"))
		assert.Check(t, is.Contains(res.stdout, "skipped (offered again next time): oracle-routing-machine, oracle-routing-repository"))
		assert.Check(t, setup.Dirs[".abcd"])
		assert.Check(t, is.Len(setup.Machine, 0))
	}
}
