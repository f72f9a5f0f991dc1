// Command bcload is a bounded load generator for a running beamclaw daemon
// on loopback. It sends chat turns to POST /v1/chat/completions — persisted
// (plain, stream) or ephemeral — from -c workers until -n have been sent,
// optionally sends the same turns straight to the fake provider first as a
// baseline (-fake), and prints latency percentiles, time to first token,
// throughput and the latency beamclaw adds. With -pid it also reports the
// daemon's RSS and goroutines before and after, per session created.
// -mode coldstart instead times `beamclaw start --foreground` to a ready
// /health, -n times, each in a throwaway BEAMCLAW_HOME. -mode exec times
// sandboxed exec calls over the control socket (-socket): the first of
// each of -scopes sessions (a container start), then -n warm ones; the
// daemon needs sandbox.enabled and a provider following fakellm's rules.
// -mode list makes -users stored sessions (a turn each, -c at a time) and
// times -n first pages of GET /api/v1/sessions (the console's session list).
//
// Usage:
//
//	bcload -addr 127.0.0.1:18800 [-fake http://127.0.0.1:PORT/v1] [-mode plain|stream|ephemeral|responses]
//	       [-n 2000] [-c 1] [-users 100] [-warmup 50] [-pid PID] [-json]
//	bcload -mode coldstart -bin bin/beamclaw [-n 20] [-json]
//	bcload -mode exec -socket $BEAMCLAW_HOME/run/beamclaw.sock [-scopes 20] [-n 500] [-json]
//	bcload -mode list -addr ADDR -token TOKEN [-users 10000] [-c 16] [-n 200] [-json]
//
// The daemon must run with gateway.rate_limit.enabled: false (the default
// limit of 60 requests a minute per client would answer 429). See
// scripts/measure.sh and docs/performance.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/test/load"
)

func main() { load.Main("bcload", run) }

// options are the parsed flags.
type options struct {
	addr, fake, fakeModel, agent string
	mode, prefix, bin, socket    string
	token                        string
	n, c, users, warmup, pid     int
	scopes                       int
	limit                        time.Duration
	json                         bool
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("bcload", flag.ContinueOnError)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:18800", "beamclaw HTTP address (host:port or http://host:port)")
	fs.StringVar(&o.fake, "fake", "", "fake provider base URL ending in /v1; when set, the same turns go there first as the baseline")
	fs.StringVar(&o.fakeModel, "fake-model", "fake-model", "model sent to the fake provider")
	fs.StringVar(&o.agent, "agent", "default", "agent (model) sent to beamclaw")
	fs.StringVar(&o.mode, "mode", "plain", "plain | stream | ephemeral | coldstart | exec | list")
	fs.StringVar(&o.token, "token", "", "gateway token (list: the admin API needs one; default $BEAMCLAW_GATEWAY_TOKEN)")
	fs.StringVar(&o.socket, "socket", "", "the daemon's control socket (exec)")
	fs.IntVar(&o.scopes, "scopes", 20, "sessions, each starting its sandbox container (exec)")
	fs.StringVar(&o.prefix, "prefix", fmt.Sprintf("bcload-%d-", time.Now().UnixNano()), "prefix of the user ids")
	fs.StringVar(&o.bin, "bin", "bin/beamclaw", "beamclaw binary (coldstart)")
	fs.IntVar(&o.n, "n", 1000, "measured turns (coldstart: starts)")
	fs.IntVar(&o.c, "c", 1, "concurrent workers")
	fs.IntVar(&o.users, "users", 100, "distinct user ids (sessions) the turns cycle through")
	fs.IntVar(&o.warmup, "warmup", 50, "unmeasured turns first, with their own user ids")
	fs.IntVar(&o.pid, "pid", 0, "daemon pid: report RSS and goroutines before and after")
	fs.DurationVar(&o.limit, "limit", 5*time.Minute, "bound on each phase of the run")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if !strings.HasPrefix(o.addr, "http://") {
		o.addr = "http://" + o.addr
	}
	o.addr = strings.TrimSuffix(o.addr, "/")
	return o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	switch o.mode {
	case "coldstart":
		return coldStart(ctx, o, stdout)
	case "exec":
		return execRun(ctx, o, stdout)
	case "list":
		return listRun(ctx, o, stdout)
	}
	mode, err := load.ParseMode(o.mode)
	if err != nil {
		return err
	}
	rep, err := measure(ctx, o, mode)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(stdout, rep)
	}
	rep.print(stdout)
	if rep.Target.Errors > 0 {
		return fmt.Errorf("%d turns failed; first: %s", rep.Target.Errors, rep.Target.FirstErr)
	}
	return nil
}

func coldStart(ctx context.Context, o options, stdout io.Writer) error {
	ds, err := load.ColdStart(ctx, o.bin, o.n, 30*time.Second)
	if err != nil {
		return err
	}
	s := load.Summarize(ds)
	if o.json {
		return writeJSON(stdout, map[string]any{"mode": "coldstart", "ready": s})
	}
	fmt.Fprintf(stdout, "cold start to /health ready, %d starts\n  %s\n", len(ds), s)
	return nil
}

func execRun(ctx context.Context, o options, stdout io.Writer) error {
	if o.socket == "" {
		return errors.New("-mode exec needs -socket (the daemon's control socket)")
	}
	res, err := load.RunExec(ctx, load.ExecConfig{Socket: o.socket, Agent: o.agent, Scopes: o.scopes, N: o.n,
		UserPrefix: o.prefix, Limit: o.limit})
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(stdout, map[string]any{"mode": "exec", "scopes": o.scopes, "n": o.n, "result": res}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "exec over the control socket, %d scopes then %d warm\n", o.scopes, o.n)
		fmt.Fprintf(stdout, "  first exec (container start)  %s\n  warm exec                     %s\n", res.FirstExec, res.WarmExec)
		fmt.Fprintf(stdout, "  first turn                    %s\n  warm turn                     %s\n", res.FirstTurn, res.WarmTurn)
	}
	if res.Errors > 0 {
		return fmt.Errorf("%d execs failed; first: %s", res.Errors, res.FirstErr)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

func listRun(ctx context.Context, o options, stdout io.Writer) error {
	if o.token == "" {
		o.token = os.Getenv("BEAMCLAW_GATEWAY_TOKEN")
	}
	if o.token == "" {
		return errors.New("-mode list needs -token (the admin API answers only with the gateway token)")
	}
	res, err := load.RunList(ctx, load.ListConfig{Addr: o.addr, Token: o.token, Sessions: o.users, FillC: o.c, N: o.n,
		UserPrefix: o.prefix, Limit: o.limit})
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(stdout, map[string]any{"mode": "list", "result": res})
	}
	fmt.Fprintf(stdout, "GET /api/v1/sessions?limit=50 with %d more sessions stored (filled in %s)\n  first list %s\n  then       %s\n",
		o.users, res.Fill.Round(time.Millisecond), res.First.Round(time.Microsecond), res.List)
	return nil
}
