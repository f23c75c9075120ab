//go:build unix

package main

// build.finish end to end, through the binary, on a run the fake runners finish: pr with the real gh
// (Debian's package) against a loopback stand-in of the GitHub endpoints gh pr create and gh auth
// status call, the branch pushed to a bare repository; merge, a fast-forward, and its refusal when
// the branch moved.

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
	"gotest.tools/v3/icmd"

	dloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/loop"
)

const ghCanary = "ghp_finishcanary0123456789abcdef"

// ghStandIn answers what gh auth status and gh pr create ask of a GitHub Enterprise host, over TLS,
// and keeps each pull request it was asked to create.
type ghStandIn struct {
	srv *httptest.Server
	// refuse makes the create-pull-request mutation answer a GraphQL error, as GitHub does for a
	// pull request it will not open.
	refuse bool
	cert   string // the PEM file gh trusts (SSL_CERT_FILE)
	mu     sync.Mutex
	prs    []map[string]any
	auth   []string
}

func newGHStandIn(t *testing.T) *ghStandIn {
	t.Helper()
	g := &ghStandIn{}
	g.srv = httptest.NewTLSServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	g.cert = filepath.Join(t.TempDir(), "cert.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: g.srv.Certificate().Raw})
	assert.NilError(t, os.WriteFile(g.cert, pemBytes, 0o600))
	return g
}

// host is the stand-in as gh names a host: 127.0.0.1:<port>.
func (g *ghStandIn) host() string { return strings.TrimPrefix(g.srv.URL, "https://") }

func (g *ghStandIn) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	refuse := g.refuse
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "token "+ghCanary {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials"}`)
		return
	}
	w.Header().Set("X-Oauth-Scopes", "repo, read:org")
	if r.Method == http.MethodGet && r.URL.Path == "/api/v3/" {
		fmt.Fprint(w, `{}`)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/api/graphql" {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
		return
	}
	var q struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &q); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case strings.Contains(q.Query, "UserCurrent"):
		fmt.Fprint(w, `{"data":{"viewer":{"login":"ada"}}}`)
	case strings.Contains(q.Query, "RepositoryInfo"):
		fmt.Fprint(w, `{"data":{"repository":{"id":"R_1","name":"repo","owner":{"login":"team"},"hasIssuesEnabled":true,"description":"",`+
			`"hasWikiEnabled":false,"viewerPermission":"WRITE","defaultBranchRef":{"name":"main"},"parent":null,`+
			`"mergeCommitAllowed":true,"rebaseMergeAllowed":true,"squashMergeAllowed":true}}}`)
	case strings.Contains(q.Query, "PullRequestForBranch"):
		fmt.Fprint(w, `{"data":{"repository":{"pullRequests":{"nodes":[]},"defaultBranchRef":{"name":"main"}}}}`)
	case strings.Contains(q.Query, "createPullRequest") && refuse:
		fmt.Fprint(w, `{"data":null,"errors":[{"type":"UNPROCESSABLE","message":"No commits between main and the branch"}]}`)
	case strings.Contains(q.Query, "createPullRequest"):
		in, _ := q.Variables["input"].(map[string]any)
		g.mu.Lock()
		g.prs = append(g.prs, in)
		n := len(g.prs)
		g.mu.Unlock()
		fmt.Fprintf(w, `{"data":{"createPullRequest":{"pullRequest":{"id":"PR_%d","url":"%s/team/repo/pull/%d"}}}}`, n, g.srv.URL, n)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	}
}

func (g *ghStandIn) created() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]any(nil), g.prs...)
}

// run runs abcd in the world with extra variables.
func (w runnerWorld) run(t *testing.T, extra []string, args ...string) *icmd.Result {
	t.Helper()
	return icmd.RunCmd(icmd.Command(binary, args...), icmd.Dir(w.c.dir), icmd.WithEnv(append(w.env(), extra...)...))
}

func needGH(t *testing.T) string {
	t.Helper()
	gh, err := exec.LookPath("gh")
	if err != nil && os.Getenv("CI") != "" {
		// .ci/run installs Debian's gh before make test: in CI its absence is a failure, never a skip.
		t.Fatal("gh is not installed, and CI must prove the pull request with it (.ci/run installs Debian's gh)")
	}
	if err != nil {
		t.Skip("gh is not installed (Debian: apt-get install gh); CI runs this test with it")
	}
	return gh
}

