//go:build linux

package procguard

import (
	"fmt"
	"os"
	"os/exec"
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

// Isolate returns what tool processes need on top of Harden: for a
// daemon running as root, a user namespace per process (root mapped to
// root); nil otherwise. Whether the kernel allows user namespaces is
// checked once, when the first tool process starts (the check starts a
// process of its own, ~5 ms that the daemon's start does not pay); when it
// does not, unavailable gets an error saying what a root daemon's tools
// can still read, once, and processes start without a namespace.
func Isolate(unavailable func(error)) func(*syscall.SysProcAttr) {
	if os.Geteuid() != 0 {
		return nil
	}
	allowed := sync.OnceValue(func() bool {
		probe := exec.Command("/bin/true")
		probe.SysProcAttr = &syscall.SysProcAttr{}
		userns(probe.SysProcAttr)
		if err := probe.Run(); err != nil {
			if unavailable != nil {
				unavailable(fmt.Errorf("user namespaces unavailable (%w): tools started by a root daemon can read its environment; run beamclaw as an unprivileged user", err))
			}
			return false
		}
		return true
	})
	return func(a *syscall.SysProcAttr) {
		if allowed() {
			userns(a)
		}
	}
}

func userns(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
}
