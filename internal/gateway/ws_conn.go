package gateway

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// wsConn is one WebSocket connection: the handler's goroutine reads and
// handles client frames, one writer goroutine owns every data write. Both
// sides meet only at the bounded send queue; a queue that fills closes
// the connection (slow consumer) instead of blocking anyone.
type wsConn struct {
	w      *WS
	ws     *websocket.Conn
	cancel context.CancelFunc

	send       chan []byte
	quit       chan struct{} // closed by shutdown
	readerDone chan struct{}
	writerDone chan struct{}

	closeOnce   sync.Once
	closeCode   int
	closeReason string

	// who is sess for other goroutines (Notify).
	who atomic.Pointer[wsSession]

	// Reader-goroutine state.
	// rejoined: this connection was given the run in flight of its session
	// once (a second hello would stream every frame twice); a connection
	// that sent a message already gets its own runs' frames.
	rejoined bool
	sess     *wsSession
	dedup    *recentIDs
	id       string // random, names the connection in approval origins

	askMu sync.Mutex
	asks  map[string]struct{} // elicitations shown on this connection, not yet answered

	sendMu sync.Mutex            // orders the frames queued (enqueue)
	held   *protocol.ServerFrame // chunks merged while the queue is backed up (ws_send.go)
}

// origin is where this connection's approvals are asked and answered:
// its channel and the connection itself.
// origin is whom an approval asked here belongs to: the person and the
// channel kind, not this connection, so that it outlives the connection
// and the same person's next one (a reconnect, the TUI reopened) can
// answer it; another person, another channel kind and the HTTP API
// cannot.
func (c *wsConn) origin() string {
	if c.sess == nil {
		return ""
	}
	return string(c.sess.channel) + ":" + c.sess.user
}

func newWSConn(w *WS, ws *websocket.Conn, cancel context.CancelFunc) *wsConn {
	return &wsConn{w: w, ws: ws, cancel: cancel,
		send:       make(chan []byte, w.opts.SendQueue),
		quit:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		dedup:      newRecentIDs(w.opts.DedupSize), id: randomID()}
}

// run serves the connection until either side ends it.
func (c *wsConn) run(ctx context.Context) {
	go c.writeLoop()
	c.readLoop(ctx)
	close(c.readerDone)
	c.shutdown(websocket.CloseNormalClosure, "")
	<-c.writerDone
	_ = c.ws.Close()
}

// shutdown asks the writer to send a close frame with code and stop; the
// first call wins. It never blocks.
func (c *wsConn) shutdown(code int, reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason = code, reason
		close(c.quit)
		c.cancel()
	})
}

func (c *wsConn) readLoop(ctx context.Context) {
	pongWait := 2 * c.w.opts.PingInterval
	c.ws.SetReadLimit(c.w.opts.MaxMessageBytes)
	_ = c.ws.SetReadDeadline(time.Now().Add(pongWait))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(pongWait))
	})
	for {
		kind, data, err := c.ws.ReadMessage()
		if err != nil {
			if websocket.IsUnexpectedCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) {
				c.w.log.Debug("websocket read ended", "err", err)
			}
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(pongWait))
		if kind != websocket.TextMessage {
			c.sendError("", protocol.CodeBadFrame, "frames are JSON text")
			continue
		}
		c.handle(ctx, data)
	}
}

func (c *wsConn) writeLoop() {
	defer close(c.writerDone)
	// Real time, not the injected clock: the pings keep the reader's
	// socket deadline (2 × PingInterval) from expiring.
	ping := time.NewTicker(c.w.opts.PingInterval)
	defer ping.Stop()
	for {
		select {
		case b := <-c.send:
			if !c.write(websocket.TextMessage, b) {
				return
			}
			c.drained()
		case <-ping.C:
			deadline := time.Now().Add(c.w.opts.WriteWait)
			if err := c.ws.WriteControl(websocket.PingMessage, nil, deadline); err != nil {
				c.fail()
				return
			}
		case <-c.quit:
			c.closeHandshake()
			return
		}
	}
}

func (c *wsConn) write(kind int, b []byte) bool {
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.w.opts.WriteWait))
	if err := c.ws.WriteMessage(kind, b); err != nil {
		c.fail()
		return false
	}
	return true
}

// fail ends a connection whose writes fail: closing the socket wakes the
// reader.
func (c *wsConn) fail() {
	c.shutdown(websocket.CloseAbnormalClosure, "")
	_ = c.ws.Close()
}

// closeHandshake flushes what is queued (unless the client is the reason
// for closing), sends the close frame, and gives the reader a moment to
// see the client's answer before the socket is closed.
func (c *wsConn) closeHandshake() {
	if c.closeCode != websocket.ClosePolicyViolation && c.closeCode != websocket.CloseAbnormalClosure {
		for flushing := true; flushing; {
			select {
			case b := <-c.send:
				flushing = c.write(websocket.TextMessage, b)
			default:
				flushing = c.flushHeld()
			}
		}
	}
	if c.closeCode != websocket.CloseAbnormalClosure {
		msg := websocket.FormatCloseMessage(c.closeCode, c.closeReason)
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(c.w.opts.WriteWait))
	}
	t := time.NewTimer(c.w.opts.WriteWait)
	defer t.Stop()
	select {
	case <-c.readerDone:
	case <-t.C:
	}
	_ = c.ws.Close()
}

// recentIDs remembers the run ids of the last max client message ids
// (oldest forgotten first). The reader
// goroutine alone uses it.
type recentIDs struct {
	max   int
	runs  map[string]string
	order []string // ring of ids, oldest at head
	head  int
}

func newRecentIDs(n int) *recentIDs {
	return &recentIDs{max: n, runs: make(map[string]string, n), order: make([]string, 0, n)}
}

func (l *recentIDs) get(id string) (string, bool) {
	r, ok := l.runs[id]
	return r, ok
}

func (l *recentIDs) put(id, runID string) {
	if _, ok := l.runs[id]; ok {
		l.runs[id] = runID
		return
	}
	if len(l.order) < l.max {
		l.order = append(l.order, id)
	} else {
		delete(l.runs, l.order[l.head])
		l.order[l.head] = id
		l.head = (l.head + 1) % l.max
	}
	l.runs[id] = runID
}
