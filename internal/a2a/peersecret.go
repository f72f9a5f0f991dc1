package a2a

import (
	"context"
	"log/slog"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
)

// A credential a peer hands us (a push config's token, its authentication
// credentials, a password in its URL) is for the push endpoint only. The
// interceptor puts the request's credentials in its context; every log
// line written with that context (the edge's and the SDK's, which formats
// a push config with %v when it cannot save it) and the error the peer
// reads are scrubbed of them. The scrubber is the request's own, so a peer
// can neither grow a shared one nor make it redact other requests' text.

type peerSecretsKey struct{}

// withPeerSecrets is ctx carrying a scrubber of the credentials in payload
// (ctx itself when it has none).
func withPeerSecrets(ctx context.Context, payload any) context.Context {
	var cfg *a2a.PushConfig
	switch p := payload.(type) {
	case *a2a.SendMessageRequest:
		if p.Config != nil {
			cfg = p.Config.PushConfig
		}
	case *a2a.PushConfig:
		cfg = p
	}
	secrets := pushSecrets(cfg)
	if len(secrets) == 0 {
		return ctx
	}
	return context.WithValue(ctx, peerSecretsKey{}, scrub.New(secrets...))
}

// pushSecrets are the credentials of a push config.
func pushSecrets(cfg *a2a.PushConfig) []string {
	if cfg == nil {
		return nil
	}
	out := []string{cfg.Token}
	if cfg.Auth != nil {
		out = append(out, cfg.Auth.Credentials)
	}
	if u, err := url.Parse(cfg.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
	}
	return out
}

// scrubPeer is s without the credentials of ctx's request.
func scrubPeer(ctx context.Context, s string) string {
	if sc, ok := ctx.Value(peerSecretsKey{}).(*scrub.Scrubber); ok {
		return sc.String(s)
	}
	return s
}

// redactedError is an error whose text lost a peer's credentials; it
// unwraps to the original, so its A2A code is kept.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// scrubPeerError is err with the credentials of ctx's request scrubbed
// from its text.
func scrubPeerError(ctx context.Context, err error) error {
	if msg := scrubPeer(ctx, err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

// peerScrubHandler scrubs each record written with a request's context of
// that request's credentials: the message and every attribute's text.
type peerScrubHandler struct {
	inner slog.Handler
}

var _ slog.Handler = peerScrubHandler{}

func (h peerScrubHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h peerScrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return peerScrubHandler{inner: h.inner.WithAttrs(as)}
}

func (h peerScrubHandler) WithGroup(name string) slog.Handler {
	return peerScrubHandler{inner: h.inner.WithGroup(name)}
}

// Handle implements slog.Handler.
func (h peerScrubHandler) Handle(ctx context.Context, r slog.Record) error {
	if _, ok := ctx.Value(peerSecretsKey{}).(*scrub.Scrubber); !ok {
		return h.inner.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, scrubPeer(ctx, r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(ctx, a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func scrubAttr(ctx context.Context, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		group := v.Group()
		out := make([]slog.Attr, len(group))
		for i, g := range group {
			out[i] = scrubAttr(ctx, g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	}
	if s := v.String(); scrubPeer(ctx, s) != s {
		return slog.String(a.Key, scrubPeer(ctx, s))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
