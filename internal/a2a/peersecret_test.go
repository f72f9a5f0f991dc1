package a2a

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A push config's token, credentials and URL password are scrubbed from
// the log lines and errors of its request, and of no other.
func TestPeerSecretsScrubbed(t *testing.T) {
	const token, cred, pw = "push-token-0123456789", "push-cred-0123456789", "url-password-0123"
	cfg := &a2a.PushConfig{URL: "https://u:" + pw + "@example.com/hook", Token: token,
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: cred}}
	ctx := withPeerSecrets(context.Background(), &a2a.SendMessageRequest{Config: &a2a.SendMessageConfig{PushConfig: cfg}})
	cause := fmt.Errorf("failed to save push config %v %s %s: %w", cfg, cred, cfg.URL, a2a.ErrInvalidParams)

	var buf bytes.Buffer
	log := slog.New(peerScrubHandler{inner: slog.NewTextHandler(&buf, nil)}).With("component", "a2a")
	log.ErrorContext(ctx, "setup failed "+token, "error", cause, slog.Group("g", slog.String("c", cred)))
	log.InfoContext(context.Background(), "another request", "token", token)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log:\n%s", buf.String())
	}
	for _, s := range []string{token, cred, pw} {
		if strings.Contains(lines[0], s) {
			t.Errorf("the request's line carries %q: %s", s, lines[0])
		}
	}
	if !strings.Contains(lines[0], "component=a2a") || !strings.Contains(lines[1], token) {
		t.Errorf("the scrubbing went too far:\n%s", buf.String())
	}

	err := scrubPeerError(ctx, cause)
	if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), cred) || !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("scrubbed error %q (invalid params: %v)", err, errors.Is(err, a2a.ErrInvalidParams))
	}
	if plain := errors.New("plain"); scrubPeerError(ctx, plain) != plain {
		t.Error("an error without credentials was rewrapped")
	}
}
