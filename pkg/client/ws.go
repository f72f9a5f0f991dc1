package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ErrClosed is returned by Conn methods after the connection ended.
var ErrClosed = errors.New("websocket connection closed")

// DialOptions configure a WebSocket session.
type DialOptions struct {
	// User is the hello's user (the daemon prefixes it: "ws:<user>", or
	// "local:<user>" for channel "tui" over the control socket).
	User string
	// Channel is the hello's channel; "tui" is honoured on the control
	// socket only.
	Channel string
	// Origin is sent as the Origin header (browsers' shape); empty sends none.
	Origin string
	// ReadTimeout ends a connection that hears nothing (not even a ping)
	// for this long; default 75 s, above the server's 2 × 30 s pong wait.
	ReadTimeout time.Duration
	// Buffer is the capacity of Events; default 256.
	Buffer int
}

// Conn is a WebSocket session with the daemon. Frames arrive on Events,
// which is closed when the connection ends (Err then says why). Methods
// are safe for concurrent use. Reconnecting is the caller's job.
type Conn struct {
	ws      *websocket.Conn
	ready   protocol.ServerFrame
	events  chan protocol.ServerFrame
	timeout time.Duration

	wmu sync.Mutex // one writer at a time

	done      chan struct{}
	closeOnce sync.Once
	errMu     sync.Mutex
	err       error
}

// wsURL turns the HTTP base into the WebSocket URL of /ws.
func (c *Client) wsURL() string {
	u := c.base
	switch {
	case strings.HasPrefix(u, "https://"):
		u = "wss://" + strings.TrimPrefix(u, "https://")
	case strings.HasPrefix(u, "http://"):
		u = "ws://" + strings.TrimPrefix(u, "http://")
	}
	return u + protocol.WSPath
}

// Dial opens GET /ws over the client's transport (the control socket, or
// TCP with the bearer token), says hello for agent, and waits for the
// ready frame (Ready returns it). ctx bounds the dial and the handshake.
func (c *Client) Dial(ctx context.Context, agent string, opts DialOptions) (*Conn, error) {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 75 * time.Second
	}
	if opts.Buffer <= 0 {
		opts.Buffer = 256
	}
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, NetDialContext: c.DialContext}
	h := http.Header{}
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	if opts.Origin != "" {
		h.Set("Origin", opts.Origin)
	}
	ws, resp, err := d.DialContext(ctx, c.wsURL(), h)
	if err != nil {
		return nil, dialError(resp, err)
	}
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	conn := &Conn{ws: ws, events: make(chan protocol.ServerFrame, opts.Buffer),
		timeout: opts.ReadTimeout, done: make(chan struct{})}
	ready, err := conn.handshake(ctx, protocol.ClientFrame{Type: protocol.FrameHello, Agent: agent,
		User: opts.User, Channel: opts.Channel, Protocol: protocol.Version})
	if err != nil {
		_ = ws.Close()
		return nil, err
	}
	conn.ready = ready
	go conn.readLoop()
	return conn, nil
}

func dialError(resp *http.Response, err error) error {
	if resp == nil {
		return fmt.Errorf("dial websocket: %w", err)
	}
	defer resp.Body.Close()
	var pe protocol.Error
	msg := resp.Status
	if json.NewDecoder(resp.Body).Decode(&pe) == nil && pe.Error.Message != "" {
		msg = pe.Error.Message
	}
	return &Error{Status: resp.StatusCode, Message: msg}
}

// handshake sends hello and reads frames until ready or an error frame.
func (c *Conn) handshake(ctx context.Context, hello protocol.ClientFrame) (protocol.ServerFrame, error) {
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.ws.SetWriteDeadline(deadline)
	if err := c.ws.WriteJSON(hello); err != nil {
		return protocol.ServerFrame{}, fmt.Errorf("send hello: %w", err)
	}
	_ = c.ws.SetReadDeadline(deadline)
	for {
		var f protocol.ServerFrame
		if err := c.ws.ReadJSON(&f); err != nil {
			return f, fmt.Errorf("wait for ready: %w", err)
		}
		switch f.Type {
		case protocol.FrameReady:
			return f, nil
		case protocol.FrameError:
			return f, &Error{Status: http.StatusBadRequest, Message: f.Message}
		}
	}
}

// Ready is the ready frame that answered the hello: session id, agent and
// the session's history.
func (c *Conn) Ready() protocol.ServerFrame { return c.ready }

// Events delivers every server frame after ready; it is closed when the
// connection ends.
func (c *Conn) Events() <-chan protocol.ServerFrame { return c.events }

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended (nil while it lives or after Close).
func (c *Conn) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}
