package gateway

import (
	"context"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// maxAsks bounds the questions a connection remembers.
const maxAsks = 64

// asked records that the elicitation id was shown on this connection:
// only this connection may answer it.
func (c *wsConn) asked(id string) {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	if c.asks == nil {
		c.asks = map[string]struct{}{}
	}
	if len(c.asks) >= maxAsks {
		clear(c.asks) // questions time out long before this many pile up
	}
	c.asks[id] = struct{}{}
}

// take forgets id and reports whether it was shown here.
func (c *wsConn) take(id string) bool {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	_, ok := c.asks[id]
	delete(c.asks, id)
	return ok
}

// answer answers an elicitation shown on this connection.
func (c *wsConn) answer(ctx context.Context, f protocol.ClientFrame) {
	switch f.Action {
	case beamclaw.ElicitAccept, beamclaw.ElicitDecline, beamclaw.ElicitCancel:
	default:
		c.sendError("", protocol.CodeBadFrame, "answer needs elicitation_id and action accept, decline or cancel")
		return
	}
	if f.ElicitationID == "" || !c.take(f.ElicitationID) {
		c.sendError("", protocol.CodeNotFound, "no question with that id was asked on this connection")
		return
	}
	a := beamclaw.ElicitAnswer{Action: f.Action}
	if f.Action == beamclaw.ElicitAccept {
		a.Content = f.Fields
	}
	if err := c.w.opts.Sessions.Answer(ctx, c.sess.user, f.ElicitationID, a); err != nil {
		c.sendErr("", err)
	}
}
