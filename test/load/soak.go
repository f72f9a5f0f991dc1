package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/test/freeport"
)

// SoakConfig is a kill -9 soak of the real binary over HTTP: a home grown
// to Sessions stored sessions (kept between soaks: the count filled so far
// is in the home), then Cycles rounds of start, Clients writing turns,
// kill -9 at a random moment while they write; then a last start checks
// that every acknowledged turn is in its session's history exactly once.
type SoakConfig struct {
	Bin  string // the beamclaw binary
	Home string // BEAMCLAW_HOME, kept between runs
	Fake string // the fake provider's base URL ending in /v1
	// Sessions is how many stored sessions the home holds before the
	// cycles; missing ones are made by turns of distinct users, FillC at
	// a time.
	Sessions, FillC int
	Cycles, Clients int
	// Limit bounds one start (exec to ready).
	Limit time.Duration
	// Cold drops the database file from the page cache before each start
	// after a kill -9 (as other work on the machine would): the start
	// reads it from the disk.
	Cold bool
	// Progress receives a line per cycle; nil discards them.
	Progress io.Writer
}

// SoakResult is what a soak measured.
type SoakResult struct {
	Sessions    int           `json:"sessions"` // stored before the cycles (filled by this home's soaks)
	FillElapsed time.Duration `json:"fill_elapsed_ns,omitempty"`
	Quiet       time.Duration `json:"quiet_ready_ns"` // a start after a graceful stop, exec to ready
	Cycles      int           `json:"cycles"`
	// Ready is exec to a ready /ready of every start after a kill -9 (the
	// last one, the check's start, included).
	Ready    Summary            `json:"ready_after_kill9"`
	ReadyP95 time.Duration      `json:"ready_p95_ns"`
	Phases   map[string]Summary `json:"phases"` // start-up phases (debug log lines) of those starts
	Acked    int                `json:"acked"`  // turns answered 200
	Lost     int                `json:"lost"`   // acknowledged but not in the history
	Doubled  int                `json:"doubled"`
}

// soakRun is one soak's state.
type soakRun struct {
	cfg   SoakConfig
	base  string // http://127.0.0.1:PORT
	tag   string // distinguishes this soak's users from earlier ones'
	turns *turnLog
	ready []time.Duration
	logs  []string // the daemon logs of the timed starts
}

// Soak runs cfg.
func Soak(ctx context.Context, cfg SoakConfig) (SoakResult, error) {
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Cycles <= 0 || cfg.Clients <= 0 || cfg.FillC <= 0 {
		return SoakResult{}, fmt.Errorf("cycles, clients and fill concurrency must be positive")
	}
	addr, err := freeport.Addr()
	if err != nil {
		return SoakResult{}, err
	}
	s := &soakRun{cfg: cfg, base: "http://" + addr, tag: strconv.FormatInt(time.Now().Unix(), 36), turns: newTurnLog()}
	if err := os.MkdirAll(filepath.Join(cfg.Home, "soak-logs"), 0o700); err != nil {
		return SoakResult{}, err
	}
	var res SoakResult
	if res.Sessions, res.FillElapsed, err = s.fill(ctx); err != nil {
		return res, err
	}
	if res.Quiet, err = s.quietStart(ctx); err != nil {
		return res, err
	}
	for i := range cfg.Cycles {
		if err := s.cycle(ctx, i); err != nil {
			return res, fmt.Errorf("cycle %d: %w", i, err)
		}
	}
	if err := s.check(ctx, &res); err != nil {
		return res, err
	}
	res.Cycles, res.Ready = cfg.Cycles, Summarize(s.ready)
	if len(s.ready) > 0 {
		sorted := slices.Sorted(slices.Values(s.ready))
		res.ReadyP95 = Percentile(sorted, 95)
	}
	res.Phases = phaseSummaries(s.logs)
	return res, nil
}

// writeConfig writes the home's config.yaml: the fake provider, the
// soak's port, no rate limit, the log level given.
func (s *soakRun) writeConfig(level string) error {
	addr := strings.TrimPrefix(s.base, "http://")
	cfg := fmt.Sprintf("core:\n  default_provider: fake\n  providers:\n    fake: {base_url: %q, model: fake-model}\n"+
		"gateway:\n  http: {addr: %q}\n  rate_limit: {enabled: false}\nobs:\n  log: {level: %s}\n", s.cfg.Fake, addr, level)
	return os.WriteFile(filepath.Join(s.cfg.Home, "config.yaml"), []byte(cfg), 0o600)
}

// start execs the daemon and waits until it is ready.
func (s *soakRun) start(ctx context.Context, name string) (*daemonProc, time.Duration, error) {
	logPath := filepath.Join(s.cfg.Home, "soak-logs", name+".log")
	p, err := startDaemon(s.cfg.Bin, s.cfg.Home, logPath)
	if err != nil {
		return nil, 0, err
	}
	d, err := p.waitReady(ctx, s.base, s.cfg.Limit)
	if err != nil {
		p.kill9()
		return nil, 0, fmt.Errorf("start %s: %w", name, err)
	}
	return p, d, nil
}

