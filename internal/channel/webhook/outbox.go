package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/httppost"
)

// deliveryClient posts answers through dial. It follows no redirect (a 3xx
// fails the attempt): a redirect would turn the POST into a GET that
// looks delivered, or carry the signed answer to another host. No proxy:
// a proxy would connect on our behalf, past the guard.
func deliveryClient(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	return &http.Client{Timeout: deliveryTimeout,
		Transport:     &http.Transport{Proxy: nil, DialContext: dial, IdleConnTimeout: 90 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// enqueue stores an answer unless one with its id is queued or was
// delivered already.
func (c *Channel) enqueue(id, endpoint string, out Outbound) error {
	if _, done, err := c.delivered.Get(id); err != nil || done {
		return err
	}
	now := c.clk.Now()
	b, err := json.Marshal(pending{Endpoint: endpoint, Body: out, NextAt: now, Queued: now})
	if err != nil {
		return err
	}
	if _, err := c.outbox.PutIfAbsent(id, string(b)); err != nil {
		return err
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// Serve implements channel.Instance: it delivers queued answers, the
// ones a restart found first, then each as it comes, retrying with
// backoff.
func (c *Channel) Serve(ctx context.Context) error {
	defer c.guarded.CloseIdleConnections()
	defer c.open.CloseIdleConnections()
	for {
		next, err := c.deliverDue(ctx)
		if err != nil {
			return err
		}
		wait := maxRetryWait
		if !next.IsZero() {
			wait = max(next.Sub(c.clk.Now()), 0)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-c.wake:
		case <-c.clk.After(wait):
		}
	}
}

// deliverDue posts every answer that is due and returns when the next
// one falls due (zero: none queued). After a failure, an endpoint's other
// answers wait for the next pass, so one endpoint that is down does not
// hold up the others.
func (c *Channel) deliverDue(ctx context.Context) (time.Time, error) {
	type item struct {
		id string
		p  pending
	}
	var due []item
	var next time.Time
	now := c.clk.Now()
	var drop []string
	err := c.outbox.Each(func(id, v string) error {
		var p pending
		if err := json.Unmarshal([]byte(v), &p); err != nil {
			c.log.Error("webhook outbox record unreadable; dropped", "id", id, "err", err)
			drop = append(drop, id)
			return nil
		}
		switch {
		case !p.NextAt.After(now):
			due = append(due, item{id, p})
		case next.IsZero() || p.NextAt.Before(next):
			next = p.NextAt
		}
		return nil
	})
	for _, id := range drop {
		c.remove(id)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("webhook outbox: %w", err)
	}
	failed := map[string]bool{}
	for _, it := range due {
		if ctx.Err() != nil {
			return next, nil
		}
		if failed[it.p.Endpoint] {
			if next.IsZero() || now.Before(next) {
				next = now
			}
			continue
		}
		at, failedNow := c.attempt(ctx, it.id, it.p)
		failed[it.p.Endpoint] = failed[it.p.Endpoint] || failedNow
		if !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	c.prune(now)
	return next, nil
}

// attempt posts one answer. It returns when the answer is due again (zero:
// delivered or given up) and whether the endpoint failed. An answer for an
// endpoint that is not configured waits (its secret may be set at the next
// start) until keepDelivered has passed.
func (c *Channel) attempt(ctx context.Context, id string, p pending) (time.Time, bool) {
	ep, ok := c.endpoints[p.Endpoint]
	if !ok {
		if c.clk.Now().Sub(p.Queued) > keepDelivered {
			c.log.Warn("webhook answer for an endpoint not configured for a week; dropped", "endpoint", p.Endpoint, "id", id)
			c.finish(id)
			return time.Time{}, false
		}
		p.NextAt = c.clk.Now().Add(maxRetryWait)
		c.store(id, p)
		return p.NextAt, false
	}
	err := c.post(ctx, ep, id, p.Body)
	switch {
	case err == nil:
		c.finish(id)
		return time.Time{}, false
	case ctx.Err() != nil:
		return time.Time{}, false // stopping: the attempt does not count
	}
	p.Attempts++
	if p.Attempts >= maxAttempts {
		c.log.Error("webhook answer not delivered; dropped", "endpoint", ep.Name, "id", id, "attempts", p.Attempts, "err", err)
		c.finish(id)
		return time.Time{}, false
	}
	wait := min(firstRetry<<(p.Attempts-1), maxRetryWait)
	p.NextAt = c.clk.Now().Add(wait)
	c.log.Info("webhook answer not delivered; will retry", "endpoint", ep.Name, "id", id, "attempt", p.Attempts, "in", wait, "err", err)
	c.store(id, p)
	return p.NextAt, true
}

// finish records an answer delivered (or given up): its id is remembered,
// then it leaves the outbox. A stop between the two leaves it in both;
// the next pass finds it delivered and only removes it.
func (c *Channel) finish(id string) {
	if _, err := c.delivered.PutIfAbsent(id, c.clk.Now().UTC().Format(time.RFC3339)); err != nil {
		c.log.Error("webhook delivered write", "id", id, "err", err)
		return
	}
	c.remove(id)
}

func (c *Channel) remove(id string) {
	if err := c.outbox.Delete(id); err != nil {
		c.log.Error("webhook outbox delete", "id", id, "err", err)
	}
}

func (c *Channel) store(id string, p pending) {
	b, err := json.Marshal(p)
	if err == nil {
		err = c.outbox.Put(id, string(b))
	}
	if err != nil {
		c.log.Error("webhook outbox write", "id", id, "err", err)
	}
}

// prune forgets delivered ids older than keepDelivered, at most hourly.
func (c *Channel) prune(now time.Time) {
	if now.Sub(c.pruned) < time.Hour {
		return
	}
	c.pruned = now
	var old []string
	err := c.delivered.Each(func(id, at string) error {
		if t, err := time.Parse(time.RFC3339, at); err != nil || now.Sub(t) > keepDelivered {
			old = append(old, id)
		}
		return nil
	})
	if err != nil {
		c.log.Error("webhook delivered read", "err", err)
	}
	for _, id := range old {
		if err := c.delivered.Delete(id); err != nil {
			c.log.Error("webhook delivered delete", "id", id, "err", err)
		}
	}
}

// post sends one answer, signed, and wants a 2xx.
func (c *Channel) post(ctx context.Context, ep endpoint, id string, out Outbound) error {
	body, err := json.Marshal(out)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.DeliverURL, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(ep.Secret, body))
	req.Header.Set(DeliveryHeader, id)
	client := c.guarded
	if ep.AllowPrivate {
		client = c.open
	}
	resp, err := httppost.Send(client, req) // its error holds no deliver_url, which may carry a token
	if err != nil {
		return err
	}
	switch resp.StatusCode / 100 {
	case 2:
		return nil
	case 3:
		return fmt.Errorf("deliver_url answered %s: redirects are not followed", resp.Status)
	}
	return fmt.Errorf("deliver_url answered %s", resp.Status)
}
