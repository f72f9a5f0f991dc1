package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
)

// maxListPages bounds tools/list pagination against a server that never
// stops handing out cursors.
const maxListPages = 1000

// conn is one live connection to an MCP server: a handshaken mcp-go client
// plus a done channel closed as soon as the connection is known dead (the
// process exited, a request failed at the transport, a ping failed).
type conn struct {
	server   string
	client   *client.Client
	done     chan struct{}
	relist   chan struct{} // one pending notifications/tools/list_changed
	release  func()        // stops the process or the HTTP session
	exitWait time.Duration // stdio: how long a transport error waits for the exit status

	life     context.Context // cancelled with done, so calls can hang off it cheaply
	kill     context.CancelFunc
	deadOnce sync.Once
	deadErr  error
	closing  atomic.Bool
	listSeq  atomic.Uint64

	callMu sync.Mutex
	calls  map[*callScope]struct{} // tools/call in flight, for elicitations
}

func newConn(server string) *conn {
	life, kill := context.WithCancel(context.Background())
	return &conn{server: server, done: make(chan struct{}), relist: make(chan struct{}, 1), life: life, kill: kill}
}

// dial opens the transport of cfg and performs the handshake
// (initialize → notifications/initialized). The caller closes the conn.
func dial(ctx context.Context, cfg ServerConfig, opts Options) (*conn, error) {
	var (
		c   *conn
		err error
	)
	proto, logger := opts.ProtocolVersion, opts.Logger
	switch cfg.transport() {
	case TransportStdio:
		c, err = dialStdio(cfg, proto, logger)
	case TransportHTTP:
		c, err = dialHTTP(cfg, proto, logger, opts)
	default:
		err = fmt.Errorf("transport %q: want stdio or http", cfg.Transport)
	}
	if err != nil {
		return nil, err
	}
	if err := c.handshake(ctx, proto, opts.ClientVersion, cfg.timeout()); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// start wires notifications and starts the mcp-go client.
func (c *conn) start(ctx context.Context, cl *client.Client) error {
	c.client = cl
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method != string(mcpgo.MethodNotificationToolsListChanged) {
			return
		}
		select {
		case c.relist <- struct{}{}:
		default:
		}
	})
	cl.OnConnectionLost(func(err error) { c.markDead(fmt.Errorf("connection lost: %w", err)) })
	if err := cl.Start(ctx); err != nil {
		return fmt.Errorf("start transport: %w", err)
	}
	return nil
}

func (c *conn) handshake(ctx context.Context, proto, version string, timeout time.Duration) error {
	ctx, cancel := c.bound(ctx, timeout)
	defer cancel()
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = proto
	req.Params.ClientInfo = mcpgo.Implementation{Name: "beamclaw", Version: version}
	req.Params.Capabilities.Elicitation = elicitCapability
	if _, err := c.client.Initialize(ctx, req); err != nil {
		return c.explain(ctx, "initialize", err)
	}
	return nil
}

