//go:build linux

// Command sandbox measures what the fence (adapters/sandbox) adds to a runner's step: the same
// command started the way a runner's CLI is started without it (its own process group, dying with
// abcd) and started inside the fence an implementer is given (its worktree writable and its .git
// read-only, the run's folder and $ABCD_HOME hidden, a loopback endpoint forwarded and a vendor's
// through the proxy), alternately in one run. The command is /bin/true, so what is added is the
// fence's set-up alone: abcd started again as the helper, the namespaces, the mounts, the listeners,
// Landlock, the exec. The same fence with a helper binary that holds nothing else beside it says what
// abcd's own start costs of it. With -md it writes its section of docs/performance.md and its target.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

// target is the issue's: the fence adds at most this much to a step.
const target = 20 * time.Millisecond

func main() {
	n := flag.Int("n", 200, "steps of each kind")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	if err := run(*n, *md); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox bench:", err)
		os.Exit(1)
	}
}

// world is an implementer's step's surroundings: a checkout with a run's folder and the lanes'
// folder holding the lane's worktree, a machine folder, a home.
type world struct {
	dir, worktree, run, lanes, abcdHome, home, temp string
}

func newWorld(dir string) (world, error) {
	w := world{dir: dir, abcdHome: filepath.Join(dir, "abcd-home"), home: filepath.Join(dir, "home"), temp: filepath.Join(dir, "tmp")}
	w.run = filepath.Join(dir, "repo", ".abcd", ".work.local", "run", "r1")
	w.lanes = filepath.Join(dir, "repo", ".abcd-lanes")
	w.worktree = filepath.Join(w.lanes, "r1", "lane-1")
	for _, d := range []string{w.run, w.worktree, w.abcdHome, filepath.Join(w.home, ".ssh"), w.temp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return w, err
		}
	}
	return w, os.WriteFile(filepath.Join(w.worktree, ".git"), []byte("gitdir: elsewhere\n"), 0o600)
}

func (w world) policy(endpoints ...runner.Endpoint) ports.SandboxPolicy {
	return ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{w.worktree}, Protect: []string{filepath.Join(w.worktree, ".git")},
		Hide: []string{w.run, w.lanes, w.abcdHome}, Show: []string{w.dir}, Endpoints: endpoints, Temp: w.temp}
}

func (w world) command() *exec.Cmd {
	cmd := exec.Command("/bin/true")
	cmd.Dir, cmd.Env = w.worktree, []string{"PATH=/usr/bin:/bin", "HOME=" + w.home}
	return cmd
}

// kind is one way of starting the step.
type kind struct {
	name  string
	start func() (sample, error)
}

