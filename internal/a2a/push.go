package a2a

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/beamclaw/beamclaw-go/internal/httppost"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// pushTimeout bounds one push notification, connection included: the SDK
// sends them in line with the task's events.
const pushTimeout = 10 * time.Second

// pushStore keeps push-notification configs in bbolt. A URL is refused
// when its host resolves to a loopback, private, link-local or reserved
// address (the curl tool's policy); the sender checks again on connect.
type pushStore struct {
	area     *store.Area // the tasks' (tasksArea)
	check    func(net.IP) error
	resolver builtin.Resolver
}

var _ push.ConfigStore = (*pushStore)(nil)

func pushKey(task a2a.TaskID, id string) []byte { return append(pushPrefix(task), id...) }

// Save implements push.ConfigStore.
func (p *pushStore) Save(ctx context.Context, task a2a.TaskID, cfg *a2a.PushConfig) (*a2a.PushConfig, error) {
	if cfg == nil {
		return nil, fmt.Errorf("a push config is required: %w", a2a.ErrInvalidParams)
	}
	if err := p.checkURL(ctx, cfg.URL); err != nil {
		return nil, err
	}
	saved := *cfg
	saved.TaskID = task
	if saved.ID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		saved.ID = hex.EncodeToString(b[:])
	}
	v, err := store.Encode(&saved)
	if err != nil {
		return nil, err
	}
	err = p.area.Update(func(tx *store.Tx) error { return tx.Bucket([]byte(bucketPush)).Put(pushKey(task, saved.ID), v) })
	if err != nil {
		return nil, storeErr("store the push config", err)
	}
	return &saved, nil
}

// checkURL refuses push URLs that are not http(s) or reach a non-public
// address.
func (p *pushStore) checkURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return a2a.NewError(a2a.ErrInvalidParams, "the push URL must be an absolute http(s) URL")
	}
	if err := builtin.CheckHost(ctx, p.check, p.resolver, u.Hostname()); err != nil {
		msg := "the push URL's host cannot be resolved"
		if errors.Is(err, builtin.ErrBlockedAddress) {
			msg = "push URLs on loopback, private, link-local or reserved addresses are refused"
		}
		return a2a.NewError(a2a.ErrInvalidParams, msg)
	}
	return nil
}

// Get implements push.ConfigStore.
func (p *pushStore) Get(_ context.Context, task a2a.TaskID, id string) (*a2a.PushConfig, error) {
	var cfg *a2a.PushConfig
	err := p.area.View(func(tx *store.Tx) error {
		v := tx.Bucket([]byte(bucketPush)).Get(pushKey(task, id))
		if v == nil {
			return nil
		}
		cfg = &a2a.PushConfig{}
		return store.Decode(v, cfg)
	})
	if err != nil {
		return nil, storeErr("read the push config", err)
	}
	if cfg == nil {
		return nil, push.ErrPushConfigNotFound
	}
	return cfg, nil
}

// List implements push.ConfigStore.
func (p *pushStore) List(_ context.Context, task a2a.TaskID) ([]*a2a.PushConfig, error) {
	var out []*a2a.PushConfig
	prefix := pushPrefix(task)
	err := p.area.View(func(tx *store.Tx) error {
		c := tx.Bucket([]byte(bucketPush)).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var cfg a2a.PushConfig
			if err := store.Decode(v, &cfg); err != nil {
				return err
			}
			out = append(out, &cfg)
		}
		return nil
	})
	if err != nil {
		return nil, storeErr("list the push configs", err)
	}
	return out, nil
}

// Delete implements push.ConfigStore.
func (p *pushStore) Delete(_ context.Context, task a2a.TaskID, id string) error {
	err := p.area.Update(func(tx *store.Tx) error { return tx.Bucket([]byte(bucketPush)).Delete(pushKey(task, id)) })
	if err != nil {
		return storeErr("delete the push config", err)
	}
	return nil
}

// DeleteAll implements push.ConfigStore.
func (p *pushStore) DeleteAll(_ context.Context, task a2a.TaskID) error {
	err := p.area.Update(func(tx *store.Tx) error { return deletePrefix(tx.Bucket([]byte(bucketPush)), pushPrefix(task)) })
	if err != nil {
		return storeErr("delete the push configs", err)
	}
	return nil
}

// pushSender posts task updates to push URLs through the SSRF guard. It
// follows no redirect, so the config's token and credentials reach the
// configured host only. Artifact chunks are not pushed (a client fetches
// the task when it sees its state change). A failed push is logged and
// never fails the task.
type pushSender struct {
	client *http.Client
	log    *slog.Logger
}

var _ push.Sender = (*pushSender)(nil)

func newPushSender(check func(net.IP) error, resolver builtin.Resolver, log *slog.Logger) *pushSender {
	transport := &http.Transport{
		Proxy:               nil, // a proxy would connect on our behalf, past the guard
		DialContext:         builtin.GuardedDialer(check, resolver, pushTimeout),
		TLSHandshakeTimeout: pushTimeout,
		DisableKeepAlives:   true,
	}
	return &pushSender{log: log, client: &http.Client{Transport: transport, Timeout: pushTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// SendPush implements push.Sender.
func (p *pushSender) SendPush(ctx context.Context, cfg *a2a.PushConfig, ev a2a.Event) error {
	if _, chunk := ev.(*a2a.TaskArtifactUpdateEvent); chunk {
		return nil
	}
	if err := p.send(ctx, cfg, ev); err != nil {
		p.log.LogAttrs(ctx, slog.LevelWarn, "a2a push notification failed", slog.String("task_id", string(cfg.TaskID)),
			slog.String("config_id", cfg.ID), slog.String("err", err.Error()))
	}
	return nil
}

func (p *pushSender) send(ctx context.Context, cfg *a2a.PushConfig, ev a2a.Event) error {
	body, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.Token != "" {
		req.Header.Set("A2A-Notification-Token", cfg.Token)
	}
	if a := cfg.Auth; a != nil && a.Credentials != "" {
		switch strings.ToLower(a.Scheme) {
		case "bearer":
			req.Header.Set("Authorization", "Bearer "+a.Credentials)
		case "basic":
			req.Header.Set("Authorization", "Basic "+a.Credentials)
		}
	}
	resp, err := httppost.Send(p.client, req)
	if err != nil {
		return fmt.Errorf("post: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the endpoint answered %s", resp.Status)
	}
	return nil
}
