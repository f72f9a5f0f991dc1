package gateway

import (
	"encoding/json"

	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// maxHeldChunk bounds the text merged into one held chunk: a client that
// has not read this much of a run's answer is a slow consumer.
const maxHeldChunk = 1 << 20

// enqueue queues a frame for the writer without ever blocking. While the
// queue is backed up (half full), a run's chunks are merged into one held
// chunk frame rather than queued one by one: a burst of a model's
// chunks (a provider or a proxy that buffers, a daemon under load) costs
// a client that reads a moment later nothing. The held chunk goes, in
// order, before any other frame and as soon as the writer drained the
// queue. A queue that fills, or a held chunk past maxHeldChunk, closes
// the connection as a slow consumer.
func (c *wsConn) enqueue(f protocol.ServerFrame) {
	select {
	case <-c.quit:
		return // closing: the frame would never be written
	default:
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.held != nil && c.merge(c.held, f) {
		return
	}
	if !c.queueHeldLocked() {
		return
	}
	if f.Type == protocol.FrameChunk && c.backedUpLocked() {
		c.held = &f
		return
	}
	c.queueLocked(f)
}

// merge appends f's text to into when both are chunks of one run (false:
// they are not); past maxHeldChunk the client is a slow consumer.
func (c *wsConn) merge(into *protocol.ServerFrame, f protocol.ServerFrame) bool {
	if f.Type != protocol.FrameChunk || into.Type != protocol.FrameChunk || into.RunID != f.RunID {
		return false
	}
	into.Text += f.Text
	if len(into.Text) > maxHeldChunk {
		c.slow()
	}
	return true
}

// backedUpLocked: the writer is behind. Never with an empty queue, so a
// held chunk always has a frame ahead of it whose write calls drained.
func (c *wsConn) backedUpLocked() bool {
	return len(c.send) >= max(1, cap(c.send)/2)
}

// drained is the writer's call after each frame it wrote: the held chunk
// is queued once the queue is no longer backed up.
func (c *wsConn) drained() {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.held != nil && !c.backedUpLocked() {
		c.queueHeldLocked()
	}
}

// flushHeld writes the held chunk, if any, at the connection's close
// (closeHandshake, the queue empty); false once nothing is left to write.
func (c *wsConn) flushHeld() bool {
	c.sendMu.Lock()
	f := c.held
	c.held = nil
	c.sendMu.Unlock()
	if f == nil {
		return false
	}
	b, err := json.Marshal(*f)
	return err == nil && c.write(websocket.TextMessage, b)
}

// queueHeldLocked queues the held chunk, if any; false when the queue is
// full (the connection is closing).
func (c *wsConn) queueHeldLocked() bool {
	if c.held == nil {
		return true
	}
	f := *c.held
	c.held = nil
	return c.queueLocked(f)
}

// queueLocked queues f, or closes the connection as a slow consumer when
// the queue is full; false then.
func (c *wsConn) queueLocked(f protocol.ServerFrame) bool {
	b, err := json.Marshal(f)
	if err != nil {
		c.w.log.Error("encode websocket frame", "type", f.Type, "err", err)
		return true
	}
	select {
	case c.send <- b:
		return true
	default:
		c.slow()
		return false
	}
}

// slow closes the connection of a client that reads too slowly.
func (c *wsConn) slow() {
	c.w.log.Warn("websocket client too slow, closing", "queue", cap(c.send))
	c.shutdown(websocket.ClosePolicyViolation, "slow consumer")
}
