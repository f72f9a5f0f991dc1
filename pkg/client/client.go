// Package client is the public Go client of a running beamclaw daemon:
// HTTP over the daemon's control socket (a Unix socket, mode 0600, no
// token) or over TCP with a bearer token. The CLI and the terminal UI use
// it. It imports only pkg/protocol and the standard library.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ErrNoDaemon means nothing answers on the control socket.
var ErrNoDaemon = errors.New("no beamclaw daemon is running")

// Client talks to one daemon.
type Client struct {
	base   string // http://beamclaw for a socket, or http://host:port
	socket string
	token  string
	http   *http.Client
}

// NewUnix returns a client of the daemon listening on socketPath.
func NewUnix(socketPath string) *Client {
	c := &Client{base: "http://beamclaw", socket: socketPath}
	c.http = &http.Client{Transport: &http.Transport{
		DialContext:         c.DialContext,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}}
	return c
}

// NewTCP returns a client of the daemon's HTTP address (for example
// "http://127.0.0.1:18800"), sending token as a bearer when set.
func NewTCP(baseURL, token string) *Client {
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token,
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}}}
}

// DialContext opens a raw connection to the daemon (the Unix socket, or
// the TCP address); WebSocket dialers use it.
func (c *Client) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	var d net.Dialer
	if c.socket != "" {
		conn, err := d.DialContext(ctx, "unix", c.socket)
		if err != nil {
			return nil, fmt.Errorf("%w (socket %s): %w", ErrNoDaemon, c.socket, err)
		}
		return conn, nil
	}
	return d.DialContext(ctx, "tcp", addr)
}

// BaseURL is the HTTP base the client addresses.
func (c *Client) BaseURL() string { return c.base }

// Token is the bearer token, if any.
func (c *Client) Token() string { return c.token }

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Error is a non-2xx answer from the daemon.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("daemon answered %d: %s", e.Status, e.Message) }

// Do sends a JSON request (in may be nil) and decodes a JSON answer into
// out (which may be nil).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var pe protocol.Error
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &pe) == nil && pe.Error.Message != "" {
			msg = pe.Error.Message
		}
		return &Error{Status: resp.StatusCode, Message: msg}
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// Download copies the body of GET path into w; an error answer becomes
// an *Error.
func (c *Client) Download(ctx context.Context, path string, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var pe protocol.Error
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &pe) == nil && pe.Error.Message != "" {
			msg = pe.Error.Message
		}
		return 0, &Error{Status: resp.StatusCode, Message: msg}
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("GET %s: %w", path, err)
	}
	return n, nil
}

// Health reads GET /health.
func (c *Client) Health(ctx context.Context) (protocol.Health, error) {
	var h protocol.Health
	err := c.Do(ctx, http.MethodGet, "/health", nil, &h)
	return h, err
}

// Status reads the daemon's status (control socket only).
func (c *Client) Status(ctx context.Context) (protocol.Status, error) {
	var s protocol.Status
	err := c.Do(ctx, http.MethodGet, "/control/status", nil, &s)
	return s, err
}

// Stop asks the daemon to shut down gracefully (control socket only).
func (c *Client) Stop(ctx context.Context) error {
	return c.Do(ctx, http.MethodPost, "/control/stop", nil, nil)
}

// Running reports whether a daemon answers on the control socket, and its
// pid. It waits at most two seconds.
func Running(ctx context.Context, socket string) (pid int, ok bool) {
	c := NewUnix(socket)
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		return 0, false
	}
	return st.PID, true
}
