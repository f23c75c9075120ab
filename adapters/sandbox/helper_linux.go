package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The helper's side. It runs as abcd started again with HelperArg, inside new user, mount and network
// namespaces, holding every capability of its own user namespace until it executes the command. It
// writes nothing to its standard streams (they are the command's): its one channel is the control
// socket, fd 3.

const controlFD = 3

// Helper runs the helper and exits when abcd was started as one (HelperArg); otherwise it returns at
// once. Every binary that starts fenced processes calls it first in main, before reading its command
// line (abcd's main does; a test binary's TestMain does).
func Helper() {
	if len(os.Args) != 2 || os.Args[1] != HelperArg {
		return
	}
	os.Exit(helperMain()) //nolint:forbidigo // the helper is a process's entry point, taken first in main: its exit code is what abcd reads
}

// failure is why the helper could not build the fence: missing (the machine cannot) or a fault.
type failure struct {
	missing bool
	why     string
}

func (f *failure) Error() string { return f.why }

func missingf(format string, a ...any) *failure {
	return &failure{missing: true, why: fmt.Sprintf(format, a...)}
}

func faultf(format string, a ...any) *failure { return &failure{why: fmt.Sprintf(format, a...)} }

func helperMain() int {
	// The control socket is a Unix stream socket abcd made; anything else on fd 3 is a person who
	// typed the argument.
	if d, err := unix.GetsockoptInt(controlFD, unix.SOL_SOCKET, unix.SO_DOMAIN); err != nil || d != unix.AF_UNIX {
		fmt.Fprintln(os.Stderr, "abcd: "+HelperArg+" is started by abcd itself, never by hand")
		return 2
	}
	unix.CloseOnExec(controlFD)
	// Mounts, the namespace's loopback and the thread's capabilities are set on this thread, which
	// executes the command: the Landlock domain and the bounding set are a thread's.
	runtime.LockOSThread()
	data, err := io.ReadAll(io.LimitReader(os.NewFile(controlFD, "control"), maxSetupBytes+1))
	// A reply that cannot be sent has no one else to tell: abcd, reading no reply, says the helper
	// ended without one. Those send errors are dropped here and below.
	if err != nil || len(data) > maxSetupBytes {
		_ = send(reply{Fault: "the setup could not be read"}, nil)
		return 1
	}
	var s setup
	if err := decodeStrict(data, &s); err != nil {
		_ = send(reply{Fault: "the setup is not abcd's: " + err.Error()}, nil)
		return 1
	}
	rep, fds, env, f := s.build()
	if f != nil {
		if f.missing {
			_ = send(reply{Missing: f.why}, nil)
		} else {
			_ = send(reply{Fault: f.why}, nil)
		}
		return 1
	}
	if err := send(rep, fds); err != nil {
		return 1
	}
	for _, fd := range fds {
		_ = unix.Close(fd) // sent: abcd holds its own copies, and the command must not inherit these
	}
	err = unix.Exec(s.Exe, s.Args, env)
	_ = send(reply{Exec: pathless(err)}, nil)
	return 127
}

// pathless is an error's words without the path it names.
func pathless(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// send writes one reply on the control socket, with fds beside it.
func send(r reply, fds []int) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	n, err := unix.SendmsgN(controlFD, data, oob, nil, 0)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.SendmsgN(controlFD, data, oob, nil, 0)
	}
	for err == nil && n < len(data) {
		data = data[n:]
		n, err = unix.Write(controlFD, data)
		if errors.Is(err, unix.EINTR) {
			n, err = 0, nil
		}
	}
	return err
}

// build sets the fence up around this process: the mounts, the network, the capabilities, Landlock.
// It returns the reply, the listeners' descriptors and the command's environment.
func (s setup) build() (reply, []int, []string, *failure) {
	pl := s.Plan
	hidden, f := mounts(pl)
	if f != nil {
		return reply{}, nil, nil, f
	}
	listeners, fds, f := network(pl.Endpoints)
	if f != nil {
		return reply{}, nil, nil, f
	}
	if err := unix.Chdir(s.Dir); err != nil {
		closeFDs(fds)
		return reply{}, nil, nil, faultf("the command's folder %s: %s", s.Dir, err)
	}
	if f := dropCapabilities(); f != nil {
		closeFDs(fds)
		return reply{}, nil, nil, f
	}
	abi, f := restrict(pl)
	if f != nil {
		closeFDs(fds)
		return reply{}, nil, nil, f
	}
	env := environment(s.Env, pl, listeners)
	return reply{ABI: abi, Hidden: hidden, Listeners: listeners}, fds, env, nil
}

// ---- Mounts ----

