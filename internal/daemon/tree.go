package daemon

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/obs"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// tree builds the root supervisor and every subsystem under it.
func (d *daemon) tree() (*suture.Supervisor, error) {
	d.bus = obs.NewBus(d.plan.QueueSize)
	d.bus.Add(obs.NewLogBackend(d.log))
	d.metrics = obs.NewMetrics(d.bus.Dropped)
	d.bus.Add(d.metrics)
	d.events = control.NewEvents() // the admin API's live stream
	d.bus.Add(d.events)

	opts := supervise.Options{Logger: d.log, Timeout: d.plan.ShutdownTimeout}
	root := supervise.New("beamclaw", opts)

	obsSup := supervise.New("obs", opts)
	obsSup.Add(d.guard(d.bus))
	root.Add(obsSup)

	d.metrics.StoreWriteFailures(d.db.WriteFailures)
	d.clusterMetrics()
	d.metrics.StoreCommits(d.db.Commits)
	d.check("store", func() protocol.Subsystem {
		if ok, err := d.db.Writable(); !ok {
			return protocol.Subsystem{Ready: false, Detail: d.db.Path() + ": cannot be written: " + err.Error()}
		}
		return protocol.Subsystem{Ready: true, Detail: d.db.Path()}
	})

	d.watch.lap("obs")
	routes, control, services, err := d.subsystemsInto(root, opts)
	if err != nil {
		return nil, err
	}
	d.watch.lap("edges")
	gw, err := d.gateway(routes, control)
	if err != nil {
		return nil, err
	}
	gwSup := supervise.New("gateway", opts)
	gwSup.Add(d.guard(supervise.Func("gateway.ratelimit", gw.PruneService())))
	for _, svc := range services {
		gwSup.Add(d.guard(svc))
	}
	gwSup.Add(d.guard(gw.PublicService("gateway.http", d.public)))
	gwSup.Add(d.guard(gw.Service("gateway.control", d.control, gw.ControlHandler())))
	root.Add(gwSup)
	d.check("gateway", func() protocol.Subsystem {
		return protocol.Subsystem{Ready: true, Detail: d.public.Addr().String()}
	})
	d.watch.lap("gateway")
	return root, nil
}

func (d *daemon) gateway(routes, control []gateway.Mount) (*gateway.Server, error) {
	opts := d.plan.Gateway
	opts.Logger, opts.Metrics, opts.Health, opts.Status, opts.Stop = d.log, d.metrics, d.health, d.status, d.stop
	opts.Routes, opts.Control, opts.Admit = routes, control, d.admit
	if d.plan.Metrics {
		opts.MetricsHandler = d.metrics.Handler()
	}
	return gateway.New(opts), nil
}

func (d *daemon) health(context.Context) protocol.Health {
	subs := d.subsystems()
	h := protocol.Health{Status: "ok", Ready: true, Version: d.opts.Build.Version, Subsystems: subs}
	for _, s := range subs {
		if !s.Ready {
			h.Status, h.Ready = "degraded", false
		}
	}
	return h
}

func (d *daemon) status(context.Context) protocol.Status {
	return protocol.Status{
		PID:           os.Getpid(),
		Version:       d.opts.Build.Version,
		Commit:        d.opts.Build.Commit,
		GoVersion:     runtime.Version(),
		StartedAt:     d.started.UTC().Format(time.RFC3339),
		UptimeSeconds: time.Since(d.started).Seconds(),
		HTTPAddr:      d.public.Addr().String(),
		Socket:        d.paths.Socket,
		Home:          d.paths.Home,
		Subsystems:    d.subsystems(),
		Warnings:      d.plan.Warnings,
	}
}
