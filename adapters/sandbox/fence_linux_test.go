package sandbox_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// world is what a runner's implementer could reach on the person's machine: their home (with a key
// in .ssh), $ABCD_HOME, an abcd binary, their checkout (its git config, its .abcd) and, inside it, the
// run's folder (its state, the lane's worktree, another lane's worktree).
type world struct {
	root, home, abcdHome, bin, repo, run, lanes, worktree, other, temp string
}

func newWorld(t *testing.T) world {
	t.Helper()
	root := t.TempDir()
	w := world{root: root, home: filepath.Join(root, "home"), abcdHome: filepath.Join(root, "abcd-home"), bin: filepath.Join(root, "bin"),
		repo: filepath.Join(root, "repo"), temp: filepath.Join(root, "step-tmp")}
	w.run = filepath.Join(w.repo, ".abcd", ".work.local", "run", "r1")
	w.lanes = filepath.Join(w.repo, ".abcd-lanes")
	w.worktree = filepath.Join(w.lanes, "r1", "lane-1")
	w.other = filepath.Join(w.lanes, "r1", "lane-2")
	files := map[string]string{
		"home/.ssh/id_ed25519":                     "-----BEGIN OPENSSH PRIVATE KEY----- canary\n",
		"home/.bashrc":                             "# the person's\n",
		"abcd-home/config.json":                    `{"schema_version": 1}` + "\n",
		"abcd-home/runner/keep":                    "the runner's own folder\n",
		"bin/abcd":                                 "#!/bin/sh\necho the real abcd\n",
		"repo/README.md":                           "# the checkout\n",
		"repo/.git/config":                         "[core]\n\tbare = false\n",
		"repo/.abcd/config.json":                   `{"schema_version": 1, "build": {"dod": "true"}}` + "\n",
		"repo/.abcd/.work.local/run/r1/state.json": `{"run": "r1"}` + "\n",
		"repo/.abcd-lanes/.gitignore":              "*\n",
		"repo/.abcd-lanes/r1/lane-1/.git":          "gitdir: " + filepath.Join(root, "repo/.git/worktrees/lane-1") + "\n",
		"repo/.abcd-lanes/r1/lane-1/main.go":       "package main\n",
		"repo/.abcd-lanes/r1/lane-2/secret.txt":    "another lane's work\n",
	}
	for rel, data := range files {
		p := filepath.Join(root, rel)
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		assert.NilError(t, os.WriteFile(p, []byte(data), 0o600))
	}
	assert.NilError(t, os.Mkdir(w.temp, 0o700))
	script, err := os.ReadFile("testdata/fake_implementer.py")
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(w.bin, "fake_implementer.py"), script, 0o600))
	return w
}

// snapshot is every file under the world but the worktree and the step's temporary folder, by path.
func (w world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(w.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == w.worktree || p == w.temp) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = string(data)
		}
		return nil
	})
	assert.NilError(t, err)
	return out
}

// policy is the implementer's fence as the loop asks for it. The test's tree lives under /tmp, which
// every fence hides whole, so the root is shown first (as the person's checkout and home are, where
// they live outside /tmp); what the policy hides inside it stays hidden.
func (w world) policy(endpoints ...runner.Endpoint) ports.SandboxPolicy {
	return ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{w.worktree}, Protect: []string{filepath.Join(w.worktree, ".git")},
		Hide: []string{w.run, w.lanes, w.abcdHome}, Show: []string{w.root}, Endpoints: endpoints, Temp: w.temp}
}

// standin is a loopback HTTP server answering "standin" to any request: a runner's vendor API.
func standin(t *testing.T) (net.Listener, runner.Endpoint) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	assert.NilError(t, err)
	// A failed write reaches the client as a short answer, which the attack's check sees.
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(rw, "standin") })}
	// Serve ends with an error when the test closes its listener or the server: that is its end,
	// not a fault; so is Close's, of a listener a test may have closed first.
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln, runner.Endpoint{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port}
}

// python is the interpreter itself (not a shim that would run a shell first), asked once.
var python = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	return strings.TrimSpace(string(out)), err
})

type attempt struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Did  string `json:"did"`
	Err  string `json:"error"`
}

