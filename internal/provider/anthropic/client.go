package anthropic

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// Kind is the adapter's kind in core.providers.
const Kind = "anthropic"

// DefaultBaseURL is Anthropic's API, used when base_url is unset.
const DefaultBaseURL = "https://api.anthropic.com"

// Options configure a Client. Settings are the configured entry's (its
// MaxRetries 0 means none; a zero Timeout or FirstTokenTimeout takes the
// provider default, a negative one none); the rest are for tests.
type Options struct {
	provider.Settings
	HTTPClient *http.Client // default: a client with its own pooled transport
	Logger     *slog.Logger // default: discard
	// Sleep waits between retries (default: a timer on Clock).
	Sleep func(ctx context.Context, d time.Duration) error
	Clock clock.Clock // reads Retry-After dates; default clock.System
}

// Client is an Anthropic chat provider. It is safe for concurrent use.
type Client struct {
	name, model, apiKey string
	api                 sdk.Client
	hc                  *http.Client
	log                 *slog.Logger
	clock               clock.Clock
	timeout, firstToken time.Duration
	retries             provider.Retry
	thoughts            *thoughts
	marks               bool // cache breakpoints are sent (cache_breakpoints is not off)
}

var _ beamclaw.Provider = (*Client)(nil)

// New returns a Client for o.
func New(o Options) (*Client, error) {
	base, err := baseURL(o.BaseURL)
	if err != nil {
		return nil, beamclaw.E("anthropic.New", beamclaw.KindInvalid, "invalid provider base_url", err)
	}
	c := &Client{name: o.Name, model: o.Model, apiKey: o.APIKey, hc: o.HTTPClient, log: o.Logger, clock: clock.Or(o.Clock),
		timeout: provider.Pick(o.Timeout, provider.DefaultTimeout), firstToken: provider.Pick(o.FirstTokenTimeout, provider.DefaultFirstTokenTimeout),
		thoughts: newThoughts(), marks: o.CacheBreakpoints != provider.CacheOff}
	if c.name == "" {
		c.name = Kind
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost, tr.MaxIdleConns = maxIdlePerHost, maxIdlePerHost // every session may be mid-call at once
		c.hc = &http.Client{Transport: tr}
	}
	c.retries = provider.Retry{Name: c.name, Max: max(o.MaxRetries, 0), Sleep: o.Sleep, Log: c.log}
	if c.retries.Sleep == nil {
		c.retries.Sleep = provider.SleepOn(c.clock)
	}
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), // its key and URL are the config's, never the environment's
		option.WithBaseURL(base), option.WithHTTPClient(c.hc), option.WithMaxRetries(0)} // the adapter and the chain retry
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	c.api = sdk.NewClient(opts...)
	return c, nil
}

// maxIdlePerHost is how many idle connections to the API are kept.
const maxIdlePerHost = 128

// baseURL is the configured base URL as the SDK takes it: the API's root
// (a trailing /v1, as OpenAI-style URLs have, is dropped: the SDK's paths
// start with it).
func baseURL(s string) (string, error) {
	if s == "" {
		return DefaultBaseURL, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base url %q", s)
	}
	return strings.TrimSuffix(strings.TrimRight(s, "/"), "/v1"), nil
}

// Name is the provider's name (core.providers.<name>).
func (c *Client) Name() string { return c.name }

// Model is the default model.
func (c *Client) Model() string { return c.model }

// CloseIdleConnections closes idle keep-alive connections.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Adapter is the "anthropic" kind of core.providers.
func Adapter() provider.Adapter {
	return provider.Adapter{Kind: Kind, BaseURL: DefaultBaseURL, New: func(s provider.Settings, log *slog.Logger) (beamclaw.Provider, error) {
		return New(Options{Settings: s, Logger: log})
	}}
}

// probeTimeout bounds a health probe.
const probeTimeout = 10 * time.Second

// Probe lists the models (GET /v1/models), a call that costs nothing, to
// learn whether the API answers again and takes the key
// (provider.Prober).
func (c *Client) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := c.api.Models.List(ctx, sdk.ModelListParams{})
	if err == nil {
		return nil
	}
	err = c.failure("anthropic.Probe", ctx, err)
	var se *provider.StatusError
	if asStatus(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusMethodNotAllowed) {
		return nil // a server without a model list (a proxy) answered: it is up
	}
	return err
}