// sample is one step: its wall time, and the CPU time it cost (the step's process, the helper
// included, and abcd's own side: the fork, the handshake, the forwarders).
type sample struct{ wall, cpu time.Duration }

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measured times start-to-reaped and the CPU the step and abcd spent on it.
func measured(cmd *exec.Cmd, start func() error, after func()) (sample, error) {
	cpu0 := selfCPU()
	began := time.Now()
	if err := start(); err != nil {
		return sample{}, err
	}
	err := cmd.Wait()
	wall := time.Since(began)
	if after != nil {
		after()
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return sample{wall: wall, cpu: child + selfCPU() - cpu0}, err
}

func run(n int, md string) (err error) {
	dir, err := os.MkdirTemp("", "abcd-sandbox-bench-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }() // a folder left behind is said
	abcd, tiny, hello := filepath.Join(dir, "abcd"), filepath.Join(dir, "tinyhelper"), filepath.Join(dir, "hello")
	for _, b := range []struct{ out, pkg string }{{abcd, "./frontdoors/cmd/abcd"}, {tiny, "./tools/bench/sandbox/tinyhelper"}, {hello, "./tools/bench/hello"}} {
		if err := benchkit.Build(b.out, b.pkg); err != nil {
			return err
		}
	}
	w, err := newWorld(filepath.Join(dir, "world"))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	endpoints := []runner.Endpoint{{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port}, {Host: "api.anthropic.com", Port: 443}}
	p := w.policy(endpoints...)
	fenced := func(helper string) func() (sample, error) {
		f := sandbox.New(sandbox.Options{Helper: helper})
		return func() (sample, error) {
			cmd := w.command()
			var r *sandbox.Running
			return measured(cmd, func() (err error) {
				r, err = f.Start(cmd, p)
				return err
			}, func() { r.Close() })
		}
	}
	unfenced := func(bin string, namespaces bool) func() (sample, error) {
		return func() (sample, error) {
			cmd := w.command()
			cmd.Path, cmd.Args = bin, []string{bin}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			if namespaces {
				uid, gid := os.Getuid(), os.Getgid()
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL,
					Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET,
					UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}, GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}}
			}
			return measured(cmd, func() error {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				return cmd.Start()
			}, nil)
		}
	}
	kinds := []kind{
		{"unfenced (a process group of its own, as a runner's CLI starts today)", unfenced("/bin/true", false)},
		{"fenced, abcd as the helper", fenced(abcd)},
		{"fenced, a helper binary holding nothing else", fenced(tiny)},
		{"for scale: a Go hello-world started unfenced, in place of /bin/true", unfenced(hello, false)},
		{"for scale: /bin/true in new user, mount and network namespaces alone (no helper, no rules)", unfenced("/bin/true", true)},
	}
	walls := make([][]time.Duration, len(kinds))
	cpus := make([][]time.Duration, len(kinds))
	for i := range n {
		for j := range kinds {
			k := (i + j) % len(kinds) // the order turns every round
			s, err := kinds[k].start()
			if err != nil {
				return fmt.Errorf("%s: %w", kinds[k].name, err)
			}
			walls[k] = append(walls[k], s.wall)
			cpus[k] = append(cpus[k], s.cpu)
		}
	}
	base, baseCPU := benchkit.Median(walls[0]), mean(cpus[0])
	fmt.Printf("the fence's set-up cost per step (/bin/true, %d steps each, alternately; target: at most %s added):\n", n, target)
	for j, k := range kinds {
		fmt.Printf("  %-72s median %7.2f ms, p90 %7.2f ms, added %+7.2f ms; CPU %6.2f ms, added %+6.2f ms\n", k.name+":",
			benchkit.MS(benchkit.Median(walls[j])), benchkit.MS(benchkit.P90(walls[j])), benchkit.MS(benchkit.Median(walls[j])-base),
			benchkit.MS(mean(cpus[j])), benchkit.MS(mean(cpus[j])-baseCPU))
	}
	added := benchkit.Median(walls[1]) - base
	if err := benchkit.WriteSection(md, markdown(n, kinds, walls, cpus)); err != nil {
		return err
	}
	return benchkit.WriteTargets(md, []benchkit.Target{{What: fmt.Sprintf("the sandbox's set-up cost per runner step at most %s", target),
		Figure: fmt.Sprintf("+%.1f ms (%.1f ms fenced against %.1f ms unfenced; CPU +%.1f ms)", benchkit.MS(added), benchkit.MS(benchkit.Median(walls[1])), benchkit.MS(base),
			benchkit.MS(mean(cpus[1])-baseCPU)),
		Met: added <= target}})
}

func markdown(n int, kinds []kind, walls, cpus [][]time.Duration) string {
	var b strings.Builder
	b.WriteString("## The sandbox\n\n")
	b.WriteString("What the fence around a runner's step (`adapters/sandbox`) adds to starting it: `/bin/true` started\n")
	b.WriteString("the way a runner's CLI is started without the fence (its own process group, dying with abcd), and inside\n")
	b.WriteString("the fence an implementer is given (its worktree writable with its `.git` read-only, the run's folder and\n")
	b.WriteString("`$ABCD_HOME` hidden with the credential folders, `/var/tmp` and the machine's `/tmp`, one loopback\n")
	b.WriteString("endpoint forwarded and one vendor's through the proxy), from the start to the reaped exit, alternately in\n")
	fmt.Fprintf(&b, "one run, %d steps each (`go run ./tools/bench/sandbox`). Target: at most %s added a step. CPU is what\n", n, target)
	b.WriteString("the step's process (the helper included) and abcd's side of it used, a mean (the kernel charges CPU a\n")
	b.WriteString("tick at a time, so one step's figure is coarse and only their mean is not): the cost whatever else the\n")
	b.WriteString("machine was doing, where the wall grows with every hand-over between the processes on a loaded one.\n\n")
	b.WriteString("| start | median | p90 | added | CPU | CPU added |\n| --- | --- | --- | --- | --- | --- |\n")
	base, baseCPU := benchkit.Median(walls[0]), mean(cpus[0])
	for j, k := range kinds {
		fmt.Fprintf(&b, "| %s | %.2f ms | %.2f ms | %+.2f ms | %.2f ms | %+.2f ms |\n", k.name, benchkit.MS(benchkit.Median(walls[j])), benchkit.MS(benchkit.P90(walls[j])),
			benchkit.MS(benchkit.Median(walls[j])-base), benchkit.MS(mean(cpus[j])), benchkit.MS(mean(cpus[j])-baseCPU))
	}
	b.WriteString("\nThe helper is abcd started again (`sandbox.Helper`, the first call in its main); the row with a\n")
	b.WriteString("binary holding the helper alone says what abcd's own start (its size, its packages' inits) costs of\n")
	b.WriteString("the set-up, against a second binary to build, install and find beside abcd. The two rows for scale\n")
	b.WriteString("are a Go program's own start on this machine and the kernel's new namespaces alone: the set-up is\n")
	b.WriteString("both (one Go process started inside new namespaces before the command), then the mounts, the rules\n")
	b.WriteString("and the hand-overs between abcd and the helper.\n\n")
	return b.String()
}

// mean of a sample.
func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}
