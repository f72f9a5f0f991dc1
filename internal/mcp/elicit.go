package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/elicit"
)

// elicitCapability is what beamclaw declares in initialize: it answers
// elicitation/create in form and url mode.
var elicitCapability = &mcpgo.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}

// callScope is one tools/call in flight: its context, which carries the
// run's Asker, and the questions that could not be put to anybody.
type callScope struct {
	ctx  context.Context
	tool string

	mu     sync.Mutex
	denied []string
}

type scopeKey struct{}

func (sc *callScope) deny(reason string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.denied = append(sc.denied, reason)
}

func (sc *callScope) deniedNotes() []string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return append([]string(nil), sc.denied...)
}

// enter registers a call in flight and returns its context.
func (c *conn) enter(ctx context.Context, tool string) (context.Context, *callScope, func()) {
	sc := &callScope{ctx: ctx, tool: tool}
	c.callMu.Lock()
	if c.calls == nil {
		c.calls = map[*callScope]struct{}{}
	}
	c.calls[sc] = struct{}{}
	c.callMu.Unlock()
	return context.WithValue(ctx, scopeKey{}, sc), sc, func() {
		c.callMu.Lock()
		delete(c.calls, sc)
		c.callMu.Unlock()
	}
}

// scopeFor finds the call an elicitation belongs to: the request's own
// context (streamable HTTP sends it on the call's stream) or, when the
// transport does not say (stdio, the standalone stream), the only call
// in flight.
func (c *conn) scopeFor(ctx context.Context) *callScope {
	if sc, ok := ctx.Value(scopeKey{}).(*callScope); ok {
		return sc
	}
	c.callMu.Lock()
	defer c.callMu.Unlock()
	if len(c.calls) != 1 {
		return nil
	}
	for sc := range c.calls {
		return sc
	}
	return nil
}

// elicitor answers a server's elicitation/create through the Asker of
// the call it belongs to.
type elicitor struct {
	c      *conn
	server string
	log    *slog.Logger
}

// Elicit implements client.ElicitationHandler.
func (h *elicitor) Elicit(ctx context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	p := req.Params
	sc := h.c.scopeFor(ctx)
	if sc == nil {
		h.log.Warn("mcp elicitation outside a tool call; declined", "server", h.server)
		return answer(beamclaw.ElicitDecline, nil), nil
	}
	asker, ok := beamclaw.AskerFrom(sc.ctx)
	if !ok {
		sc.deny("nobody can answer questions here")
		return answer(beamclaw.ElicitDecline, nil), nil
	}
	schema, _ := json.Marshal(p.RequestedSchema)
	if p.RequestedSchema == nil {
		schema = nil
	}
	e := beamclaw.Elicitation{ID: newElicitID(), Source: "mcp:" + h.server, Tool: sc.tool, Message: p.Message,
		Schema: schema, URL: p.URL}
	// The person has as long as the call has, not the transport's own
	// request timeout: wait on the call's context.
	a, err := asker.Ask(sc.ctx, e)
	switch {
	case errors.Is(err, beamclaw.ErrCannotAsk):
		sc.deny(err.Error())
		return answer(beamclaw.ElicitDecline, nil), nil
	case err != nil:
		h.log.Warn("mcp elicitation not answered", "server", h.server, "err", err)
		return answer(beamclaw.ElicitCancel, nil), nil
	}
	if a.Action != beamclaw.ElicitAccept {
		return answer(a.Action, nil), nil
	}
	form, err := elicit.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("elicitation schema: %w", err)
	}
	content, err := form.Complete(a.Content)
	if err != nil {
		h.log.Warn("mcp elicitation answer incomplete", "server", h.server, "err", err)
	}
	return answer(beamclaw.ElicitAccept, content), nil
}

func answer(action string, content map[string]any) *mcpgo.ElicitationResult {
	r := &mcpgo.ElicitationResult{}
	r.Action = mcpgo.ElicitationResponseAction(action)
	if content != nil {
		r.Content = content
	}
	return r
}

func newElicitID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "elicit_" + hex.EncodeToString(b)
}
