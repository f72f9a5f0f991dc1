package main

import (
	"context"
	"fmt"
	"io"

	"github.com/beamclaw/beamclaw-go/test/load"
)

// report is everything one invocation measured.
type report struct {
	Mode    string         `json:"mode"`
	N       int            `json:"n"`
	C       int            `json:"c"`
	Users   int            `json:"users"`
	Direct  *load.Result   `json:"direct,omitempty"`
	Target  load.Result    `json:"beamclaw"`
	Added   *added         `json:"added,omitempty"`
	Before  *load.Snapshot `json:"before,omitempty"`
	After   *load.Snapshot `json:"after,omitempty"`
	Session *perSession    `json:"per_session,omitempty"`
	// CPUPerTurn is the daemon's CPU time (user + system) per measured
	// turn, in microseconds (with -pid).
	CPUPerTurn float64 `json:"cpu_per_turn_us,omitempty"`
}

// added is the latency beamclaw adds over the direct baseline.
type added struct {
	Latency load.Summary `json:"latency"`
	TTFT    load.Summary `json:"ttft"`
}

// perSession is the growth of the daemon divided by the sessions created.
type perSession struct {
	Sessions   int     `json:"sessions"`
	RSSBytes   float64 `json:"rss_bytes"`
	Goroutines float64 `json:"goroutines"`
}

// measure runs the baseline (with -fake), the warmup and the measured
// turns against beamclaw, with snapshots around the latter when -pid is set.
func measure(ctx context.Context, o options, mode load.Mode) (report, error) {
	rep := report{Mode: string(mode), N: o.n, C: o.c, Users: o.users}
	cfg := load.Config{Mode: mode, N: o.n, C: o.c, Users: o.users, Limit: o.limit}
	if o.fake != "" {
		base := cfg
		if mode == load.ModeResponses { // the provider speaks chat completions: a stored turn's call
			base.Mode = load.ModePlain
		}
		direct, err := phase(ctx, base, o.fake, o.fakeModel, o.prefix+"direct-", o.warmup)
		if err != nil {
			return rep, fmt.Errorf("direct baseline: %w", err)
		}
		rep.Direct = &direct
	}
	hc := load.NewClient(o.c)
	defer hc.CloseIdleConnections()
	cfg.Client, cfg.BaseURL, cfg.Model = hc, o.addr+"/v1", o.agent
	if o.warmup > 0 {
		warm := cfg
		warm.N, warm.UserPrefix = o.warmup, o.prefix+"warm-"
		if _, err := load.Run(ctx, warm); err != nil {
			return rep, fmt.Errorf("warmup: %w", err)
		}
	}
	if o.pid != 0 {
		s, err := load.Snap(ctx, hc, o.pid, o.addr)
		if err != nil {
			return rep, err
		}
		rep.Before = &s
	}
	cfg.UserPrefix = o.prefix
	res, err := load.Run(ctx, cfg)
	rep.Target = res
	if err != nil {
		return rep, err
	}
	if o.pid != 0 {
		s, err := load.Snap(ctx, hc, o.pid, o.addr)
		if err != nil {
			return rep, err
		}
		rep.After = &s
		rep.CPUPerTurn = (s.CPU - rep.Before.CPU) * 1e6 / float64(o.n)
		if s.Goroutines >= 0 {
			rep.Session = sessionCost(*rep.Before, s, mode, min(o.users, o.n))
		}
	}
	if rep.Direct != nil {
		rep.Added = &added{Latency: res.Latency.Sub(rep.Direct.Latency), TTFT: res.TTFT.Sub(rep.Direct.TTFT)}
	}
	return rep, nil
}

// phase is one warmed-up run on its own client.
func phase(ctx context.Context, cfg load.Config, base, model, prefix string, warmup int) (load.Result, error) {
	hc := load.NewClient(cfg.C)
	defer hc.CloseIdleConnections()
	cfg.Client, cfg.BaseURL, cfg.Model = hc, base, model
	if warmup > 0 {
		warm := cfg
		warm.N, warm.UserPrefix = warmup, prefix+"warm-"
		if _, err := load.Run(ctx, warm); err != nil {
			return load.Result{}, fmt.Errorf("warmup: %w", err)
		}
	}
	cfg.UserPrefix = prefix
	return load.Run(ctx, cfg)
}

// sessionCost divides the growth by the sessions the run created
// (ephemeral turns create none).
func sessionCost(before, after load.Snapshot, mode load.Mode, sessions int) *perSession {
	if mode == load.ModeEphemeral || sessions == 0 {
		return nil
	}
	return &perSession{
		Sessions:   sessions,
		RSSBytes:   float64(after.RSS-before.RSS) / float64(sessions),
		Goroutines: (after.Goroutines - before.Goroutines) / float64(sessions),
	}
}

func (r report) print(w io.Writer) {
	fmt.Fprintf(w, "mode %s  n %d  c %d  users %d\n", r.Mode, r.N, r.C, r.Users)
	if r.Direct != nil {
		line(w, "direct", *r.Direct)
	}
	line(w, "beamclaw", r.Target)
	if r.Added != nil {
		fmt.Fprintf(w, "%-9s latency %s\n", "added", r.Added.Latency)
		if r.Added.TTFT.N > 0 {
			fmt.Fprintf(w, "%-9s ttft    %s\n", "added", r.Added.TTFT)
		}
	}
	if r.Before != nil && r.After != nil {
		fmt.Fprintf(w, "daemon    rss %.1f MB -> %.1f MB  goroutines %.0f -> %.0f\n",
			mb(r.Before.RSS), mb(r.After.RSS), r.Before.Goroutines, r.After.Goroutines)
		fmt.Fprintf(w, "daemon    cpu %.0f µs per turn\n", r.CPUPerTurn)
	}
	if r.Session != nil {
		fmt.Fprintf(w, "per session (%d)  rss %.1f KB  goroutines %.2f\n",
			r.Session.Sessions, r.Session.RSSBytes/1024, r.Session.Goroutines)
	}
}

func line(w io.Writer, name string, r load.Result) {
	fmt.Fprintf(w, "%-9s latency %s\n", name, r.Latency)
	if r.TTFT.N > 0 {
		fmt.Fprintf(w, "%-9s ttft    %s\n", name, r.TTFT)
	}
	fmt.Fprintf(w, "%-9s %.0f turns/s  errors %d  elapsed %s\n", name, r.PerSec, r.Errors, r.Elapsed.Round(1e6))
	if r.FirstErr != "" {
		fmt.Fprintf(w, "%-9s first error: %s\n", name, r.FirstErr)
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