// runImplementer runs the fake implementer in the lane's worktree with the attempts, fenced by fence
// (nil: unconfined), and returns what each attempt did.
func runImplementer(t *testing.T, w world, fence *sandbox.Fence, p ports.SandboxPolicy, attempts []map[string]any) (map[string]attempt, *sandbox.Running) {
	t.Helper()
	arg, err := json.Marshal(attempts)
	assert.NilError(t, err)
	var out bytes.Buffer
	py, err := python()
	assert.NilError(t, err, "the fake implementer is a Python script: python3 must be on PATH")
	cmd := exec.Command(py, filepath.Join(w.bin, "fake_implementer.py"), string(arg))
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.worktree, &out, &out
	cmd.Env = []string{"HOME=" + w.home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	var r *sandbox.Running
	if fence != nil {
		r, err = fence.Start(cmd, p)
		assert.NilError(t, err)
		t.Cleanup(r.Close)
	} else {
		assert.NilError(t, cmd.Start())
	}
	assert.NilError(t, cmd.Wait(), out.String())
	got := map[string]attempt{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var a attempt
		assert.NilError(t, json.Unmarshal(sc.Bytes(), &a), sc.Text())
		got[a.Name] = a
	}
	assert.Equal(t, len(got), len(attempts), out.String())
	return got, r
}

// The attacks an implementer on a runner could make on landed main before the fence (issue 31), and
// two things it must still do.
func attacks(w world, allowed, other runner.Endpoint) []map[string]any {
	return []map[string]any{
		{"name": "write the run's state", "do": "write", "path": filepath.Join(w.run, "state.json")},
		{"name": "plant a file among the runs", "do": "write", "path": filepath.Join(w.repo, ".abcd", ".work.local", "run", "run-forged.json")},
		{"name": "write another lane", "do": "write", "path": "../lane-2/secret.txt"},
		{"name": "write the lanes' .gitignore", "do": "write", "path": "../../.gitignore"},
		{"name": "replace the run's state", "do": "replace", "path": filepath.Join(w.run, "state.json")},
		{"name": "write the checkout", "do": "write", "path": filepath.Join(w.repo, "README.md")},
		{"name": "write the repository's git config", "do": "write", "path": filepath.Join(w.repo, ".git", "config")},
		{"name": "write the repository's abcd config", "do": "write", "path": filepath.Join(w.repo, ".abcd", "config.json")},
		{"name": "write the worktree's .git", "do": "write", "path": filepath.Join(w.worktree, ".git")},
		{"name": "replace the worktree's .git", "do": "replace", "path": filepath.Join(w.worktree, ".git")},
		{"name": "write the home", "do": "write", "path": filepath.Join(w.home, ".bashrc")},
		{"name": "write ABCD_HOME", "do": "write", "path": filepath.Join(w.abcdHome, "config.json")},
		{"name": "write the abcd binary", "do": "write", "path": filepath.Join(w.bin, "abcd")},
		{"name": "replace the abcd binary", "do": "replace", "path": filepath.Join(w.bin, "abcd")},
		{"name": "read ~/.ssh", "do": "read", "path": filepath.Join(w.home, ".ssh", "id_ed25519")},
		{"name": "read ABCD_HOME", "do": "read", "path": filepath.Join(w.abcdHome, "config.json")},
		{"name": "read the run's state", "do": "read", "path": filepath.Join(w.run, "state.json")},
		{"name": "read another lane", "do": "read", "path": filepath.Join(w.other, "secret.txt")},
		{"name": "reach a loopback listener that is not its endpoint", "do": "connect", "host": other.Host, "port": other.Port},
		{"name": "write its worktree", "do": "write", "path": filepath.Join(w.worktree, "new.go"), "text": "package main // new\n"},
		{"name": "write /tmp", "do": "write", "path": filepath.Join("/tmp", filepath.Base(w.root)+".probe")},
		{"name": "reach its endpoint", "do": "get", "host": allowed.Host, "port": allowed.Port},
	}
}

// Every attack the fake implementer makes is denied inside the fence, while it still writes its
// worktree and reaches its endpoint; the same attacks, unfenced, all work (the test would fail without
// the fence).
func TestTheFenceDeniesAnImplementersAttacks(t *testing.T) {
	_, allowed := standin(t)
	otherLn, other := standin(t)
	defer otherLn.Close()
	// /tmp is written all the same: inside the fence it is the step's own temporary folder.
	musts := map[string]bool{"write its worktree": true, "reach its endpoint": true, "write /tmp": true}

	t.Run("unfenced, every attack works", func(t *testing.T) {
		w := newWorld(t)
		t.Cleanup(func() {
			// The probe is there when the attack wrote it, as it should unfenced.
			err := os.Remove(filepath.Join("/tmp", filepath.Base(w.root)+".probe"))
			assert.Check(t, err == nil || errors.Is(err, fs.ErrNotExist), "%v", err)
		})
		got, _ := runImplementer(t, w, nil, ports.SandboxPolicy{}, attacks(w, allowed, other))
		for name, a := range got {
			assert.Check(t, a.OK, "%s: %s", name, a.Err)
		}
	})

	t.Run("fenced, every attack is denied", func(t *testing.T) {
		w := newWorld(t)
		before := w.snapshot(t)
		got, r := runImplementer(t, w, sandbox.New(sandbox.Options{}), w.policy(allowed), attacks(w, allowed, other))
		for name, a := range got {
			if musts[name] {
				assert.Check(t, a.OK, "%s: %s", name, a.Err)
			} else {
				assert.Check(t, !a.OK, "%s was not denied: %s", name, a.Did)
			}
		}
		assert.Check(t, is.Equal(got["reach its endpoint"].Did, "standin"))
		probe := filepath.Base(w.root) + ".probe"
		_, err := os.Stat(filepath.Join("/tmp", probe))
		assert.Check(t, os.IsNotExist(err), "the step wrote the shared /tmp")
		_, err = os.Stat(filepath.Join(w.temp, probe))
		assert.Check(t, err, "the step's /tmp is its own temporary folder")
		assert.Check(t, is.DeepEqual(w.snapshot(t), before), "a file outside the worktree changed")
		data, err := os.ReadFile(filepath.Join(w.worktree, "new.go"))
		assert.NilError(t, err)
		assert.Check(t, is.Equal(string(data), "package main // new\n"))
		rc := r.Receipt()
		assert.Check(t, is.Equal(rc.Kind, runner.SandboxLinux))
		assert.Check(t, rc.LandlockABI >= sandbox.DefaultMinABI)
		assert.Check(t, is.DeepEqual(rc.Writable, []string{w.worktree, w.temp}))
		assert.Check(t, is.DeepEqual(rc.Network, []string{allowed.String()}))
		for _, h := range []string{w.run, w.lanes, w.abcdHome, filepath.Join(w.home, ".ssh"), "/tmp"} {
			assert.Check(t, is.Contains(rc.Hidden, h))
		}
	})
}

// A destination outside the allowlist is refused by abcd's proxy, counted and named on the receipt;
// with no route but the proxy, an address outside is unreachable.
func TestTheProxyRefusesWhatIsNotAllowed(t *testing.T) {
	w := newWorld(t)
	_, allowed := standin(t)
	api := runner.Endpoint{Host: "api.example.test", Port: 443}
	got, r := runImplementer(t, w, sandbox.New(sandbox.Options{}), w.policy(allowed, api), []map[string]any{
		{"name": "tunnel to a host not allowed", "do": "connect_via_proxy", "target": "exfil.example.test:443"},
		{"name": "tunnel to a loopback port not allowed", "do": "connect_via_proxy", "target": "127.0.0.1:" + strconv.Itoa(allowed.Port+1)},
		{"name": "reach an address directly", "do": "connect", "host": "192.0.2.1", "port": 443},
		{"name": "reach its endpoint", "do": "get", "host": allowed.Host, "port": allowed.Port},
	})
	for _, name := range []string{"tunnel to a host not allowed", "tunnel to a loopback port not allowed", "reach an address directly"} {
		assert.Check(t, !got[name].OK, "%s was not denied: %s", name, got[name].Did)
	}
	assert.Check(t, strings.Contains(got["tunnel to a host not allowed"].Err, "403"), got["tunnel to a host not allowed"].Err)
	assert.Check(t, got["reach its endpoint"].OK, got["reach its endpoint"].Err)
	rc := r.Receipt()
	assert.Check(t, is.Equal(rc.NetworkRefused, 2))
	assert.Check(t, is.DeepEqual(rc.Refused, []string{"exfil.example.test:443", fmt.Sprintf("127.0.0.1:%d", allowed.Port+1)}))
	assert.Check(t, is.DeepEqual(rc.Network, []string{allowed.String(), "api.example.test:443"}))
}
