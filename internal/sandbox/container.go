package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// Container labels. beamclaw.install, .session and .posture are the
// issue's; the rest let the reaper and `sandbox list` tell containers apart.
const (
	LabelInstall  = "beamclaw.install"  // Options.InstallID
	LabelSession  = "beamclaw.session"  // the session (scope session), else empty
	LabelAgent    = "beamclaw.agent"    // the agent (scopes session and agent), else empty
	LabelScope    = "beamclaw.scope"    // session | agent | shared
	LabelPosture  = "beamclaw.posture"  // hash of the hardening settings and the image id
	LabelDaemon   = "beamclaw.daemon"   // "<boot id>/<pid>/<start time>" of the owning daemon
	LabelInstance = "beamclaw.instance" // the owning Manager (several may live in one process)
)

// Fixed parts of the hardening.
const (
	// runnerUser is the runner's: root with only runnerCaps, so that it
	// can give each run a uid of its own (docker/sandbox/runner.py); the
	// runs have no capability at all.
	runnerUser   = "0:0"
	tmpfsOptions = "rw,noexec,nosuid,nodev,size=64m"
	// mqueueOptions hides the IPC namespace's message queues behind an
	// empty read-only tmpfs: /tmp and /dev/shm are the writable places.
	mqueueOptions = "ro,nosuid,nodev,noexec,size=4k"
	logMaxSize    = "1m"
	runnerMount   = "/run/beamclaw"
	toolsMount    = "/tools"
	workspaceDir  = "/workspace"
	containerName = "beamclaw-sbx-"
)

// runnerCaps are the only capabilities of the container (its runner's):
// setuid and setgid to each run's own user, kill to end every process of
// a run without forking (a run at its pids limit could stop a fork).
var runnerCaps = []string{"KILL", "SETGID", "SETUID"} // sorted, as the engine reports them

// runnerCmd is the container's main process (docker/sandbox/runner.py).
var runnerCmd = []string{"/usr/bin/python3", "-I", "/opt/beamclaw/runner.py"}

// posture hashes every hardening setting and the image id: a container
// whose label differs was made under other rules and is recreated.
func (m *Manager) posture(imageID string) string {
	o := m.opts
	parts := []string{
		"posture/1", imageID, o.Network, strconv.FormatInt(m.limits.memory, 10),
		strconv.FormatInt(m.limits.nanoCPUs, 10), strconv.Itoa(o.PidsLimit), o.Runtime,
		o.WorkspaceMount, runnerUser, strings.Join(runnerCaps, "+"), tmpfsOptions, mqueueOptions, logMaxSize, "cap-drop=ALL", "read-only",
		"no-new-privileges", "init",
	}
	for _, k := range envNames(m.env) {
		parts = append(parts, k+"="+m.env[k])
	}
	return hashStrings(parts...)[:32]
}

// workspaceFor returns the host directory to mount at /workspace for a
// box of caller c, or "" for none.
func (m *Manager) workspaceFor(c Caller) string {
	if m.opts.WorkspaceMount == "none" || m.opts.Scope == ScopeShared || c.Workspace == "" {
		return ""
	}
	abs, err := filepath.Abs(c.Workspace)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return ""
	}
	return abs
}

// createOptions is the hardened container of box b.
func (m *Manager) createOptions(b *box, imageID string) client.ContainerCreateOptions {
	o := m.opts
	labels := map[string]string{
		LabelInstall:  o.InstallID,
		LabelScope:    o.Scope,
		LabelPosture:  m.posture(imageID),
		LabelDaemon:   m.daemon.String(),
		LabelInstance: m.instance,
		LabelSession:  "",
		LabelAgent:    "",
	}
	switch o.Scope {
	case ScopeSession:
		labels[LabelSession] = b.caller.SessionID
		labels[LabelAgent] = b.caller.AgentID
	case ScopeAgent:
		labels[LabelAgent] = b.caller.AgentID
	}
	mounts := []mount.Mount{
		{Type: mount.TypeBind, Source: b.dir, Target: runnerMount, ReadOnly: true},
		{Type: mount.TypeBind, Source: filepath.Join(b.dir, "tools"), Target: toolsMount, ReadOnly: true},
	}
	if b.workspace != "" {
		mounts = append(mounts, mount.Mount{
			Type: mount.TypeBind, Source: b.workspace, Target: workspaceDir, ReadOnly: o.WorkspaceMount != "rw",
		})
	}
	pids := int64(o.PidsLimit)
	withInit := true
	return client.ContainerCreateOptions{
		Name: b.name,
		Config: &container.Config{
			Image:      imageID,
			Cmd:        runnerCmd,
			User:       runnerUser,
			WorkingDir: "/tmp",
			Env:        []string{"LANG=C.UTF-8", "HOME=/tmp", "PATH=" + fixedEnv["PATH"]},
			Labels:     labels,
		},
		HostConfig: &container.HostConfig{
			NetworkMode:    container.NetworkMode(o.Network),
			CapDrop:        []string{"ALL"},
			CapAdd:         runnerCaps,
			SecurityOpt:    []string{"no-new-privileges"},
			ReadonlyRootfs: true,
			Init:           &withInit,
			IpcMode:        "private",
			Tmpfs:          map[string]string{"/tmp": tmpfsOptions, "/dev/mqueue": mqueueOptions},
			LogConfig: container.LogConfig{Type: "json-file", Config: map[string]string{
				"max-size": logMaxSize, "max-file": "1",
			}},
			Runtime: o.Runtime,
			Mounts:  mounts,
			Resources: container.Resources{
				Memory:     m.limits.memory,
				MemorySwap: m.limits.memory,
				NanoCPUs:   m.limits.nanoCPUs,
				PidsLimit:  &pids,
			},
		},
	}
}

// boxName is a fresh container name for scope key k.
func boxName(k string) string {
	return fmt.Sprintf("%s%s-%s", containerName, hashStrings(k)[:10], randomHex(3))
}