// An op is one change to what the step sees: a path hidden, a path inside a hidden folder shown, or
// /tmp replaced by the step's own temporary folder.
type op struct {
	path          string
	show, replace bool
	fd            int // the shown path or the temporary folder, opened before anything was hidden
}

// sharedTemp is the shared temporary folder the step's own replaces: some CLIs write there whatever
// TMPDIR says (Codex makes /tmp/codex-daemon-<uid>).
const sharedTemp = "/tmp"

// mounts makes the step's view of the file system: every hidden folder an empty file system (a file,
// an empty one), /tmp the step's own temporary folder, every shown path inside them bound back at its
// place (read-only unless it is a writable root), the protected paths read-only, a private /dev/shm;
// it returns what it hid. The hidden folders are read-only by the end: nothing can be written into
// them.
func mounts(pl plan) ([]string, *failure) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, missingf("a private mount namespace (making / private: %s)", err)
	}
	ops, f := mountOps(pl)
	defer func() {
		for _, o := range ops {
			if o.fd >= 0 {
				_ = unix.Close(o.fd) // an O_PATH descriptor, only a place to mount from
			}
		}
	}()
	if f != nil {
		return nil, f
	}
	var hidden, empties []string
	for _, o := range ops {
		switch {
		case o.show:
			if f := show(o, slices.Contains(pl.Write, o.path)); f != nil {
				return nil, f
			}
		case o.replace:
			if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(o.fd), o.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return nil, missingf("mounts in the step's namespace (its temporary folder over %s: %s)", o.path, err)
			}
			hidden = append(hidden, o.path)
		default:
			did, empty, f := hide(o.path)
			if f != nil {
				return nil, f
			}
			if did {
				hidden = append(hidden, o.path)
			}
			if empty {
				empties = append(empties, o.path)
			}
		}
	}
	for _, p := range pl.Protect {
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return nil, faultf("keeping %s read-only: %s", p, err)
		}
		if err := remountReadOnly(p); err != nil {
			return nil, missingf("mounts in the step's namespace (%s read-only: %s)", p, err)
		}
	}
	for _, e := range empties {
		if err := remountReadOnly(e); err != nil {
			return nil, missingf("mounts in the step's namespace (%s read-only: %s)", e, err)
		}
	}
	// Shared memory is the step's own, like its temporary folder.
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=1777,size=64m"); err != nil && !errors.Is(err, unix.ENOENT) {
		return nil, missingf("mounts in the step's namespace (a private /dev/shm: %s)", err)
	}
	return hidden, nil
}

// mountOps are the plan's changes to the view, a folder before what lies inside it and, at one path,
// hiding before showing; every shown path and the temporary folder opened before anything is hidden.
// The ops are returned on failure too, so their descriptors are closed.
func mountOps(pl plan) ([]op, *failure) {
	var ops []op
	for _, h := range pl.Hide {
		if h == sharedTemp {
			fd, err := unix.Open(pl.Temp, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return ops, faultf("the temporary folder %s: %s", pl.Temp, err)
			}
			ops = append(ops, op{path: h, replace: true, fd: fd})
			continue
		}
		ops = append(ops, op{path: h, fd: -1})
	}
	for _, p := range pl.Show {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if slices.Contains(pl.Write, p) {
				return ops, faultf("the writable root %s: %s", p, err)
			}
			continue // nothing there to show
		}
		ops = append(ops, op{path: p, show: true, fd: fd})
	}
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].path != ops[j].path {
			return ops[i].path < ops[j].path
		}
		return !ops[i].show && ops[j].show
	})
	return ops, nil
}

// hide covers path: a folder with an empty file system (made read-only once what is shown inside it
// is in place: empty), a file with /dev/null, read-only. A path that is not there is not hidden.
func hide(path string) (did, empty bool, f *failure) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		// Not there, inside a folder hidden already, or out of this helper's reach: the command, which
		// runs with less than the helper, cannot reach it either.
		return false, false, nil //nolint:nilerr // a path that cannot be looked at has nothing to hide
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := unix.Mount("tmpfs", path, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=1m"); err != nil {
			return false, false, missingf("mounts in the step's namespace (an empty file system over %s: %s)", path, err)
		}
		return true, true, nil
	}
	if err := unix.Mount("/dev/null", path, "", unix.MS_BIND, ""); err != nil {
		return false, false, missingf("mounts in the step's namespace (hiding the file %s: %s)", path, err)
	}
	if err := remountReadOnly(path); err != nil {
		return false, false, missingf("mounts in the step's namespace (%s read-only: %s)", path, err)
	}
	return true, false, nil
}

