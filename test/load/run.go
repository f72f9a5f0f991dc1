package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one bounded run against an OpenAI-compatible endpoint.
type Config struct {
	// BaseURL is the API root ending in /v1, e.g. http://127.0.0.1:18800/v1.
	BaseURL string
	// Model is the request's model: the agent name for beamclaw
	// ("default"), the provider's model for a direct call.
	Model string
	Mode  Mode
	// N is the number of measured turns and C how many run at once.
	N, C int
	// Users is how many distinct user ids the turns cycle through (turn i
	// belongs to user i mod Users). Keep it at least C so concurrent turns
	// land in different sessions.
	Users int
	// UserPrefix starts every user id, so runs against one daemon do not
	// share sessions.
	UserPrefix string
	// Limit bounds the whole run; turns not started by then are skipped.
	Limit time.Duration
	// Client sends the requests; nil means a client tuned for C.
	Client *http.Client
	// Token, when set, is sent as the bearer token (gateway.auth.token).
	Token string
}

// Result is what a run measured.
type Result struct {
	Latency  Summary       `json:"latency"`
	TTFT     Summary       `json:"ttft"` // streams only
	Errors   int           `json:"errors"`
	FirstErr string        `json:"first_error,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	PerSec   float64       `json:"turns_per_sec"`
}

// NewClient returns a keep-alive client that holds c idle connections to
// one host, so a run at concurrency c never reconnects.
func NewClient(c int) *http.Client {
	tr := &http.Transport{
		MaxIdleConns:        c,
		MaxIdleConnsPerHost: c,
		MaxConnsPerHost:     c,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// Run sends cfg.N turns from cfg.C workers and summarizes them. Run a
// short one first with another UserPrefix and the same Client to open the
// connections before measuring.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.N <= 0 || cfg.C <= 0 || cfg.Users <= 0 {
		return Result{}, fmt.Errorf("n, c and users must be positive (n=%d c=%d users=%d)", cfg.N, cfg.C, cfg.Users)
	}
	if cfg.Limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Limit)
		defer cancel()
	}
	hc := cfg.Client
	if hc == nil {
		hc = NewClient(cfg.C)
		defer hc.CloseIdleConnections()
	}
	url := strings.TrimSuffix(cfg.BaseURL, "/") + "/chat/completions"
	if cfg.Mode == ModeResponses {
		url = strings.TrimSuffix(cfg.BaseURL, "/") + "/responses"
	}
	return phase(ctx, hc, url, cfg)
}

// phase runs cfg.N turns on cfg.C workers.
func phase(ctx context.Context, hc *http.Client, url string, cfg Config) (Result, error) {
	n := cfg.N
	var (
		next    atomic.Int64
		errs    atomic.Int64
		firstMu sync.Mutex
		first   error
		wg      sync.WaitGroup
	)
	lat := make([][]time.Duration, cfg.C)
	ttft := make([][]time.Duration, cfg.C)
	var last sync.Map // user -> the id of their last response (ModeResponses)
	start := time.Now()
	for w := range cfg.C {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				t, err := one(ctx, hc, url, cfg, i, &last)
				if err != nil {
					errs.Add(1)
					firstMu.Lock()
					first = cmp.Or(first, fmt.Errorf("turn %d: %w", i, err))
					firstMu.Unlock()
					continue
				}
				lat[w] = append(lat[w], t.latency)
				if t.ttft > 0 {
					ttft[w] = append(ttft[w], t.ttft)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	res := Result{Latency: Summarize(concat(lat)), TTFT: Summarize(concat(ttft)), Errors: int(errs.Load()), Elapsed: elapsed}
	res.PerSec = float64(res.Latency.N) / elapsed.Seconds()
	if first != nil {
		res.FirstErr = first.Error()
	}
	if err := ctx.Err(); err != nil && res.Latency.N < n {
		return res, fmt.Errorf("run stopped after %d of %d turns: %w", res.Latency.N, n, err)
	}
	if res.Latency.N == 0 && first != nil {
		return res, errors.Join(errors.New("every turn failed"), first)
	}
	return res, nil
}

// one sends turn i of a run; last holds each user's last response id.
func one(ctx context.Context, hc *http.Client, url string, cfg Config, i int, last *sync.Map) (turn, error) {
	user := fmt.Sprintf("%s%d", cfg.UserPrefix, i%cfg.Users)
	if cfg.Mode == ModeResponses {
		prev, _ := last.Load(user)
		p, _ := prev.(string)
		t, id, err := respond(ctx, hc, url, cfg.Model, user, p, i, cfg.Token)
		if err == nil {
			last.Store(user, id)
		}
		return t, err
	}
	payload, err := body(cfg.Model, cfg.Mode, user, i)
	if err != nil {
		return turn{}, err
	}
	return do(ctx, hc, url, payload, cfg.Mode == ModeStream, cfg.Token)
}

func concat(parts [][]time.Duration) []time.Duration {
	var out []time.Duration
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
