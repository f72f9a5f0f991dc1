//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in its own process group so that
// launchers (npx, uvx, sh) and their children are stopped together.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
