// Command bcsoak is the kill -9 soak of the real binary (make soak): it
// grows a BEAMCLAW_HOME to -sessions stored sessions over HTTP (turns of
// distinct users, -fill-c at a time; the home keeps them for the next
// soak), times a start after a graceful stop, then -cycles times starts
// the daemon (with -cold, the default, its database dropped from the page
// cache first, as other work on the machine leaves it), lets -clients
// write turns (users of their own and two shared ones) and kills it with
// SIGKILL 0.3 to 1.5 s later. A last start
// reads every soak user's history over the control socket. It prints
// exec-to-ready of the starts after kill -9 (p50, p95, max), the
// start-up phases the daemon logged at debug level, and the acknowledged
// turns (answered 200) lost or doubled; lost or doubled turns, or a start
// that is not ready within -limit, fail it.
//
// Usage:
//
//	bcsoak -bin bin/beamclaw -fake http://127.0.0.1:PORT/v1 -home DIR
//	       [-sessions 100000] [-cycles 20] [-clients 4] [-fill-c 16] [-cold=false] [-limit 60s] [-json]
//
// See scripts/soak.sh and docs/performance.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/test/load"
)

func main() { load.Main("bcsoak", run) }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var cfg load.SoakConfig
	var asJSON bool
	fs := flag.NewFlagSet("bcsoak", flag.ContinueOnError)
	fs.StringVar(&cfg.Bin, "bin", "bin/beamclaw", "the beamclaw binary")
	fs.StringVar(&cfg.Home, "home", "", "BEAMCLAW_HOME, kept between soaks (required)")
	fs.StringVar(&cfg.Fake, "fake", "", "the fake provider's base URL ending in /v1 (required)")
	fs.IntVar(&cfg.Sessions, "sessions", 100000, "stored sessions before the cycles")
	fs.IntVar(&cfg.FillC, "fill-c", 16, "concurrent turns while filling")
	fs.IntVar(&cfg.Cycles, "cycles", 20, "kill -9 cycles")
	fs.IntVar(&cfg.Clients, "clients", 4, "clients writing during each cycle")
	fs.DurationVar(&cfg.Limit, "limit", time.Minute, "bound on one start (exec to ready)")
	fs.BoolVar(&cfg.Cold, "cold", true, "drop the database from the page cache before each start after a kill -9")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.Home == "" || cfg.Fake == "" {
		return errors.New("-home and -fake are required")
	}
	cfg.Progress = os.Stderr
	res, err := load.Soak(ctx, cfg)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printResult(stdout, res)
	}
	if res.Lost > 0 || res.Doubled > 0 {
		return fmt.Errorf("%d acknowledged turns lost, %d doubled", res.Lost, res.Doubled)
	}
	return nil
}

func printResult(w io.Writer, r load.SoakResult) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "stored sessions before the cycles  %d", r.Sessions)
	if r.FillElapsed > 0 {
		fmt.Fprintf(w, " (filled in %s)", r.FillElapsed.Round(time.Second))
	}
	fmt.Fprintf(w, "\nquiet start (after a graceful stop), exec to ready  %s\n", ms(r.Quiet))
	fmt.Fprintf(w, "start after kill -9, exec to ready (%d starts)  p50 %s  p95 %s  max %s\n",
		r.Ready.N, ms(r.Ready.P50), ms(r.ReadyP95), ms(r.Ready.Max))
	names := make([]string, 0, len(r.Phases))
	for name := range r.Phases {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := r.Phases[name]
		fmt.Fprintf(w, "  phase %-20s p50 %8.1f ms  max %8.1f ms\n", name,
			float64(s.P50)/float64(time.Millisecond), float64(s.Max)/float64(time.Millisecond))
	}
	fmt.Fprintf(w, "acknowledged turns %d, lost %d, doubled %d\n", r.Acked, r.Lost, r.Doubled)
}