// fill makes the stored sessions missing from the home, a turn of a new
// user each, and stops the daemon gracefully.
func (s *soakRun) fill(ctx context.Context) (int, time.Duration, error) {
	countFile := filepath.Join(s.cfg.Home, "soak-filled")
	filled := 0
	if b, err := os.ReadFile(countFile); err == nil {
		filled, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	need := s.cfg.Sessions - filled
	if need <= 0 {
		return filled, 0, nil
	}
	if err := s.writeConfig("info"); err != nil {
		return 0, 0, err
	}
	p, _, err := s.start(ctx, "fill")
	if err != nil {
		return 0, 0, err
	}
	defer p.stop()
	fmt.Fprintf(s.cfg.Progress, "filling %d sessions (%d stored)\n", need, filled)
	t0 := time.Now()
	r, err := Run(ctx, Config{BaseURL: s.base + "/v1", Model: "default", Mode: ModePlain, N: need, C: s.cfg.FillC,
		Users: need, UserPrefix: fmt.Sprintf("fill%d-", filled), Limit: time.Hour})
	filled += need - r.Errors
	if werr := os.WriteFile(countFile, []byte(strconv.Itoa(filled)+"\n"), 0o600); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return filled, 0, fmt.Errorf("fill: %w", err)
	}
	if r.Errors > 0 {
		return filled, 0, fmt.Errorf("fill: %d turns failed, first: %s", r.Errors, r.FirstErr)
	}
	return filled, time.Since(t0), nil
}

// quietStart times a start after a graceful stop, then stops gracefully.
func (s *soakRun) quietStart(ctx context.Context) (time.Duration, error) {
	if err := s.writeConfig("debug"); err != nil {
		return 0, err
	}
	p, d, err := s.start(ctx, "quiet")
	if err != nil {
		return 0, err
	}
	p.stop()
	fmt.Fprintf(s.cfg.Progress, "quiet start: ready in %s\n", d.Round(time.Millisecond))
	return d, nil
}

// cycle starts the daemon (the previous one was killed), lets the clients
// write, and kills it with SIGKILL between 0.3 and 1.5 s later.
func (s *soakRun) cycle(ctx context.Context, i int) error {
	name := fmt.Sprintf("cycle-%03d", i)
	if err := s.evict(); err != nil {
		return err
	}
	p, d, err := s.start(ctx, name)
	if err != nil {
		return err
	}
	if i > 0 { // the first start follows the quiet one's graceful stop
		s.ready = append(s.ready, d)
		s.logs = append(s.logs, p.out.Name())
	}
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for k := range s.cfg.Clients {
		wg.Go(func() { s.client(cctx, i, k) })
	}
	wait := 300*time.Millisecond + rand.N(1200*time.Millisecond)
	select {
	case <-time.After(wait):
	case <-ctx.Done():
	}
	p.kill9()
	cancel()
	wg.Wait()
	fmt.Fprintf(s.cfg.Progress, "%s: ready in %s, killed after %s, %d acknowledged so far\n",
		name, d.Round(time.Millisecond), wait.Round(time.Millisecond), s.turns.acked())
	return ctx.Err()
}

// client sends turns until ctx ends: even ones as a user of its own for
// this cycle, odd ones as one of two users every client and cycle shares.
func (s *soakRun) client(ctx context.Context, cycle, k int) {
	hc := NewClient(1)
	defer hc.CloseIdleConnections()
	for n := 0; ctx.Err() == nil; n++ {
		user := fmt.Sprintf("soak%s-c%d-k%d", s.tag, cycle, k)
		if n%2 == 1 {
			user = fmt.Sprintf("soak%s-shared-%d", s.tag, k%2)
		}
		content := fmt.Sprintf("soak %s %d.%d.%d", s.tag, cycle, k, n)
		s.turns.sent(user, content, s.send(ctx, hc, user, content) == nil)
	}
}

// send posts one turn; nil means it was answered 200 with content.
func (s *soakRun) send(ctx context.Context, hc *http.Client, user, content string) error {
	b, err := json.Marshal(chatRequest{Model: "default", User: user, Messages: []chatMessage{{Role: "user", Content: content}}})
	if err != nil {
		return err
	}
	_, err = do(ctx, hc, s.base+"/v1/chat/completions", b, false, "")
	return err
}

// evict drops the database from the page cache when the soak is cold.
func (s *soakRun) evict() error {
	if !s.cfg.Cold {
		return nil
	}
	if err := evict(filepath.Join(s.cfg.Home, "beamclaw.db")); err != nil {
		return fmt.Errorf("drop the database from the page cache: %w", err)
	}
	return nil
}
