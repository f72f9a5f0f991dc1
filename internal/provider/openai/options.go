package openai

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// Options configure a Client, an Embedder or a Transcriber. Zero values
// take the defaults noted.
type Options struct {
	Name    string // provider name in responses, errors and logs ("openrouter"); default: the base URL's host
	BaseURL string // required, e.g. "https://openrouter.ai/api/v1"
	APIKey  string // already resolved; sent as a bearer token when set
	Model   string // model used when a request names none (chat, embedding or transcription model)

	Timeout           time.Duration // whole call including retries; default provider.DefaultTimeout (negative: none)
	FirstTokenTimeout time.Duration // per attempt, until the first streamed token; default provider.DefaultFirstTokenTimeout (negative: none)
	MaxRetries        int           // retries before the first token; default provider.DefaultMaxRetries (negative: none)
	BackoffBase       time.Duration // first backoff; default provider.DefaultBackoffBase, doubled per retry
	BackoffMax        time.Duration // backoff cap; default provider.DefaultBackoffMax
	RetryAfterCap     time.Duration // a longer Retry-After is not waited for (fail over instead); default provider.DefaultRetryAfterCap

	HTTPClient *http.Client      // default: a client with its own transport and no overall timeout
	Logger     *slog.Logger      // default: discard
	Headers    map[string]string // extra headers; openrouter.ai gets HTTP-Referer and X-Title by default

	// CacheBreakpoints: provider.CacheOn marks the cacheable prefix's end
	// with cache_control on every request, provider.CacheOff never;
	// otherwise ("auto") requests to Anthropic and Gemini models on
	// openrouter.ai are marked.
	CacheBreakpoints string

	// Sleep waits between retries; tests inject one that records and
	// returns at once. Default: a timer on Clock honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Clock reads Retry-After dates and times the default Sleep; defaults
	// to clock.System. The call's timeouts (Timeout, FirstTokenTimeout)
	// bound network I/O and stay on real time.
	Clock clock.Clock
}

// OpenRouter attribution headers sent when the base URL is openrouter.ai.
const (
	openRouterReferer = "https://github.com/beamclaw/beamclaw-go"
	openRouterTitle   = "beamclaw"
)

// transport is the HTTP plumbing the chat, embeddings and transcription
// clients share: URLs, headers, retries with backoff, error mapping.
type transport struct {
	name, baseURL, apiKey string
	headers               http.Header
	hc                    *http.Client
	log                   *slog.Logger
	clock                 clock.Clock
	timeout, firstToken   time.Duration
	retries               provider.Retry
	readers               readerPool // stream read buffers
	bodies                bodyPool   // request bodies
	enc                   encCaches  // encoded tool arrays and messages
}

// maxIdlePerHost is how many idle connections to one provider are kept.
const maxIdlePerHost = 128

// writeBufferSize is the write buffer of each provider connection.
const writeBufferSize = 32 << 10

func newTransport(o Options) (*transport, error) {
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, beamclaw.E("openai.New", beamclaw.KindInvalid, "invalid provider base_url", fmt.Errorf("base url %q", o.BaseURL))
	}
	t := &transport{
		name: o.Name, baseURL: strings.TrimRight(o.BaseURL, "/"), apiKey: o.APIKey,
		headers: http.Header{}, hc: o.HTTPClient, log: o.Logger, clock: clock.Or(o.Clock),
		timeout: provider.Pick(o.Timeout, provider.DefaultTimeout), firstToken: provider.Pick(o.FirstTokenTimeout, provider.DefaultFirstTokenTimeout),
	}
	if t.name == "" {
		t.name = u.Hostname()
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	t.retries = provider.Retry{Name: t.name, Max: o.MaxRetries, BackoffBase: o.BackoffBase, BackoffMax: o.BackoffMax,
		RetryAfterCap: o.RetryAfterCap, Sleep: o.Sleep, Log: t.log}
	switch {
	case t.retries.Max == 0:
		t.retries.Max = provider.DefaultMaxRetries
	case t.retries.Max < 0:
		t.retries.Max = 0
	}
	if t.retries.Sleep == nil {
		t.retries.Sleep = provider.SleepOn(t.clock)
	}
	t.bodies.off = t.hc != nil
	if t.hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// Every session may be mid-call at once: keep their connections
		// (the default keeps two per host, and the rest are re-dialled).
		tr.MaxIdleConnsPerHost = maxIdlePerHost
		tr.MaxIdleConns = maxIdlePerHost
		// A chat body (~15 KB) fits the connection's write buffer: headers
		// and body leave in one write, and net/http does not allocate a
		// copy buffer per request (it does once a body outgrows the buffer).
		tr.WriteBufferSize = writeBufferSize
		t.hc = &http.Client{Transport: tr}
	}
	if u.Hostname() == "openrouter.ai" {
		t.headers.Set("HTTP-Referer", openRouterReferer)
		t.headers.Set("X-Title", openRouterTitle)
	}
	for k, v := range o.Headers {
		t.headers.Set(k, v)
	}
	t.headers.Set("User-Agent", "beamclaw-go")
	return t, nil
}

// request builds a POST to base URL + path with auth and headers.
func (t *transport) request(ctx context.Context, path, contentType string, body io.Reader) (*http.Request, error) {
	return t.requestWith(ctx, http.MethodPost, path, contentType, body)
}

// requestWith builds a request to base URL + path with auth and headers
// (contentType "" sets none).
func (t *transport) requestWith(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, t.baseURL+path, body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	for k, v := range t.headers {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if t.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.apiKey)
	}
	return req, nil
}

// retry runs attempt until it succeeds, fails for good, or retries run
// out (provider.Retry).
func (t *transport) retry(ctx context.Context, op string, canRetry func(error) bool, attempt func(n int) error) error {
	return t.retries.Do(ctx, op, canRetry, attempt)
}

// OptionsOf turns a configured provider's settings into Options (its
// MaxRetries 0 means none; Options' 0 means the default).
func OptionsOf(s provider.Settings, log *slog.Logger) Options {
	retries := s.MaxRetries
	if retries == 0 {
		retries = -1
	}
	return Options{Name: s.Name, BaseURL: s.BaseURL, APIKey: s.APIKey, Model: s.Model,
		Timeout: s.Timeout, FirstTokenTimeout: s.FirstTokenTimeout, MaxRetries: retries, Logger: log,
		CacheBreakpoints: s.CacheBreakpoints}
}

// Adapter is the "openai" kind of core.providers: any OpenAI-compatible
// chat completions endpoint.
func Adapter() provider.Adapter {
	return provider.Adapter{Kind: provider.DefaultKind, New: func(s provider.Settings, log *slog.Logger) (beamclaw.Provider, error) {
		return New(OptionsOf(s, log))
	}}
}
