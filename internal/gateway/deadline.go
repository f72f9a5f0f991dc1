package gateway

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// bodyDeadline bounds the time a client may take to send its request body
// (gateway.http.read_timeout_seconds). The deadline is set on the
// connection when the handler starts and cleared once the body has been
// read, so a long answer (SSE, a slow model) is never cut by it; a client
// that trickles its body is cut off and logged.
func (s *Server) bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.ReadTimeout <= 0 || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		// A socket deadline is the network's real time, never the injected clock.
		if err := rc.SetReadDeadline(time.Now().Add(s.opts.ReadTimeout)); err != nil {
			next.ServeHTTP(w, r) // not a connection that takes deadlines (a test recorder)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) },
			timedOut: func() {
				s.log.LogAttrs(r.Context(), slog.LevelWarn, "request body not received in time; connection closed",
					slog.String("client", clientIP(r, s.opts.TrustedProxies)), slog.Duration("read_timeout", s.opts.ReadTimeout),
					slog.String("req_id", reqID(r.Context())))
			}}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the read deadline when the body has been read to
// its end, and reports a read that hit the deadline.
type deadlineBody struct {
	io.ReadCloser
	once, timeout sync.Once
	clear         func()
	timedOut      func()
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		b.once.Do(b.clear)
	case errors.As(err, &ne) && ne.Timeout():
		b.timeout.Do(b.timedOut)
	}
	return n, err
}

// clientConns caps the connections one client address may hold open at
// once (gateway.http.max_conns_per_client): past it, a new connection is
// closed on accept, and the first refusal per address and minute is
// logged. Trusted proxies are exempt, since they carry many clients.
type clientConns struct {
	max     int
	exempt  func(netip.Addr) bool
	log     *slog.Logger
	mu      sync.Mutex
	open    map[netip.Addr]int
	warned  map[netip.Addr]time.Time
	nowFunc func() time.Time
}

// admit counts c against its address, or refuses it.
func (cc *clientConns) admit(c net.Conn) (net.Conn, bool) {
	a := peerAddr(c.RemoteAddr().String())
	if !a.IsValid() || cc.exempt(a) {
		return c, true
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.open[a] >= cc.max {
		now := cc.nowFunc()
		if last, ok := cc.warned[a]; !ok || now.Sub(last) > time.Minute {
			cc.warned[a] = now
			cc.log.Warn("connection refused: too many open connections from one address",
				"client", a.String(), "max_conns_per_client", cc.max)
		}
		return nil, false
	}
	cc.open[a]++
	return &countedConn{Conn: c, release: func() { cc.release(a) }}, true
}

func (cc *clientConns) release(a netip.Addr) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.open[a]--; cc.open[a] <= 0 {
		delete(cc.open, a)
	}
	if len(cc.warned) > 10000 {
		clear(cc.warned)
	}
}

type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