// A run finished as its branch is taken to a pull request: refused while gh is missing or logged
// out (exit 2, the run and the remote as they were, the refusal saying how to push the branch by
// hand), then, logged in, the integration branch is pushed (never forced) to the remote's bare
// repository and the real gh opens the pull request on the stand-in, its body the run's story with
// the Mermaid lane graph; the address is recorded in the run, shown by status and record, and no
// token is in any output.
func TestImplementRunFinishesAsAPullRequestWithTheRealGH(t *testing.T) {
	needGH(t)
	g := newGHStandIn(t)
	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.")
	w.play(t, w.agents(t)...)
	bare := filepath.Join(filepath.Dir(w.c.dir), "remote.git")
	assert.NilError(t, exec.Command("git", "init", "-q", "--bare", bare).Run())
	// The remote names the repository on the forge; pushes go to the bare repository.
	w.c.git(t, "remote", "add", "origin", "https://"+g.host()+"/team/repo.git")
	w.c.git(t, "config", "remote.origin.pushurl", bare)
	ghEnv := []string{"SSL_CERT_FILE=" + g.cert, "GH_CONFIG_DIR=" + filepath.Join(w.c.home, "gh"), "GH_HOST=" + g.host()}
	loggedIn := append([]string{"GH_ENTERPRISE_TOKEN=" + ghCanary}, ghEnv...)

	// No gh on PATH: refused before any run starts, nothing written.
	bin := t.TempDir()
	gitPath, err := exec.LookPath("git")
	assert.NilError(t, err)
	assert.NilError(t, os.Symlink(gitPath, filepath.Join(bin, "git")))
	record := filepath.Join(w.c.dir, ".abcd")
	before := fs.ManifestFromDir(t, record)
	missing := w.run(t, append([]string{"PATH=" + bin}, loggedIn...), "implement", "run", w.spec, "--finish", "pr", "--json")
	missing.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(missing.Stdout(), `"code":"finish_gh_missing"`))
	assert.Check(t, is.Contains(missing.Stdout(), "gh auth login --hostname "+g.host()))
	assert.Assert(t, fs.Equal(record, before))
	before = fs.ManifestFromDir(t, record)

	// Logged out: refused the same way.
	out := w.run(t, ghEnv, "implement", "run", w.spec, "--finish", "pr", "--json")
	out.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(out.Stdout(), `"code":"finish_gh_logged_out"`))
	assert.Assert(t, fs.Equal(record, before))

	// The run finishes as its branch; asked again as a pull request while logged out, it is refused
	// and the refusal says how to push the branch by hand.
	var res loop.ImplementRunResult
	done := w.run(t, nil, "implement", "run", w.spec, "--json")
	done.Assert(t, icmd.Success)
	decodeOne(t, done.Stdout(), &res)
	assert.Assert(t, is.Equal(res.Ended, loop.EndedFinished))
	assert.Check(t, res.Run.Finish == nil)
	run := res.Run.Run
	branch := "abcd/" + run + "/integration"
	refused := w.run(t, ghEnv, "implement", "run", "--run", run, "--finish", "pr")
	refused.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(refused.Stderr(), "is not logged in to "+g.host()))
	assert.Check(t, is.Contains(refused.Stderr(), "the run ends as its branch "+branch+"; push it yourself (`git push <remote> "+branch+"`)"))
	assert.Check(t, is.Len(g.created(), 0))
	assert.Check(t, is.Equal(exec.Command("git", "-C", bare, "rev-parse", "--verify", "--quiet", branch).Run() != nil, true), "nothing was pushed")

	// Logged in: pushed, and the pull request opened by the real gh.
	opened := w.run(t, loggedIn, "implement", "run", "--run", run, "--finish", "pr", "--json")
	opened.Assert(t, icmd.Success)
	decodeOne(t, opened.Stdout(), &res)
	assert.Assert(t, res.Run.Finish != nil, "%s", opened.Stdout())
	f := *res.Run.Finish
	url := g.srv.URL + "/team/repo/pull/1"
	assert.Check(t, is.Equal(f.As, dloop.FinishPR))
	assert.Check(t, is.Equal(f.URL, url))
	assert.Check(t, is.Equal(f.Branch, branch))
	assert.Check(t, is.Equal(f.Remote, "origin"))
	head := w.c.git(t, "rev-parse", branch)
	assert.Check(t, is.Equal(f.Head, head))
	pushed, err := exec.Command("git", "-C", bare, "rev-parse", branch).Output()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.TrimSpace(string(pushed)), head), "the PR's head is the pushed branch")
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "the run finished as a pull request: "+url))

	// gh called with the person's own login (the variable gh reads), which abcd neither holds nor sends.
	g.mu.Lock()
	auth := append([]string(nil), g.auth...)
	g.mu.Unlock()
	assert.Check(t, is.Contains(auth, "token "+ghCanary))
	prs := g.created()
	assert.Assert(t, is.Len(prs, 1))
	pr := prs[0]
	assert.Check(t, is.Equal(pr["title"], "Faster cold start"))
	assert.Check(t, is.Equal(pr["baseRefName"], "main"))
	assert.Check(t, is.Equal(pr["headRefName"], branch))
	body, _ := pr["body"].(string)
	assert.Check(t, is.Contains(body, "```mermaid\n"))
	assert.Check(t, is.Contains(body, "lane-1"))
	assert.Check(t, is.Contains(body, "integration"))
	story := w.run(t, nil, "implement", "record", "--run", run, "--markdown")
	story.Assert(t, icmd.Success)
	assert.Check(t, is.Equal(body, story.Stdout()), "the body is the run's story")

	// Recorded: status and record show it; a run already finished as a pull request is not opened again.
	status := w.run(t, nil, "implement", "status", "--run", run)
	status.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(status.Stdout(), "  pull request: "+url+" ("+branch+" pushed to origin at "))
	told := w.run(t, nil, "implement", "record", "--run", run)
	assert.Check(t, is.Contains(told.Stdout(), "  pull request: "+url))
	again := w.run(t, loggedIn, "implement", "run", "--run", run, "--finish", "pr", "--json")
	again.Assert(t, icmd.Success)
	assert.Check(t, is.Len(g.created(), 1))
	for _, r := range []*icmd.Result{missing, out, done, refused, opened, status, told, again} {
		assert.Check(t, !strings.Contains(r.Stdout()+r.Stderr(), ghCanary), "the token leaked")
	}

	// Then prune: the run's branches go, the integration too (the remote holds it, as the pull
	// request's head); its record stays and still tells the pull request.
	pruned := w.run(t, nil, "implement", "prune", "--run", run)
	pruned.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(pruned.Stdout(), "branch "+branch), "%s", pruned.Stdout())
	assert.Check(t, is.Equal(w.c.git(t, "for-each-ref", "--format=%(refname:short)", "refs/heads/abcd/"), ""))
	pushed, err = exec.Command("git", "-C", bare, "rev-parse", branch).Output()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.TrimSpace(string(pushed)), head), "the pull request's head stays on the remote")
	after := w.run(t, nil, "implement", "record", "--run", run)
	after.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(after.Stdout(), "  pull request: "+url))
}

