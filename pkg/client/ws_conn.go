package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Send sends a user message with a fresh client message id and returns
// that id; the ack frame carrying it names the run, whose chunk, tool,
// approval and final (or error) frames follow on Events.
func (c *Conn) Send(ctx context.Context, content string) (string, error) {
	id := NewMessageID()
	return id, c.SendFrame(ctx, protocol.ClientFrame{Type: protocol.FrameMessage, ID: id, Content: content})
}

// SendFrame sends any client frame. Resending a message frame with the
// same id (after a reconnect, say) is safe: the daemon runs it once.
func (c *Conn) SendFrame(ctx context.Context, f protocol.ClientFrame) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(deadline)
	if err := c.ws.WriteJSON(f); err != nil {
		return fmt.Errorf("send %s frame: %w", f.Type, err)
	}
	return nil
}

// Approve answers an approval request: decision is allow, always or deny.
func (c *Conn) Approve(approvalID, decision string) error {
	return c.SendFrame(context.Background(), protocol.ClientFrame{Type: protocol.FrameApprove,
		ApprovalID: approvalID, Decision: decision})
}

// Answer answers an elicitation frame's question: action accept (with
// the form's fields; defaults fill those left out), decline or cancel.
func (c *Conn) Answer(elicitationID, action string, fields map[string]any) error {
	return c.SendFrame(context.Background(), protocol.ClientFrame{Type: protocol.FrameAnswer,
		ElicitationID: elicitationID, Action: action, Fields: fields})
}

// Reset empties the session's history; a reset_done frame confirms.
func (c *Conn) Reset() error {
	return c.SendFrame(context.Background(), protocol.ClientFrame{Type: protocol.FrameReset})
}

// Context asks for the context gauge; a context frame answers.
func (c *Conn) Context() error {
	return c.SendFrame(context.Background(), protocol.ClientFrame{Type: protocol.FrameContext})
}

// History asks for the session's history; a history frame answers.
func (c *Conn) History() error {
	return c.SendFrame(context.Background(), protocol.ClientFrame{Type: protocol.FrameHistory})
}

// Ping asks for a pong frame.
func (c *Conn) Ping() error {
	return c.SendFrame(context.Background(), protocol.ClientFrame{Type: protocol.FramePing})
}

// Close ends the connection with a normal close frame and waits for the
// reader to stop.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.wmu.Lock()
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.wmu.Unlock()
		close(c.done)
		_ = c.ws.Close()
	})
	return nil
}

// readLoop turns incoming frames into Events until the connection ends.
func (c *Conn) readLoop() {
	defer close(c.events)
	defer c.closeOnce.Do(func() {
		close(c.done)
		_ = c.ws.Close()
	})
	_ = c.ws.SetReadDeadline(time.Now().Add(c.timeout))
	c.ws.SetPingHandler(func(data string) error {
		_ = c.ws.SetReadDeadline(time.Now().Add(c.timeout))
		err := c.ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(10*time.Second))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	for {
		var f protocol.ServerFrame
		if err := c.ws.ReadJSON(&f); err != nil {
			c.setErr(err)
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(c.timeout))
		select {
		case c.events <- f:
		case <-c.done:
			return
		}
	}
}

func (c *Conn) setErr(err error) {
	select {
	case <-c.done:
		return // closed on purpose
	default:
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) && (ce.Code == websocket.CloseNormalClosure || ce.Code == websocket.CloseGoingAway) {
		err = fmt.Errorf("%w: %s", ErrClosed, ce.Error())
	}
	c.errMu.Lock()
	c.err = err
	c.errMu.Unlock()
}

// NewMessageID returns a random client message id.
func NewMessageID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "m-" + hex.EncodeToString(b[:])
}
