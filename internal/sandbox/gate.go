package sandbox

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Defaults of GateOptions.
const (
	DefaultGateInterval = 30 * time.Second
	gateCheckTimeout    = 10 * time.Second
)

// GateOptions configure a Gate.
type GateOptions struct {
	// Supervisor receives the Manager's services (registry, reaper) once
	// Check passes. Required.
	Supervisor *suture.Supervisor
	// Enable is called once Check passed, before the services are added:
	// the daemon registers the exec tool there (NewExecTool). Its error
	// keeps sandboxed execution off and becomes the problem shown.
	Enable func(ctx context.Context) error
	// Interval between checks while sandboxed execution is off (default
	// DefaultGateInterval).
	Interval time.Duration
}

// Gate turns sandboxed execution on once it can run here: the daemon
// calls Try at start, then runs the Gate as a service, which checks again
// every Interval until Check passes (the engine started, `beamclaw
// sandbox build` ran). Until then exec is not offered, the first problem
// is logged once at WARN with its fix, and Problem reports it (for
// /health and doctor). Code never falls back to running on the host.
type Gate struct {
	m    *Manager
	opts GateOptions

	mu      sync.Mutex // serialises Try
	added   bool       // the services are in the supervisor
	warned  bool
	on      atomic.Bool
	problem atomic.Pointer[string]
}

// NewGate returns the Gate of m.
func (m *Manager) NewGate(opts GateOptions) *Gate {
	if opts.Interval <= 0 {
		opts.Interval = DefaultGateInterval
	}
	if opts.Enable == nil {
		opts.Enable = func(context.Context) error { return nil }
	}
	g := &Gate{m: m, opts: opts}
	off := "not checked yet"
	g.problem.Store(&off)
	return g
}

func (g *Gate) String() string { return "sandbox-gate" }

// On reports whether sandboxed execution is on.
func (g *Gate) On() bool { return g.on.Load() }

// Problem is why sandboxed execution is off, for the user ("" when on).
func (g *Gate) Problem() string {
	if g.on.Load() {
		return ""
	}
	return *g.problem.Load()
}

// Try checks now and, when Check passes, turns sandboxed execution on
// (once). It returns the problem, "" when on.
func (g *Gate) Try(ctx context.Context) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.on.Load() {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, gateCheckTimeout)
	defer cancel()
	err := g.m.Check(ctx)
	if err == nil {
		err = g.opts.Enable(ctx)
	}
	if err != nil {
		msg := beamclaw.UserMessage(err)
		g.problem.Store(&msg)
		if !g.warned {
			g.warned = true
			g.m.log.Warn("sandbox: the exec tool is not offered: "+msg+
				"; code never runs on the host. It comes on by itself once fixed",
				"recheck", g.opts.Interval)
		} else {
			g.m.log.Debug("sandbox: still off", "problem", msg)
		}
		return msg
	}
	if !g.added {
		g.added = true
		for _, s := range g.m.Services() {
			g.opts.Supervisor.Add(s)
		}
	}
	g.on.Store(true)
	g.m.log.Info("sandbox: the exec tool is on", "image", g.m.opts.Image, "scope", g.m.opts.Scope,
		"network", g.m.opts.Network, "runtime", g.m.opts.Runtime)
	return ""
}

// Serve checks every Interval until sandboxed execution is on, then
// waits for ctx.
func (g *Gate) Serve(ctx context.Context) error {
	for !g.on.Load() {
		select {
		case <-ctx.Done():
			return nil
		case <-g.m.clk.After(g.opts.Interval):
		}
		g.Try(ctx)
	}
	<-ctx.Done()
	return nil
}