// show binds a shown path back where it is, unless the step sees it there already (a writable root
// seen only through a read-only mount is bound again). A path shown that is not a writable root is
// read-only: bound inside the step's temporary folder it would otherwise take that folder's rights.
func show(o op, writable bool) *failure {
	var want, have unix.Stat_t
	if err := unix.Fstat(o.fd, &want); err != nil {
		return faultf("%s: %s", o.path, err)
	}
	if err := unix.Stat(o.path, &have); err == nil && have.Dev == want.Dev && have.Ino == want.Ino {
		if !writable || !readOnlyMount(o.path) {
			return nil // not inside anything hidden
		}
	} else if err := mountPoint(o.path, want.Mode&unix.S_IFMT == unix.S_IFDIR); err != nil {
		return missingf("mounts in the step's namespace (a place for %s: %s)", o.path, err)
	}
	if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(o.fd), o.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return missingf("mounts in the step's namespace (showing %s: %s)", o.path, err)
	}
	if !writable {
		if err := remountReadOnly(o.path); err != nil {
			return missingf("mounts in the step's namespace (%s read-only: %s)", o.path, err)
		}
	}
	return nil
}

// readOnlyMount reports whether the mount path is on is read-only.
func readOnlyMount(path string) bool {
	var st unix.Statfs_t
	return unix.Statfs(path, &st) == nil && st.Flags&unix.ST_RDONLY != 0
}

// mountPoint makes path (a folder, or an empty file) and the folders to it, where they are missing:
// inside an empty file system the fence mounted.
func mountPoint(path string, dir bool) error {
	parent := filepath.Dir(path)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if dir {
		if err := unix.Mkdir(path, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return err
		}
		return nil
	}
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// remountReadOnly makes the mount at path read-only, keeping the flags it has (the kernel refuses, in
// a user namespace, to clear a flag the mount was locked with).
func remountReadOnly(path string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, m := range [][2]int64{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if st.Flags&m[0] != 0 {
			flags |= uintptr(m[1])
		}
	}
	return unix.Mount("", path, "", flags, "")
}

// ---- Network ----

// network brings the namespace's loopback up and listens there: at each loopback endpoint's own
// address, and, when any endpoint is elsewhere, on one port for abcd's proxy. The namespace has no
// other interface: nothing else is reachable.
func network(endpoints []string) ([]listener, []int, *failure) {
	if f := loopbackUp(); f != nil {
		return nil, nil, f
	}
	var ls []listener
	var fds []int
	fail := func(f *failure) ([]listener, []int, *failure) {
		closeFDs(fds)
		return nil, nil, f
	}
	proxied := false
	for _, e := range endpoints {
		host, port, err := net.SplitHostPort(e)
		if err != nil {
			return fail(faultf("endpoint %s: %s", e, err))
		}
		var addrs []string
		switch ip := net.ParseIP(host); {
		case strings.EqualFold(host, "localhost"):
			addrs = []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port)}
		case ip != nil && ip.IsLoopback():
			addrs = []string{net.JoinHostPort(ip.String(), port)}
		default:
			proxied = true
			continue
		}
		opened := 0
		for _, a := range addrs {
			fd, err := listen(a)
			if err != nil {
				if strings.Contains(a, "::1") && opened > 0 {
					continue // no IPv6 loopback here: the IPv4 one serves localhost
				}
				return fail(missingf("a network namespace (listening at %s inside it: %s)", a, err))
			}
			opened++
			fds = append(fds, fd)
			ls = append(ls, listener{Addr: a})
		}
	}
	if proxied {
		fd, err := listen("127.0.0.1:0")
		if err != nil {
			return fail(missingf("a network namespace (listening for abcd's proxy inside it: %s)", err))
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			return fail(faultf("the proxy's port: %s", err))
		}
		fds = append(fds, fd)
		ls = append(ls, listener{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*unix.SockaddrInet4).Port)), Proxy: true})
	}
	return ls, fds, nil
}

