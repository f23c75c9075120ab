package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/abcd-dev/abcd/ports"
)

// The parent's side: abcd starts the helper in new namespaces, hands it the whole setup on its control
// socket (fd 3 in the helper), and reads back one reply: the listeners it opened inside the step's
// network namespace (their descriptors passed with the reply), or what is missing. The helper's end
// of the socket closes on exec, so the end of the stream after the reply is the command running.

// setup is what the helper is handed.
type setup struct {
	Exe  string   `json:"exe"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	Plan plan     `json:"plan"`
}

// reply is what the helper answers, once before it executes the command and, when the exec fails,
// once more.
type reply struct {
	// Missing is a fence this machine cannot build (Unavailable); Fault a setup that failed otherwise
	// (a writable root that is not there); Exec the exec's own error.
	Missing string `json:"missing,omitempty"`
	Fault   string `json:"fault,omitempty"`
	Exec    string `json:"exec,omitempty"`
	// ABI is the Landlock ABI the rules were applied at; Hidden what was hidden (what existed).
	ABI    int      `json:"abi,omitempty"`
	Hidden []string `json:"hidden,omitempty"`
	// Listeners describe the descriptors passed with the reply, in order.
	Listeners []listener `json:"listeners,omitempty"`
}

// Bounds of the control socket.
const (
	maxSetupBytes = 16 << 20 // the command line holds a step's schema and its settings' paths
	maxReplyBytes = 1 << 20
	helperTimeout = 30 * time.Second
)

// Start starts cmd (Path, Args, Env, Dir and the standard streams as set) inside the fence p
// describes, as the leader of a session of its own that dies with abcd. cmd must set no SysProcAttr
// and no ExtraFiles: the fence owns them. On success cmd runs (cmd.Wait reaps it) and the Running
// forwards its allowed connections until Close. A fence this machine cannot build is an
// *Unavailable; a policy it refuses a *PolicyError; in both cases nothing ran.
func (f *Fence) Start(cmd *exec.Cmd, p ports.SandboxPolicy) (*Running, error) {
	if cmd.SysProcAttr != nil || len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: the command sets its own process attributes or extra files")
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	pl, err := complete(p, envValue(cmd.Env, "HOME"), f.minABI)
	if err != nil {
		return nil, err
	}
	helper := f.helper
	if helper == "" {
		if helper, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: finding abcd's own executable for its helper: %w", err)
		}
	}
	dir := cmd.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(setup{Exe: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: dir, Plan: pl})
	if err != nil {
		return nil, err
	}
	if len(data) > maxSetupBytes {
		return nil, &PolicyError{fmt.Sprintf("the command and its fence take %d bytes, over the bound of %d", len(data), maxSetupBytes)}
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	ours, theirs := pair[0], os.NewFile(uintptr(pair[1]), "sandbox-control")
	defer func() {
		if ours >= 0 {
			_ = unix.Close(ours) // a socket's end released: what went over it was checked as it went
		}
	}()
	cmd.Path, cmd.Args, cmd.Dir = helper, []string{helper, HelperArg}, "/"
	cmd.Env = []string{"GOMAXPROCS=1", "GOGC=off"}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = helperAttr()
	if err := timeouts(ours); err != nil {
		return nil, err
	}
	// A setup that fits the socket's buffer is written before the helper starts, so it finds it
	// waiting: one hand-over fewer between the two processes, each of which waits for a core on a
	// loaded machine. A larger one is written once the helper reads.
	early := len(data) <= earlySetupBytes
	if early {
		if err := writeSetup(ours, data); err != nil {
			return nil, err
		}
	}
	// Linux sends the parent-death signal when the thread that forked the child exits, not the
	// process: the fork happens on a thread locked for it.
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	_ = theirs.Close() // the helper holds its own copy; ours only kept it open until the start
	if err != nil {
		return nil, startError(err)
	}
	if !early {
		err = writeSetup(ours, data)
	}
	var r *Running
	if err == nil {
		r, err = f.handshake(ours, pl)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return r, nil
}

// helperAttr is how the helper is started: the leader of a session of its own, dying with abcd, in
// new user, mount and network namespaces.
func helperAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		// A session of its own: the CLI has no controlling terminal to read the person's keys from or
		// push keys into, and its session id is its process group's, which abcd ends as one.
		Setsid:    true,
		Pdeathsig: syscall.SIGKILL,
		// A user namespace lets an unprivileged abcd make the mount and network namespaces; the user
		// stays who they are inside (mapped to themselves), and loses every capability at the exec.
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		// The helper runs as the person (not user 0) inside the namespace, so its own exec would drop
		// the capabilities the new namespace gave it: it keeps the three it needs to build the fence
		// (mounts, the loopback, dropping the bounding set), and drops every one before the command.
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP},
	}
}

// startError says why the helper could not be started: the kernel refusing the namespaces is a fence
// this machine cannot build; anything else is a fault.
func startError(err error) error {
	for _, e := range []syscall.Errno{syscall.EPERM, syscall.EACCES, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS} {
		if errors.Is(err, e) {
			return &Unavailable{Missing: fmt.Sprintf("user, mount and network namespaces: the kernel refused to make them (%s); "+
				"unprivileged user namespaces may be turned off (kernel.unprivileged_userns_clone, user.max_user_namespaces, "+
				"or an AppArmor or SELinux rule on them)", e.Error())}
		}
	}
	return fmt.Errorf("sandbox: starting its helper: %w", err)
}

// earlySetupBytes is the largest setup written before the helper starts: well within a Unix socket's
// default send buffer, so the write never waits for a reader.
const earlySetupBytes = 64 << 10

// timeouts bounds every read and write on the control socket.
func timeouts(sock int) error {
	tv := unix.NsecToTimeval(helperTimeout.Nanoseconds())
	if err := unix.SetsockoptTimeval(sock, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("sandbox: control socket: %w", err)
	}
	if err := unix.SetsockoptTimeval(sock, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return fmt.Errorf("sandbox: control socket: %w", err)
	}
	return nil
}

// writeSetup hands the helper its setup, then ends the stream so it knows the setup is whole.
func writeSetup(sock int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(sock, data)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sandbox: handing its helper the setup: %w", err)
		}
		data = data[n:]
	}
	if err := unix.Shutdown(sock, unix.SHUT_WR); err != nil {
		return fmt.Errorf("sandbox: control socket: %w", err)
	}
	return nil
}

// handshake reads the helper's reply and, when it is ready, waits for the exec.
func (f *Fence) handshake(sock int, pl plan) (*Running, error) {
	rep, fds, err := readReply(sock)
	if err != nil {
		return nil, err
	}
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), "sandbox-listener")
	}
	// Listeners refused before they were used: releasing them loses nothing.
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	switch {
	case rep.Missing != "":
		closeAll()
		return nil, &Unavailable{Missing: rep.Missing}
	case rep.Fault != "":
		closeAll()
		return nil, fmt.Errorf("sandbox: %s", rep.Fault)
	case rep.Exec != "":
		closeAll()
		return nil, fmt.Errorf("sandbox: executing the command: %s", rep.Exec)
	case len(rep.Listeners) != len(files):
		closeAll()
		return nil, fmt.Errorf("sandbox: its helper passed %d listeners for %d named", len(files), len(rep.Listeners))
	}
	rc := pl.receipt(rep.ABI)
	if rep.Hidden != nil {
		rc.Hidden = clipped(rep.Hidden)
	}
	r := newRunning(rc, pl.Endpoints, f.dial)
	for i, l := range rep.Listeners {
		ln, err := net.FileListener(files[i])
		_ = files[i].Close() // FileListener made its own copy; this one is not used again
		if err != nil {
			r.Close()
			for _, f := range files[i+1:] {
				_ = f.Close() // never used: releasing it loses nothing
			}
			return nil, fmt.Errorf("sandbox: a listener its helper passed: %w", err)
		}
		r.serve(ln, l)
	}
	// The reply is in; what follows is the end of the stream (the command runs) or the exec's error.
	after, _, err := readReply(sock)
	if err != nil {
		r.Close()
		return nil, err
	}
	if after.Exec != "" {
		r.Close()
		return nil, fmt.Errorf("sandbox: executing the command: %s", after.Exec)
	}
	return r, nil
}

func clipped(xs []string) []string {
	if len(xs) > maxPaths {
		xs = xs[:maxPaths]
	}
	return xs
}

// readReply reads one reply (a JSON line, with the descriptors sent beside it); at the end of the
// stream it returns the zero reply.
func readReply(sock int) (reply, []int, error) {
	var buf []byte
	var fds []int
	chunk := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(64*4))
	for !bytes.HasSuffix(buf, []byte("\n")) {
		n, oobn, _, _, err := unix.Recvmsg(sock, chunk, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue // the Go runtime's own signals interrupt a socket read with a timeout
		}
		if err != nil {
			closeFDs(fds)
			if errors.Is(err, unix.EAGAIN) {
				return reply{}, nil, fmt.Errorf("sandbox: its helper did not answer within %s", helperTimeout)
			}
			return reply{}, nil, fmt.Errorf("sandbox: reading its helper's reply: %w", err)
		}
		if oobn > 0 {
			msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				closeFDs(fds)
				return reply{}, nil, fmt.Errorf("sandbox: its helper's reply: %w", err)
			}
			for _, m := range msgs {
				got, err := unix.ParseUnixRights(&m)
				if err == nil {
					fds = append(fds, got...)
				}
			}
		}
		if n == 0 {
			if len(buf) > 0 {
				closeFDs(fds)
				return reply{}, nil, errors.New("sandbox: its helper's reply was cut off")
			}
			return reply{}, fds, nil
		}
		buf = append(buf, chunk[:n]...)
		if len(buf) > maxReplyBytes {
			closeFDs(fds)
			return reply{}, nil, errors.New("sandbox: its helper's reply is over its bound")
		}
	}
	var r reply
	if err := decodeStrict(bytes.TrimSuffix(buf, []byte("\n")), &r); err != nil {
		closeFDs(fds)
		return reply{}, nil, fmt.Errorf("sandbox: its helper's reply: %w", err)
	}
	return r, fds, nil
}

// closeFDs releases descriptors passed with a reply that is refused: they were never used, so
// releasing them loses nothing.
func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}
