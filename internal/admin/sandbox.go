package admin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// sandboxCheckTimeout bounds doctor's and config check's look at Docker.
const sandboxCheckTimeout = 10 * time.Second

// SandboxOptions turns the sandbox section into sandbox.Options, for the
// daemon's plan and the CLI alike. Whoever runs the Manager adds the live
// parts: the install id, the bridge's tools, session liveness, the
// scrubber, the event sink and the logger.
func SandboxOptions(c *config.Config, getenv func(string) string) sandbox.Options {
	o := c.Sandbox.Options()
	o.SecretValues = c.SecretValues(getenv)
	o.DockerHost = getenv("DOCKER_HOST")
	return o
}

// sandboxManager is a Manager for this home without a daemon: it runs
// nothing, it reports (Status, List) and removes (Kill).
func (a *Admin) sandboxManager(l config.Loaded) (*sandbox.Manager, error) {
	id, err := sandbox.InstallID(l.Paths.InstallID)
	if err != nil {
		return nil, err
	}
	o := SandboxOptions(l.Config, a.getenv)
	o.InstallID = id
	m, err := sandbox.New(o)
	if err != nil {
		return nil, control.Plain(err)
	}
	return m, nil
}

// SandboxStatus reports the sandbox: the running daemon's view when
// sandbox.enabled and a daemon runs (asking makes it check again), the
// engine's otherwise.
func (a *Admin) SandboxStatus(ctx context.Context) (protocol.SandboxStatus, error) {
	return sandboxDo(ctx, a, http.MethodGet, protocol.ControlSandbox, nil,
		func(m *sandbox.Manager, l config.Loaded) (protocol.SandboxStatus, error) {
			return control.SandboxStatusWire(m.Status(ctx), l.Sandbox.Enabled, ""), nil
		})
}

// SandboxList lists this installation's sandbox containers.
func (a *Admin) SandboxList(ctx context.Context) (protocol.SandboxContainers, error) {
	return sandboxDo(ctx, a, http.MethodGet, protocol.ControlSandboxContainers, nil,
		func(m *sandbox.Manager, _ config.Loaded) (protocol.SandboxContainers, error) {
			list, err := m.List(ctx)
			if err != nil {
				return protocol.SandboxContainers{}, control.Plain(err)
			}
			return protocol.SandboxContainers{Containers: control.SandboxContainersWire(list)}, nil
		})
}

// SandboxKill removes one of this installation's containers (by name,
// or a prefix of its name or id): through the daemon that owns it, or on
// the engine when none runs.
func (a *Admin) SandboxKill(ctx context.Context, container string) error {
	_, err := sandboxDo(ctx, a, http.MethodPost, protocol.ControlSandboxKill, protocol.SandboxKillRequest{Container: container},
		func(m *sandbox.Manager, _ config.Loaded) (struct{}, error) {
			return struct{}{}, control.Plain(m.Kill(ctx, container))
		})
	return err
}

// sandboxDo asks the running daemon (method, path, in) when
// sandbox.enabled and one runs; otherwise local answers on a Manager of
// its own, without a daemon.
func sandboxDo[T any](ctx context.Context, a *Admin, method, path string, in any,
	local func(*sandbox.Manager, config.Loaded) (T, error)) (T, error) {
	var out T
	l, err := a.load()
	if err != nil {
		return out, err
	}
	if l.Sandbox.Enabled {
		if ok, err := controlDo(ctx, l.Paths.Socket, method, path, in, &out); ok || err != nil {
			return out, err
		}
	}
	m, err := a.sandboxManager(l)
	if err != nil {
		return out, err
	}
	defer m.Close()
	return local(m, l)
}

// SandboxBuild builds sandbox.docker_image on the local engine, writing
// progress; an image built from the same files is left alone. A running
// daemon is then asked to check again, so exec comes on at once.
func (a *Admin) SandboxBuild(ctx context.Context, force bool, mirror string, progress io.Writer) (protocol.SandboxBuild, error) {
	l, err := a.load()
	if err != nil {
		return protocol.SandboxBuild{}, err
	}
	res, err := sandbox.BuildImage(ctx, sandbox.BuildOptions{Image: l.Sandbox.DockerImage, Force: force, Mirror: mirror,
		DockerHost: a.getenv("DOCKER_HOST")}, progress)
	if err != nil {
		return protocol.SandboxBuild{}, control.Plain(err)
	}
	out := protocol.SandboxBuild{Image: res.Image, ImageID: res.ImageID, Built: res.Built, Base: res.Base, BaseBuilt: res.BaseBuilt}
	if l.Sandbox.Enabled {
		var st protocol.SandboxStatus
		if ok, err := controlDo(ctx, l.Paths.Socket, http.MethodGet, protocol.ControlSandbox, nil, &st); ok && err == nil {
			out.Daemon = &st
		}
	}
	return out, nil
}

// sandboxCheck is doctor's line: off, working, or failing with the fix.
func (a *Admin) sandboxCheck(ctx context.Context, l config.Loaded) protocol.Check {
	if !l.Sandbox.Enabled {
		return ok("sandbox", "off (sandbox.enabled: false): agents have no exec tool")
	}
	ctx, cancel := context.WithTimeout(ctx, sandboxCheckTimeout)
	defer cancel()
	st, err := a.SandboxStatus(ctx)
	switch {
	case err != nil:
		return fail("sandbox", err.Error(), "run `beamclaw sandbox status` for details")
	case st.Problem != "":
		return fail("sandbox", "exec cannot run: "+st.Problem, st.Fix)
	}
	detail := fmt.Sprintf("engine %s (API %s) at %s, image %s (%s)", st.EngineVersion, st.APIVersion, st.Engine, st.Image, st.ImageID)
	if st.Daemon {
		detail += fmt.Sprintf("; the running daemon offers exec (%d containers)", st.Containers)
	}
	return ok("sandbox", detail)
}

// cannotRun lists the sections the config enables that cannot run here,
// one warning each (config check and start print them).
func (a *Admin) cannotRun(ctx context.Context, l config.Loaded) []string {
	var out []string
	if l.Sandbox.Enabled {
		ctx, cancel := context.WithTimeout(ctx, sandboxCheckTimeout)
		defer cancel()
		if st, err := a.SandboxStatus(ctx); err != nil || st.Problem != "" {
			why := st.Problem
			if err != nil {
				why = err.Error()
			}
			out = append(out, "sandbox.enabled is true but sandboxed code execution cannot run here, so agents get no exec tool: "+
				strings.TrimSuffix(why, "."))
		}
	}
	return out
}
