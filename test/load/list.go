package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ListConfig measures the admin API's first page of sessions
// (GET /api/v1/sessions?limit=50) of a daemon holding Sessions stored
// sessions: it first makes them, one turn of a distinct user each, FillC
// at a time, then lists N times.
type ListConfig struct {
	Addr       string // http://host:port
	Token      string // gateway.auth.token (the admin API needs it)
	Sessions   int
	FillC, N   int
	UserPrefix string
	Limit      time.Duration
}

// ListResult is what RunList measured.
type ListResult struct {
	Sessions int           `json:"sessions"` // stored sessions the daemon listed
	Fill     time.Duration `json:"fill_ns"`
	First    time.Duration `json:"first_ns"` // the first list (it reads every session)
	List     Summary       `json:"list"`     // the lists after it
}

// RunList fills the sessions and times the lists.
func RunList(ctx context.Context, cfg ListConfig) (ListResult, error) {
	if cfg.Sessions <= 0 || cfg.FillC <= 0 || cfg.N <= 0 {
		return ListResult{}, fmt.Errorf("sessions, fill concurrency and n must be positive")
	}
	var res ListResult
	start := time.Now()
	fill, err := Run(ctx, Config{BaseURL: cfg.Addr + "/v1", Model: "default", Mode: ModePlain, N: cfg.Sessions, C: cfg.FillC,
		Users: cfg.Sessions, UserPrefix: cfg.UserPrefix, Limit: cfg.Limit, Token: cfg.Token})
	if err != nil {
		return res, fmt.Errorf("fill: %w", err)
	}
	if fill.Errors > 0 {
		return res, fmt.Errorf("fill: %d turns failed; first: %s", fill.Errors, fill.FirstErr)
	}
	res.Fill = time.Since(start)
	hc := NewClient(1)
	defer hc.CloseIdleConnections()
	ds := make([]time.Duration, 0, cfg.N)
	for i := range cfg.N + 1 {
		d, n, err := listOnce(ctx, hc, cfg)
		if err != nil {
			return res, err
		}
		if i == 0 {
			res.First, res.Sessions = d, n
			continue
		}
		ds = append(ds, d)
	}
	res.List = Summarize(ds)
	return res, nil
}

// listOnce gets the first page and counts the stored sessions (the
// first page's size, 50 at most, unless it says there are more).
func listOnce(ctx context.Context, hc *http.Client, cfg ListConfig) (time.Duration, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Addr+"/api/v1/sessions?limit=50", nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+cfg.Token)
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("list: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("list: %d %v %s", resp.StatusCode, err, strings.TrimSpace(string(b)))
	}
	var page struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return 0, 0, fmt.Errorf("list: %w", err)
	}
	return d, len(page.Sessions), nil
}
