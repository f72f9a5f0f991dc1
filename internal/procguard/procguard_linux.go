//go:build linux

package procguard

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
)

// Harden marks the process non-dumpable: its /proc/PID/{environ,mem} and
// ptrace are closed to every unprivileged process of the same user.
func Harden() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); e != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", e)
	}
	return nil
}

// capSysAdmin is CAP_SYS_ADMIN, which the namespace's init keeps (as an
// ambient capability of its own user namespace) to mount its /proc.
const capSysAdmin = 21

// Isolation is what tool processes get, found once by starting one.
type Isolation struct {
	// Namespaces: each tool process runs under an init of its own in new
	// user, PID and mount namespaces with a /proc of its own: it sees no
	// other process of the host (the daemon, its MCP servers, the user's
	// other programs), and everything it starts ends with it.
	Namespaces bool
	// Err says why not, and what a tool process can reach instead.
	Err error
}

// Isolator wraps tool processes in their namespaces when the host allows.
type Isolator struct {
	exe   string
	probe func() Isolation
}

// NewIsolator returns the daemon's isolator; the first Wrap or Probe
// starts one process to learn whether the host allows user namespaces.
func NewIsolator() *Isolator {
	i := &Isolator{}
	exe, err := os.Executable()
	i.exe = exe
	i.probe = sync.OnceValue(func() Isolation {
		if err != nil {
			return Isolation{Err: fmt.Errorf("the daemon's own binary cannot be found (%w)", err)}
		}
		probe := exec.Command("/bin/true")
		i.wrap(probe)
		out, err := probe.CombinedOutput()
		if err != nil {
			return Isolation{Err: fmt.Errorf("user namespaces unavailable here (%w: %s): tool processes (bash, terminal) can read the environment of every process of the daemon's user, its MCP servers' included",
				err, trimOutput(out))}
		}
		return Isolation{Namespaces: true}
	})
	return i
}

// Probe reports the isolation in effect (starting the probe if needed).
func (i *Isolator) Probe() Isolation { return i.probe() }

// Wrap makes cmd start under the namespace init when the host allows it;
// otherwise it leaves cmd as it is.
func (i *Isolator) Wrap(cmd *exec.Cmd) {
	if i.probe().Namespaces {
		i.wrap(cmd)
	}
}

func (i *Isolator) wrap(cmd *exec.Cmd) {
	path := cmd.Path
	if cmd.Err == nil && cmd.Path != "" {
		cmd.Args = append([]string{i.exe, InitArg, path}, cmd.Args...)
		cmd.Path = i.exe
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	uid, gid := os.Geteuid(), os.Getegid()
	// Inside, the tool is never root (a root daemon's is uid 1): root in
	// its namespace could unmount the private /proc and see the host's.
	// Its files are reached as the daemon's user all the same.
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: max(uid, 1), HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: max(gid, 1), HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = []uintptr{capSysAdmin}
}

func trimOutput(b []byte) string {
	const max = 200
	if len(b) > max {
		b = b[:max]
	}
	return string(b)
}

// RunInit is the init of a tool process's namespaces (the binary started
// with InitArg): it mounts a /proc of its own, drops its capability, runs
// args (path, then argv) and reaps every process until that one ends,
// returning its exit status. When it returns, the kernel ends whatever
// else runs in the namespace.
func RunInit(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "beamclaw tool init: no program")
		return 127
	}
	// Capabilities and no_new_privs belong to a thread: the tool is
	// forked from this one, which drops them first.
	runtime.LockOSThread()
	if err := mountProc(); err != nil {
		fmt.Fprintf(os.Stderr, "beamclaw tool init: %v\n", err)
		return 126
	}
	if err := Harden(); err != nil { // the tool's parent is no more readable than the daemon
		fmt.Fprintf(os.Stderr, "beamclaw tool init: %v\n", err)
		return 126
	}
	cmd := exec.Command(args[0])
	cmd.Args = args[1:]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "beamclaw tool init: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	return reap(cmd.Process.Pid)
}

// mountProc gives the namespace a /proc that lists its processes only,
// then clears the ambient capability the mount needed.
func mountProc() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	const prCapAmbient, prCapAmbientClearAll, prSetNoNewPrivs = 47, 4, 38
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("clear ambient capabilities: %w", e)
	}
	// No capability comes back: not from a file's capabilities nor a
	// setuid binary (the tool runs as a non-root uid of the namespace, so
	// execve leaves it none).
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("no_new_privs: %w", e)
	}
	return nil
}

// reap waits for every child (orphans are the init's) until main ends.
func reap(main int) int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 127
		}
		if pid != main {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}
