package control

import (
	"net/http"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// sandboxOff answers a sandbox route of a daemon that runs without one.
func (c *handlers) sandboxOff(w http.ResponseWriter) bool {
	if c.sandbox != nil {
		return false
	}
	writeError(w, http.StatusConflict, "the running daemon has the sandbox off (sandbox.enabled was false when it started): "+
		"restart it with `beamclaw restart`")
	return true
}

// sandboxStatus checks again (so exec comes on at once after a fix) and
// reports.
func (c *handlers) sandboxStatus(w http.ResponseWriter, r *http.Request) {
	if c.sandboxOff(w) {
		return
	}
	problem := c.gate.Try(r.Context())
	out := SandboxStatusWire(c.sandbox.Status(r.Context()), true, problem)
	out.Daemon, out.ExecOn = true, c.gate.On()
	writeJSON(w, http.StatusOK, out)
}

func (c *handlers) sandboxList(w http.ResponseWriter, r *http.Request) {
	if c.sandboxOff(w) {
		return
	}
	list, err := c.sandbox.List(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, protocol.SandboxContainers{Daemon: true, Containers: SandboxContainersWire(list)})
}

func (c *handlers) sandboxKill(w http.ResponseWriter, r *http.Request) {
	var req protocol.SandboxKillRequest
	if !decodeBody(w, r, &req) || c.sandboxOff(w) {
		return
	}
	if err := c.sandbox.Kill(r.Context(), req.Container); err != nil {
		status := http.StatusServiceUnavailable
		switch beamclaw.KindOf(err) {
		case beamclaw.KindInvalid:
			status = http.StatusBadRequest
		case beamclaw.KindNotFound:
			status = http.StatusNotFound
		}
		writeError(w, status, beamclaw.UserMessage(err))
		return
	}
	c.log.Info("sandbox container killed", "container", req.Container)
	w.WriteHeader(http.StatusNoContent)
}

// SandboxStatusWire is the wire form of a Manager's Status, with the fix
// for its problem; problem, when not empty, replaces Status's (the gate's
// own words are better when Enable failed).
func SandboxStatusWire(st sandbox.Status, enabled bool, problem string) protocol.SandboxStatus {
	if problem == "" {
		problem = st.Problem
	}
	out := protocol.SandboxStatus{Enabled: enabled, Problem: problem, InstallID: st.InstallID,
		Engine: st.Engine, EngineOK: st.EngineOK, EngineVersion: st.EngineVersion, APIVersion: st.APIVersion,
		Image: st.Image, ImageID: shortImageID(st.ImageID), ImageCurrent: st.ImageCurrent,
		Runtime: st.Runtime, RuntimeOK: st.RuntimeOK, Runtimes: st.Runtimes, Containers: st.Containers}
	out.Fix = sandboxFix(out)
	return out
}

// SandboxContainersWire is the wire form of a Manager's List.
func SandboxContainersWire(list []sandbox.ContainerInfo) []protocol.SandboxContainer {
	out := make([]protocol.SandboxContainer, 0, len(list))
	for _, c := range list {
		out = append(out, protocol.SandboxContainer{ID: c.ID, Name: c.Name, Scope: c.Scope, Session: c.Session,
			Agent: c.Agent, State: c.State, Status: c.Status, Created: stamp(c.Created), Mine: c.Mine, InFlight: c.InFlight})
	}
	return out
}

func shortImageID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// sandboxFix is what to do about a status's problem ("" without one).
func sandboxFix(st protocol.SandboxStatus) string {
	switch {
	case st.Problem == "":
		return ""
	case !st.EngineOK:
		return "start dockerd (or add this user to the docker group, or set DOCKER_HOST); a running daemon turns exec on by itself once it answers"
	case st.ImageID == "" || !st.ImageCurrent:
		return "run `beamclaw sandbox build`; a running daemon turns exec on when it finishes"
	case !st.RuntimeOK:
		return "register runsc with the engine (see docs/sandbox.md), or set sandbox.runtime: runc"
	}
	return "see docs/sandbox.md#troubleshooting"
}
