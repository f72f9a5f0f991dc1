package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// server is the suture service of one configured MCP server: it connects,
// handshakes, discovers tools, holds the connection, re-lists on
// notifications/tools/list_changed, and returns an error when the
// connection breaks so the supervisor restarts it. Backoff and the restart
// budget are its own (driven by Options.Clock), not suture's.
type server struct {
	m   *Manager
	cfg ServerConfig

	mu        sync.Mutex
	state     State
	conn      *conn
	tools     []*mcpTool // sorted by name; offered only while ready
	byName    map[string]*mcpTool
	restarts  int
	lastErr   string
	budget    budget
	delay     time.Duration // backoff before the next attempt
	attempted bool
	missing   string        // why it starts in needs_login (loginMissing)
	wake      chan struct{} // one slot: credentials changed (a login or logout)
	needScope string        // a call was refused for this scope (403 insufficient_scope)
	changed   chan struct{} // closed (and replaced) at every state change, for Wait
}

var _ suture.Service = (*server)(nil)

func newServer(m *Manager, cfg ServerConfig) *server {
	st, lastErr, missing := StateStarting, "", ""
	switch {
	case !cfg.Enabled:
		st = StateDisabled
	default:
		if missing = m.loginMissing(cfg); missing != "" {
			st, lastErr = StateNeedsLogin, missing+"; run `"+LoginHint(cfg.Name)+"`"
		}
	}
	return &server{m: m, cfg: cfg, state: st, lastErr: lastErr, missing: missing, budget: newBudget(m.opts.Restart),
		wake: make(chan struct{}, 1), changed: make(chan struct{})}
}

func (s *server) String() string { return "mcp:" + s.cfg.Name }

// Serve runs one connection attempt and holds it until it breaks or ctx
// ends. A server that refuses our credentials (401/403) is not a crash:
// Serve waits in needs_login, without restarts, until a login wakes it.
func (s *server) Serve(ctx context.Context) error {
	if why, ok := s.waitingForLogin(); ok {
		if err := s.awaitLogin(ctx, errors.New(why)); err != nil {
			return err
		}
	}
	for {
		if err := s.gate(ctx); err != nil {
			return err
		}
		err := s.run(ctx)
		if ctx.Err() != nil {
			s.drop(StateStopped, "")
			return ctx.Err()
		}
		if !needsLogin(err) {
			return s.fail(err)
		}
		if err := s.awaitLogin(ctx, err); err != nil {
			return err
		}
	}
}

// gate refuses a failed server and waits out the backoff of a restart.
func (s *server) gate(ctx context.Context) error {
	s.mu.Lock()
	failed, delay, first := s.state == StateFailed, s.delay, !s.attempted
	s.attempted = true
	s.mu.Unlock()
	if failed {
		return fmt.Errorf("mcp server %q: %w: %w", s.cfg.Name, ErrFailed, suture.ErrDoNotRestart)
	}
	if delay > 0 {
		select {
		case <-ctx.Done():
			s.drop(StateStopped, "")
			return ctx.Err()
		case <-s.m.opts.Clock.After(delay):
		}
	}
	if first {
		s.setState(StateStarting)
	} else {
		s.setState(StateRestarting)
	}
	return nil
}

func (s *server) run(ctx context.Context) error {
	c, err := dial(ctx, s.cfg, s.m.opts)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.close()
	if err := s.discover(ctx, c); err != nil {
		return err
	}
	s.ready(c)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.done:
			return fmt.Errorf("%w: %w", ErrDisconnected, c.err())
		case <-c.relist:
			if err := s.discover(ctx, c); err != nil {
				return err
			}
		case <-s.m.opts.Clock.After(s.m.opts.PingInterval):
			if err := c.ping(ctx, s.cfg.timeout()); err != nil {
				return err
			}
		}
	}
}

// discover lists the tools, checks their pins and publishes them.
func (s *server) discover(ctx context.Context, c *conn) error {
	raw, err := c.listTools(ctx, s.cfg.timeout())
	if err != nil {
		return err
	}
	tools := s.buildTools(raw)
	for _, t := range tools {
		s.m.checkPin(t)
	}
	byName := make(map[string]*mcpTool, len(tools))
	for _, t := range tools {
		byName[t.name] = t
	}
	s.mu.Lock()
	s.tools, s.byName = tools, byName
	s.mu.Unlock()
	s.m.log.Info("mcp tools discovered", "server", s.cfg.Name, "tools", len(tools))
	return nil
}

