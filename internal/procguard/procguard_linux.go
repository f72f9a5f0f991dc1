//go:build linux

package procguard

import (
	"fmt"
	"os"
	"os/exec"
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
// root); nothing otherwise. It checks once that the kernel allows user
// namespaces; when it does not, the error says what a root daemon's tools
// can still read.
func Isolate() (func(*syscall.SysProcAttr), error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	probe := exec.Command("/bin/true")
	probe.SysProcAttr = &syscall.SysProcAttr{}
	userns(probe.SysProcAttr)
	if err := probe.Run(); err != nil {
		return nil, fmt.Errorf("user namespaces unavailable (%w): tools started by a root daemon can read its environment; run beamclaw as an unprivileged user", err)
	}
	return userns, nil
}

func userns(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
}