// build.finish merge fast-forwards the branch the run started from, checked out in the person's
// worktree, to the integration: its files follow, and no merge commit is made. When the branch moved
// since, it is refused (exit 2), left where it was, and the refusal says how to merge by hand.
func TestImplementRunFinishesByAFastForward(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs on runners: make test runs it")
	}
	w := newRunnerWorld(t, "1. Part one of the work.")
	w.play(t, w.agents(t)...)
	cfg := filepath.Join(w.c.dir, ".abcd", "config.json")
	data, err := os.ReadFile(cfg)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(cfg, []byte(strings.Replace(string(data), `"build": {`, `"build": {"finish": "merge", `, 1)), 0o644))
	w.c.git(t, "commit", "-qam", "finish by a fast-forward")

	var res loop.ImplementRunResult
	r := w.run(t, nil, "implement", "run", w.spec, "--json")
	r.Assert(t, icmd.Success)
	decodeOne(t, r.Stdout(), &res)
	assert.Assert(t, res.Run.Finish != nil, "%s", r.Stdout())
	head := w.c.git(t, "rev-parse", "abcd/"+res.Run.Run+"/integration")
	assert.Check(t, is.Equal(w.c.git(t, "rev-parse", "main"), head))
	assert.Check(t, is.Equal(res.Run.Finish.As, dloop.FinishMerge))
	assert.Check(t, is.Equal(res.Run.Finish.Branch, "main"))
	_, err = os.Stat(filepath.Join(w.c.dir, "DONE-1"))
	assert.Check(t, err, "the checkout followed the fast-forward")
	assert.Check(t, is.Equal(w.c.git(t, "rev-parse", "HEAD"), head), "the checkout is on main, at the integration's head")

	// A second run of another spec finishes as its branch; main moves; merge is refused.
	w2 := newRunnerWorld(t, "1. Part one of the work.")
	w2.play(t, w2.agents(t)...)
	r = w2.run(t, nil, "implement", "run", w2.spec, "--json")
	r.Assert(t, icmd.Success)
	decodeOne(t, r.Stdout(), &res)
	run := res.Run.Run
	w2.c.git(t, "commit", "-q", "--allow-empty", "-m", "main moved")
	moved := w2.c.git(t, "rev-parse", "main")
	refused := w2.run(t, nil, "implement", "run", "--run", run, "--finish", "merge", "--json")
	refused.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(refused.Stdout(), `"code":"finish_not_fast_forward"`))
	assert.Check(t, is.Contains(refused.Stdout(), "on main, run `git merge abcd/"+run+"/integration`"))
	assert.Check(t, is.Equal(w2.c.git(t, "rev-parse", "main"), moved), "main stays where it was")
	status := w2.run(t, nil, "implement", "status", "--run", run, "--json")
	assert.Check(t, !strings.Contains(status.Stdout(), `"finish"`))
}

