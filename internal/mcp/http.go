package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
)

// dialHTTP connects to a streamable HTTP server. The standalone GET stream
// is kept open so notifications/tools/list_changed arrives; a dead server
// is noticed by the next request or ping failing at the transport. Each
// connection has its own HTTP transport: a reconnect never reuses a
// keep-alive connection the server already dropped.
//
// Requests go through an oauth.Transport: it adds the server's access
// token (kept fresh by an oauth.Source over opts.Tokens) and turns a 401
// or 403 into an *oauth.AuthError, which makes the server needs_login.
// Both clients (the connection's, the token requests') refuse a redirect
// to another origin, which would carry the configured headers and the
// token there, and check where any other redirect leads
// (oauth.RedirectGuard with Options.RedirectCheck).
func dialHTTP(cfg ServerConfig, proto string, logger *slog.Logger, mo Options) (*conn, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	tokenHC := oauth.Guard(&http.Client{Transport: base, Timeout: cfg.timeout()}, cfg.Name, cfg.URL, mo.RedirectCheck)
	src := oauth.NewSource(cfg.Name, cfg.URL, cfg.OAuth, mo.Tokens, tokenHC, mo.Clock)
	hc := oauth.Guard(&http.Client{Transport: &oauth.Transport{Base: base, Source: src}}, cfg.Name, cfg.URL, mo.RedirectCheck)
	opts := []transport.StreamableHTTPCOption{
		transport.WithHTTPBasicClient(hc),
		//lint:ignore SA1019 the pinned protocol (2025-11-25) delivers list_changed on the standalone GET stream
		transport.WithContinuousListening(),
		transport.WithHTTPLogger(logger.With("server", cfg.Name)),
	}
	if len(cfg.Headers) > 0 {
		opts = append(opts, transport.WithHTTPHeaders(cfg.Headers))
	}
	tr, err := transport.NewStreamableHTTP(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("http transport: %w", err)
	}
	c := newConn(cfg.Name)
	ctx, cancel := context.WithCancel(context.Background())
	c.release = func() {
		cancel()
		base.CloseIdleConnections()
	}
	cl := client.NewClient(tr, client.WithProtocolVersion(proto),
		client.WithElicitationHandler(&elicitor{c: c, server: cfg.Name, log: logger}))
	if err := c.start(ctx, cl); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}
