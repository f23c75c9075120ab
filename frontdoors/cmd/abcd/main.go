// Command abcd is the composition root: it wires the adapters into the core and hands it to the CLI.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/abcd-dev/abcd/adapters/agentfiles"
	"github.com/abcd-dev/abcd/adapters/catalog"
	"github.com/abcd-dev/abcd/adapters/dod"
	"github.com/abcd-dev/abcd/adapters/files"
	"github.com/abcd-dev/abcd/adapters/gh"
	"github.com/abcd-dev/abcd/adapters/git"
	"github.com/abcd-dev/abcd/adapters/history/helper"
	"github.com/abcd-dev/abcd/adapters/history/sessions"
	"github.com/abcd-dev/abcd/adapters/openai"
	"github.com/abcd-dev/abcd/adapters/otel"
	"github.com/abcd-dev/abcd/adapters/repoprompt"
	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/acp"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/codex"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	// Aliased: the package's tests name their temporary worlds sandbox.
	osfence "github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/adapters/shell"
	"github.com/abcd-dev/abcd/adapters/system"
	"github.com/abcd-dev/abcd/agents"
	"github.com/abcd-dev/abcd/frontdoors/cli"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/schemas"
)

// version is abcd's semantic version, kept here alone and named by CHANGELOG.md's newest release;
// the Makefile stamps the commit beside it with -ldflags -X (a variable, so a test build can stamp
// both).
var (
	version = "0.1.0"
	commit  = ""
)

// atExit, when a profiling build sets it, runs before the process exits.
var atExit = func() {}

func main() {
	// abcd started again as the fence's helper (adapters/sandbox) sets the fence up and executes the
	// runner's CLI: it never reaches the command line.
	osfence.Helper()
	// SIGTERM too: a review the RepoPrompt route is running ends as interrupted, not killed mid-write.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks the verb to end (every wait watches ctx); a second one ends the process
	// at once, as if abcd had not caught the first.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx)
	stop()
	atExit()
	os.Exit(code)
}

func run(ctx context.Context) int {
	s := cli.SystemIO(os.Getenv)
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	traces := tracesOf(os.Getenv)
	code := cli.Execute(ctx, cli.NewRoot(wire(s, dir, abcdHome(), traces), s), s, os.Args[1:])
	if traces != nil {
		// Whatever is still queued gets a bounded wait; a collector that did not take the run's
		// traces is said once, and never changes the exit code.
		end, cancel := context.WithTimeout(context.WithoutCancel(ctx), otel.ShutdownBound)
		defer cancel()
		if err := traces.Shutdown(end); err != nil {
			_, _ = fmt.Fprintf(s.Err, "abcd: %v\n", err) // a warning whose write failed has nowhere left to go
		}
	}
	return code
}

// tracesOf is the OpenTelemetry exporter where the standard OTEL_* variables configure one; nil (and
// nothing linked in leaves the machine) otherwise.
func tracesOf(getenv func(string) string) *otel.Tracer {
	if !otel.Configured(getenv) {
		return nil
	}
	return otel.New(otel.Options{Getenv: getenv, Version: version})
}

// wire builds the core for the repository containing dir and the machine folder home, its runs
// traced by traces where it is not nil.
func wire(s *cli.IO, dir, home string, traces *otel.Tracer) *app.App {
	ros := agentfiles.New(agents.Files)
	cat := catalog.New(schemas.Files)
	providers := openai.New(os.Getenv, files.ReadSecret)
	// One fence for every step a runner takes and the definition of done on its work, its helper this
	// abcd (the loop passes the policy: ports.SandboxPolicy).
	fence := osfence.New(osfence.Options{})
	// An ACP agent is handed abcd's own read verbs for its step, served by this abcd.
	agent := acp.Dialect{Schema: cat.Schema}
	if hook := guardHook(); hook != nil {
		agent.Self = hook[0]
	}
	runners := runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}, codex.Dialect{}, gemini.Dialect{}, agent},
		Guard: guardHook(), TempDir: filepath.Join(home, "runner"), Sandbox: fence})
	progress := cli.NewProgress(s)
	var build func(dir string) *app.App
	build = func(dir string) *app.App {
		// abcd acts on the repository, wherever in it (a subfolder, a lane's worktree) it is run: git's
		// relative paths (a lane's worktree) are the repository's, as the stores' are.
		dir = files.OwnerDir(dir)
		if root, git := files.RepoRoot(dir); git {
			dir = root
		}
		a := &app.App{
			Inspector: files.Inspector{Dir: dir, Home: home},
			Config:    files.ConfigSource{Dir: dir, Home: home},
			Roster:    ros,
			Setup:     files.Setup{Dir: dir, Home: home},
			Records:   files.Records{Dir: dir},
			Journal:   files.Journal{Dir: dir},
			Clock:     system.Clock{},
			Random:    system.Random{},
			Git:       git.Git{Dir: dir},
			Remote:    git.Git{Dir: dir},
			Forge:     gh.GH{Dir: dir},
			Runs:      files.Runs{Dir: dir},
			DoD:       dod.Runner{Fence: fence},
			Notifier:  dod.Runner{},
			Commands:  shell.Reader{Home: os.Getenv("HOME")},
			Links:     files.Links{},
			Rules:     files.ConfigSource{Dir: dir, Home: home},
			// History runs the helper beside abcd, which holds the database driver (see abcd-history).
			History:     helper.Client{Home: home},
			Transcripts: sessions.Source{HomeDir: userHome(), Getenv: os.Getenv},
			Credentials: files.Credentials{Getenv: os.Getenv},
			Providers:   providers,
			Runners:     runners,
			Progress:    progress,
			RP:          repoprompt.Dialer{Base: repoprompt.Config{Version: version}},
			Prompter:    cli.NewPrompter(s),
			Diag:        cli.NewDiag(s),
			Schemas:     cat,
			Build:       app.BuildInfo{Version: version, Commit: commit, Go: runtime.Version()},
			Reroot:      build,
		}
		a.MergeFiles, a.Self = files.MergeFiles{}, system.Self
		if traces != nil {
			a.Tracer = traces
		}
		return a
	}
	return build(dir)
}

// userHome is the person's home folder, "" when it cannot be known.
func userHome() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return home
}

// guardHook is the command a runner's CLI runs before each of the implementer's shell commands: this
// abcd's guard hook. Without abcd's own path, no implementer's step is sent to a runner.
func guardHook() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "guard", "hook"}
}

// abcdHome is $ABCD_HOME, or ~/.abcd.
func abcdHome() string {
	if h := os.Getenv("ABCD_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".abcd"
	}
	return filepath.Join(home, ".abcd")
}