func (s *server) buildTools(raw []rawTool) []*mcpTool {
	seen := map[string]bool{}
	tools := make([]*mcpTool, 0, len(raw))
	for _, r := range raw {
		if r.Name == "" {
			continue
		}
		name := ToolName(s.cfg.Name, r.Name)
		if seen[name] {
			continue
		}
		seen[name] = true
		tools = append(tools, &mcpTool{
			srv: s, name: name, remote: r.Name, desc: r.Description,
			schema: r.InputSchema, hash: DefinitionHash(r.Name, r.Description, r.InputSchema),
		})
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].name < tools[j].name })
	return tools
}

func (s *server) ready(c *conn) {
	s.mu.Lock()
	s.conn = c
	s.budget.healthy()
	s.delay = 0
	n := len(s.tools)
	s.mu.Unlock()
	s.setState(StateReady)
	s.m.log.Info("mcp server ready", "server", s.cfg.Name, "tools", n)
}

// fail records a broken attempt and says whether suture may restart. The
// restart count, the last error, the dropped tools and the new state
// change together, so a status never shows a half-recorded failure.
func (s *server) fail(cause error) error {
	s.mu.Lock()
	delay, exhausted := s.budget.fail(s.m.opts.Clock.Now())
	state := StateFailed
	if !exhausted {
		s.restarts++
		s.delay = delay
		state = StateRestarting
	}
	changed := s.dropLocked(state, cause.Error())
	s.mu.Unlock()
	s.announce(state, changed)
	err := fmt.Errorf("mcp server %q: %w", s.cfg.Name, cause)
	if exhausted {
		s.m.log.Error("mcp server failed; not restarting", "server", s.cfg.Name, "err", cause)
		return fmt.Errorf("%w: %w: %w", err, ErrFailed, suture.ErrDoNotRestart)
	}
	s.m.emit(beamclaw.EventMCPRestart, slog.String("server", s.cfg.Name))
	s.m.log.Warn("mcp server connection lost; restarting", "server", s.cfg.Name, "backoff", delay, "err", cause)
	return err
}

// drop forgets the connection and its tools and enters state.
func (s *server) drop(state State, lastErr string) {
	s.mu.Lock()
	changed := s.dropLocked(state, lastErr)
	s.mu.Unlock()
	s.announce(state, changed)
}

// dropLocked is drop with s.mu held; it reports whether the state changed.
func (s *server) dropLocked(state State, lastErr string) bool {
	s.conn, s.tools, s.byName = nil, nil, nil
	if lastErr != "" {
		s.lastErr = lastErr
	}
	changed := s.state != state
	s.state = state
	if changed {
		s.notifyLocked()
	}
	return changed
}

// notifyLocked wakes every Wait: the state changed.
func (s *server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *server) setState(st State) {
	s.mu.Lock()
	changed := s.state != st
	s.state = st
	if changed {
		s.notifyLocked()
	}
	s.mu.Unlock()
	s.announce(st, changed)
}

// announce reports a state change to metrics and events.
func (s *server) announce(st State, changed bool) {
	if !changed {
		return
	}
	s.m.emit(beamclaw.EventMCPServerState, slog.String("server", s.cfg.Name), slog.String("state", string(st)))
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ServerStatus{
		Name: s.cfg.Name, Transport: s.cfg.transport(), State: s.state,
		Tools: len(s.tools), Restarts: s.restarts, LastError: s.lastErr, NeedsScope: s.needScope,
	}
}

// current is the live connection and state; conn is nil unless ready.
func (s *server) current() (*conn, State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil, s.state
	}
	return s.conn, s.state
}

func (s *server) readyTools() []*mcpTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	return append([]*mcpTool(nil), s.tools...)
}

func (s *server) tool(name string) (*mcpTool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil, false
	}
	t, ok := s.byName[name]
	return t, ok
}