// loopbackUp brings up the namespace's lo.
func loopbackUp() *failure {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return missingf("a network namespace (a socket in it: %s)", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return faultf("lo: %s", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return missingf("a network namespace (reading its loopback: %s)", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return missingf("a network namespace (bringing its loopback up: %s)", err)
	}
	return nil
}

// listen opens a TCP listener at addr (host:port, an IP address), its descriptor closed on exec.
func listen(addr string) (int, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return -1, err
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return -1, err
	}
	ip := net.ParseIP(host)
	var sa unix.Sockaddr
	family := unix.AF_INET
	if v4 := ip.To4(); v4 != nil {
		a := &unix.SockaddrInet4{Port: port}
		copy(a.Addr[:], v4)
		sa = a
	} else {
		family = unix.AF_INET6
		a := &unix.SockaddrInet6{Port: port}
		copy(a.Addr[:], ip.To16())
		sa = a
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if family == unix.AF_INET6 {
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1)
	}
	// A socket that could not listen is released; its Bind or Listen error is the one that counts.
	if err := unix.Bind(fd, sa); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 128); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// ---- Privileges ----

// dropCapabilities empties this thread's bounding and ambient sets: whatever the command executes,
// user 0 inside the namespace included, it gains no capability.
func dropCapabilities() *failure {
	last := 40
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return missingf("dropping the capability bounding set (%d: %s)", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return missingf("clearing the ambient capabilities (%s)", err)
	}
	// And the inheritable set, which a file's own capabilities could otherwise pick from.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return missingf("reading the capabilities (%s)", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return missingf("clearing the inheritable capabilities (%s)", err)
	}
	return nil
}

// ---- Landlock ----

// handled are the file-system rights the fence restricts: all go-landlock knows, down to what the
// kernel has (best effort); the network rights are left to the namespace (Landlock's are port rules
// only, with no address, and UDP only from ABI 10).
var handled = landlock.Config{HandledAccessFS: landlock.V11.HandledAccessFS, Scoped: landlock.V11.Scoped}.BestEffort()

// abi is the kernel's Landlock ABI as go-landlock reads it: 0 without Landlock.
func abi() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	if v >= 6 {
		// A kernel without the signal-scope fix is used at ABI 5, as go-landlock does.
		if e, err := ll.LandlockGetErrata(); err != nil || e&0x2 == 0 {
			v = 5
		}
	}
	return min(v, 11)
}

// restrict applies Landlock to this thread, with no_new_privs: read and execute everywhere but /dev
// (of which only the harmless devices), write only to the plan's writable roots and the private
// /dev/shm, no signal to and no abstract socket of a process outside the step. It returns the ABI.
func restrict(pl plan) (int, *failure) {
	v := abi()
	if v == 0 {
		return 0, missingf("Landlock (the kernel has none, or it is not among the LSMs it booted with: add landlock to lsm=)")
	}
	if v < pl.MinABI {
		return 0, missingf("Landlock ABI %d (this kernel has ABI %d)", pl.MinABI, v)
	}
	rules := []landlock.Rule{landlock.PathAccess(landlock.AccessFSSet(ll.AccessFSReadDir), "/")}
	entries, err := os.ReadDir("/")
	if err != nil {
		return 0, faultf("reading /: %s", err)
	}
	for _, e := range entries {
		p := "/" + e.Name()
		if p == "/dev" {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil {
			continue // a dangling link
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			rules = append(rules, landlock.RODirs(p))
		case unix.S_IFREG:
			rules = append(rules, landlock.ROFiles(p))
		}
	}
	rules = append(rules, landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
		landlock.ROFiles("/dev/random", "/dev/urandom").IgnoreIfMissing(),
		landlock.RWDirs("/dev/shm").IgnoreIfMissing())
	for _, w := range pl.Write {
		var st unix.Stat_t
		if err := unix.Stat(w, &st); err != nil {
			return 0, faultf("the writable root %s: %s", w, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			rules = append(rules, landlock.RWDirs(w).WithRefer())
		} else {
			rules = append(rules, landlock.RWFiles(w))
		}
	}
	fd, flags, err := handled.NewRulesetFD(rules...)
	if err != nil {
		return 0, missingf("Landlock (building the rules: %s)", err)
	}
	if fd < 0 {
		return 0, missingf("Landlock (nothing to restrict at ABI %d)", v)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, missingf("no_new_privs (%s)", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, missingf("Landlock (restricting the step: %s)", err)
	}
	return v, nil
}

// ---- Environment ----

// proxyVars are the variables that name a proxy: the step's are abcd's own.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"}

// environment is the command's environment: the one it was given, with TMPDIR its private temporary
// folder and, when abcd's proxy listens, the proxy variables naming it (a proxy the person passed
// cannot be reached from inside the namespace).
func environment(env []string, pl plan, ls []listener) []string {
	out := make([]string, 0, len(env)+12)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMPDIR" || slices.Contains(proxyVars, k) || k == "NODE_USE_ENV_PROXY" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TMPDIR="+pl.Temp)
	for _, l := range ls {
		if l.Proxy {
			u := "http://" + l.Addr
			out = append(out, "HTTPS_PROXY="+u, "https_proxy="+u, "HTTP_PROXY="+u, "http_proxy="+u,
				"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1", "NODE_USE_ENV_PROXY=1")
		}
	}
	return out
}
