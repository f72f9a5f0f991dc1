package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/httppost"
)

// WebhookOptions configure webhook delivery.
type WebhookOptions struct {
	// Client posts to webhooks. The daemon hands in one whose dialer is the
	// curl tool's SSRF guard (no loopback, private or link-local
	// addresses). Without it webhook deliveries fail.
	Client *http.Client
	// AllowClient posts to AllowHosts: unguarded, for local automations
	// (scheduler.webhook_allow_hosts). Client is used when it is nil.
	AllowClient *http.Client
	// AllowHosts are host names or host:port pairs that may be loopback
	// or private.
	AllowHosts []string
	// CheckHost is the guard Client's dialer applies (the daemon: the curl
	// tool's), asked when a job is made so that a webhook it would refuse
	// is refused then, not at every delivery. Nil checks nothing.
	CheckHost func(ctx context.Context, host string) error
}

// Webhook delivers answers as a JSON POST. Redirects are not followed
// (one could lead past the guard's choice of client).
type Webhook struct {
	guarded, allowed *http.Client
	allow            map[string]bool
	check            func(ctx context.Context, host string) error
}

// webhookPayload is the body of a webhook POST.
type webhookPayload struct {
	JobID     string    `json:"job_id"`
	Agent     string    `json:"agent"`
	Text      string    `json:"text"`
	Time      time.Time `json:"time"`
	Heartbeat bool      `json:"heartbeat"`
}

// NewWebhook returns a webhook deliverer.
func NewWebhook(opts WebhookOptions) *Webhook {
	w := &Webhook{guarded: noRedirects(opts.Client), allow: make(map[string]bool), check: opts.CheckHost}
	w.allowed = w.guarded
	if opts.AllowClient != nil {
		w.allowed = noRedirects(opts.AllowClient)
	}
	for _, h := range opts.AllowHosts {
		w.allow[strings.ToLower(strings.TrimSpace(h))] = true
	}
	return w
}

func noRedirects(c *http.Client) *http.Client {
	if c == nil {
		return nil
	}
	cp := *c
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// client picks the client for u: the unguarded one for allowed hosts.
func (w *Webhook) client(u *url.URL) *http.Client {
	if w.allowed != w.guarded && w.isAllowed(u) {
		return w.allowed
	}
	return w.guarded
}

func (w *Webhook) isAllowed(u *url.URL) bool {
	return w.allow[strings.ToLower(u.Hostname())] || w.allow[strings.ToLower(u.Host)]
}

// Check refuses a direct webhook whose host the guard would refuse at
// delivery (loopback, private, link-local) unless it is allowed. The error
// names the host, never the URL (it may carry a token).
func (w *Webhook) Check(ctx context.Context, to Delivery) error {
	if !to.Direct() || w.check == nil {
		return nil
	}
	u, err := url.Parse(to.Target)
	if err != nil {
		return errors.New("webhook: bad URL")
	}
	if w.isAllowed(u) {
		return nil
	}
	if err := w.check(ctx, u.Hostname()); err != nil {
		return fmt.Errorf("webhook to %s would be refused at every delivery (%v); list the host in scheduler.webhook_allow_hosts to allow it", u.Hostname(), err)
	}
	return nil
}

// Deliver implements Deliverer for webhook targets. Errors never contain
// the URL (it may carry a token), nor a "webhook: " prefix: the executor
// says "deliver to webhook: ".
func (w *Webhook) Deliver(ctx context.Context, to Delivery, msg Message) error {
	if to.Kind != DeliverWebhook {
		return fmt.Errorf("webhook cannot deliver to %s", to.Kind)
	}
	u, err := url.Parse(to.Target)
	if err != nil {
		return errors.New("bad URL")
	}
	c := w.client(u)
	if c == nil {
		return errors.New("no HTTP client configured")
	}
	body, err := json.Marshal(webhookPayload{JobID: msg.JobID, Agent: msg.Agent, Text: msg.Text,
		Time: msg.Time.UTC(), Heartbeat: msg.Heartbeat})
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return errors.New("bad URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "beamclaw-scheduler")
	resp, err := httppost.Send(c, req)
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
