package daemon

import (
	"context"
	"fmt"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// sandboxInto builds the code sandbox when sandbox.enabled: a Manager
// whose bridge acts through the calling run (sandbox.RunTools), whose
// reaper asks the sessions which still exist, and whose Gate registers
// the exec tool once Docker and the image are there (checked now, then
// every 30 s), saying why not until then. Code never runs on the host.
func (d *daemon) sandboxInto(root *suture.Supervisor, opts supervise.Options, rt *agentRuntime) error {
	if d.plan.Sandbox == nil {
		return nil
	}
	o := *d.plan.Sandbox
	id, err := sandbox.InstallID(d.paths.InstallID)
	if err != nil {
		return err
	}
	o.InstallID, o.Tools, o.Logger = id, sandbox.RunTools{}, d.log
	o.SecretValues = d.plan.Secrets
	o.SessionAlive = func(id string) bool { return rt.sessions.Exists(id) }
	o.Scrub = rt.scrubber.String
	o.Emit = func(ev beamclaw.Event) { d.bus.Emit(context.Background(), ev) }
	m, err := sandbox.New(o)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	d.sandbox = m
	sup := supervise.New("sandbox", opts)
	gate := m.NewGate(sandbox.GateOptions{Supervisor: sup, Enable: func(ctx context.Context) error {
		exec, err := sandbox.NewExecTool(ctx, m, sandbox.ExecOptions{SkillDirs: rt.agents.SkillDirs})
		if err != nil {
			return err
		}
		return rt.tools.Register(exec)
	}})
	gate.Try(context.Background())
	sup.Add(d.guard(gate))
	root.Add(sup)
	rt.sandbox, rt.sandboxGate = m, gate
	d.bus.Add(sessionExpiry{m})
	// Like an MCP server that failed, a sandbox that cannot run leaves the
	// daemon ready (everything else works); the detail says why.
	d.check("sandbox", func() protocol.Subsystem {
		if p := gate.Problem(); p != "" {
			return protocol.Subsystem{Ready: true, Detail: "exec is off: " + p}
		}
		return protocol.Subsystem{Ready: true, Detail: fmt.Sprintf("exec on (image %s, scope %s, network %s)", o.Image, o.Scope, o.Network)}
	})
	return nil
}

// sessionExpiry asks the sandbox's reaper to sweep when a session was
// archived or deleted, so its container goes now rather than at the next
// interval.
type sessionExpiry struct{ m *sandbox.Manager }

func (s sessionExpiry) Handle(ev beamclaw.Event) {
	if ev.Name == beamclaw.EventSessionExpired || ev.Name == beamclaw.EventSessionEnd {
		s.m.SweepSoon()
	}
}