// A finished run whose push the remote refuses (its pre-receive hook) is refused with
// finish_push_refused, git's words and how to push by hand; a push that lands but whose pull request
// gh cannot open is refused with finish_pr_failed, gh's words and the gh command to run by hand. The
// run records no finish either time, and the same command goes on once the cause is gone.
func TestImplementRunFinishRefusalsSayHowToFinishByHand(t *testing.T) {
	if testing.Short() {
		t.Skip("a run on runners and four calls of gh: make test runs it")
	}
	needGH(t)
	g := newGHStandIn(t)
	g.refuse = true
	w := newRunnerWorld(t, "1. Part one of the work.")
	w.play(t, w.agents(t)...)
	bare := filepath.Join(filepath.Dir(w.c.dir), "remote.git")
	assert.NilError(t, exec.Command("git", "init", "-q", "--bare", bare).Run())
	hook := filepath.Join(bare, "hooks", "pre-receive")
	assert.NilError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'protected: pushes are closed today' >&2\nexit 1\n"), 0o755))
	w.c.git(t, "remote", "add", "origin", "https://"+g.host()+"/team/repo.git")
	w.c.git(t, "config", "remote.origin.pushurl", bare)
	env := []string{"SSL_CERT_FILE=" + g.cert, "GH_CONFIG_DIR=" + filepath.Join(w.c.home, "gh"), "GH_HOST=" + g.host(), "GH_ENTERPRISE_TOKEN=" + ghCanary}

	var res loop.ImplementRunResult
	done := w.run(t, nil, "implement", "run", w.spec, "--json")
	done.Assert(t, icmd.Success)
	decodeOne(t, done.Stdout(), &res)
	run := res.Run.Run
	branch := "abcd/" + run + "/integration"

	pushed := w.run(t, env, "implement", "run", "--run", run, "--finish", "pr")
	pushed.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(pushed.Stderr(), "protected: pushes are closed today"))
	assert.Check(t, is.Contains(pushed.Stderr(), "the run ends as its branch "+branch+"; fix what the remote said, and push it yourself (`git push origin "+branch+"`)"))
	assert.Check(t, is.Len(g.created(), 0))

	assert.NilError(t, os.Remove(hook))
	opened := w.run(t, env, "implement", "run", "--run", run, "--finish", "pr", "--json")
	opened.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(opened.Stdout(), `"code":"finish_pr_failed"`))
	assert.Check(t, is.Contains(opened.Stdout(), "No commits between main and the branch"))
	assert.Check(t, is.Contains(opened.Stdout(), "gh pr create --repo "+g.host()+"/team/repo --head "+branch+" --base main"))
	assert.Check(t, exec.Command("git", "-C", bare, "rev-parse", "--verify", "--quiet", branch).Run(), "the branch was pushed")
	status := w.run(t, nil, "implement", "status", "--run", run, "--json")
	assert.Check(t, !strings.Contains(status.Stdout(), `"finish"`), "no finish is recorded")

	g.mu.Lock()
	g.refuse = false
	g.mu.Unlock()
	again := w.run(t, env, "implement", "run", "--run", run, "--finish", "pr", "--json")
	again.Assert(t, icmd.Success)
	decodeOne(t, again.Stdout(), &res)
	assert.Assert(t, res.Run.Finish != nil)
	assert.Check(t, is.Equal(res.Run.Finish.URL, g.srv.URL+"/team/repo/pull/1"))
	for _, r := range []*icmd.Result{done, pushed, opened, status, again} {
		assert.Check(t, !strings.Contains(r.Stdout()+r.Stderr(), ghCanary), "the token leaked")
	}
}