// bound derives a context that ends at timeout or when the conn dies.
func (c *conn) bound(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errCallTimeout)
	stop := context.AfterFunc(c.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// explain turns an error of a request into one that says why: the conn
// died, the deadline passed, or the server answered with an error.
func (c *conn) explain(ctx context.Context, op string, err error) error {
	select {
	case <-c.done:
		return fmt.Errorf("%s: %w: %w", op, ErrDisconnected, c.err())
	default:
	}
	var ae *oauth.AuthError
	if errors.As(err, &ae) {
		if !errors.Is(ae, oauth.ErrInsufficientScope) {
			c.markDead(ae) // the token is refused: this connection is done
		}
		return fmt.Errorf("%s: %w", op, ae)
	}
	if errors.Is(context.Cause(ctx), errCallTimeout) {
		return fmt.Errorf("%s: %w", op, ErrTimeout)
	}
	var te *transport.Error
	// A transport error is the connection dying, also when its death
	// ended the call's context first (bound: c.life) — not the caller's
	// cancel.
	if errors.As(err, &te) && (ctx.Err() == nil || c.life.Err() != nil) {
		return fmt.Errorf("%s: %w: %w", op, ErrDisconnected, c.transportFailed(err))
	}
	return fmt.Errorf("%s: %w", op, err)
}

// rawTool is a tool as the server listed it; the input schema is kept
// byte for byte (mcp-go's typed schema drops unknown keywords).
type rawTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// listTools runs tools/list, following nextCursor to the end.
func (c *conn) listTools(ctx context.Context, timeout time.Duration) ([]rawTool, error) {
	ctx, cancel := c.bound(ctx, timeout)
	defer cancel()
	var (
		all    []rawTool
		cursor string
		seen   = map[string]bool{}
	)
	for range maxListPages {
		page, err := c.listPage(ctx, cursor)
		if err != nil {
			return nil, c.explain(ctx, "tools/list", err)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			return all, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("tools/list: cursor %q repeated", page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxListPages)
}

type listPage struct {
	Tools      []rawTool `json:"tools"`
	NextCursor string    `json:"nextCursor"`
}

func (c *conn) listPage(ctx context.Context, cursor string) (listPage, error) {
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	req := transport.JSONRPCRequest{
		JSONRPC: mcpgo.JSONRPC_VERSION,
		ID:      mcpgo.NewRequestId(fmt.Sprintf("beamclaw-list-%d", c.listSeq.Add(1))),
		Method:  string(mcpgo.MethodToolsList),
		Params:  params,
	}
	resp, err := c.client.GetTransport().SendRequest(ctx, req)
	if err != nil {
		return listPage{}, transport.NewError(err)
	}
	if resp.Error != nil {
		return listPage{}, resp.Error.AsError()
	}
	var page listPage
	if err := json.Unmarshal(resp.Result, &page); err != nil {
		return listPage{}, fmt.Errorf("decode tools/list result: %w", err)
	}
	return page, nil
}

// callTool runs tools/call with the per-call timeout. An elicitation the
// server sends meanwhile is put to the Asker of ctx (see elicit.go); the
// questions nobody could answer are returned as notes.
func (c *conn) callTool(ctx context.Context, name string, args json.RawMessage, timeout time.Duration) (*mcpgo.CallToolResult, []string, error) {
	ctx, cancel := c.bound(ctx, timeout)
	defer cancel()
	ctx, scope, leave := c.enter(ctx, name)
	defer leave()
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.client.CallTool(ctx, req)
	if err != nil {
		return nil, scope.deniedNotes(), c.explain(ctx, "tools/call "+name, err)
	}
	return res, scope.deniedNotes(), nil
}

func (c *conn) ping(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := c.bound(ctx, timeout)
	defer cancel()
	//lint:ignore SA1019 beamclaw pins protocol 2025-11-25 (mcp.protocol_version), where ping is the liveness check
	if err := c.client.Ping(ctx); err != nil {
		return c.explain(ctx, "ping", err)
	}
	return nil
}

// transportFailed marks the conn dead after a transport error. A stdio
// transport sees its pipe close just before the process is reaped, so it
// waits briefly for the exit status, which says more.
func (c *conn) transportFailed(err error) error {
	if c.exitWait > 0 {
		t := time.NewTimer(c.exitWait)
		defer t.Stop()
		select {
		case <-c.done:
			return c.err()
		case <-t.C:
		}
	}
	c.markDead(err)
	return c.err()
}

func (c *conn) markDead(err error) {
	c.deadOnce.Do(func() {
		if c.closing.Load() {
			err = errClosed
		}
		c.deadErr = err
		close(c.done)
		c.kill()
	})
}

func (c *conn) err() error {
	<-c.done
	return c.deadErr
}

// close ends the connection and releases its process or session; safe to
// call more than once.
func (c *conn) close() {
	if !c.closing.CompareAndSwap(false, true) {
		return
	}
	if c.client != nil {
		_ = c.client.Close()
	}
	if c.release != nil {
		c.release()
	}
	c.markDead(errClosed)
}
