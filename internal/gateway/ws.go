package gateway

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// WSSessions is what the WebSocket API needs from the session registry
// (*session.Manager provides all but Context, which the daemon adds from
// Manager.Info). Send returns once the message is durable; the run's
// events arrive later on Inbound.Route and end with exactly one EvFinal or
// EvError. Send reports a message id the session already saw as a
// KindConflict error together with the earlier run id. History and
// Context may answer KindNotFound for a session with no stored turn yet.
type WSSessions interface {
	SessionID(in beamclaw.Inbound) string
	Send(ctx context.Context, in beamclaw.Inbound) (runID string, err error)
	Decide(ctx context.Context, sessionID, approvalID, origin string, d beamclaw.Decision) error
	// Answer answers a question a tool put to userID (an elicitation).
	Answer(ctx context.Context, userID, id string, a beamclaw.ElicitAnswer) error
	Reset(ctx context.Context, sessionID string) error
	// UserSessions lists userID's sessions with agentID, archived too,
	// most recently active first.
	UserSessions(userID, agentID string) ([]beamclaw.SessionSummary, error)
	History(sessionID string) ([]beamclaw.Message, error)
	Context(ctx context.Context, sessionID string) (used, window, messages int, err error)
	// Rejoin gives a person's new connection what waits for it: the
	// approvals asked on its origin and the run in flight's events.
	Rejoin(sessionID, origin string, route beamclaw.Route) []beamclaw.RunEvent
}

// Defaults of WSOptions.
const (
	DefaultWSSendQueue    = 64
	DefaultWSPingInterval = 30 * time.Second
	DefaultWSWriteWait    = 10 * time.Second
	DefaultWSMaxMessage   = 1 << 20
	DefaultWSDedup        = 256
	DefaultWSOpTimeout    = 30 * time.Second
)

// WSOptions configure the WebSocket API.
type WSOptions struct {
	Sessions WSSessions // required
	Logger   *slog.Logger
	// AllowedOrigins are the browser origins admitted (exact
	// scheme://host[:port] strings). A request without Origin (a non-browser
	// client) is admitted; any other Origin is refused with 403.
	AllowedOrigins []string
	// Local marks the instance served on the control socket: there a hello
	// with channel "tui" talks as channel "tui" with user prefix "local".
	Local bool
	// TUIDisabled refuses the "tui" hellos of Local
	// (gateway.channels.tui.enabled: false).
	TUIDisabled bool
	// UserID builds a user id from a channel prefix ("ws", "local") and the
	// hello's user; the daemon applies BEAMCLAW_USER here. Default
	// prefix + ":" + id.
	UserID func(prefix, id string) string
	// Autonomy is the channel's ceiling passed on every Inbound ("" = the
	// agent's own level).
	Autonomy beamclaw.Autonomy
	// Links, when set, serves link frames and tells linked accounts apart
	// (people.Links).
	Links WSLinks
	// KnownAgent, when set, refuses a hello naming another agent.
	KnownAgent func(name string) bool
	// Missed, when set, hands over the notices kept for a user while none
	// of its connections was open (scheduled answers nobody was there
	// for); they follow the ready frame of its next hello, once.
	Missed       func(userID string) []protocol.ServerFrame
	DefaultAgent string // when hello names none; default "default"
	DefaultUser  string // when hello names none; default "anonymous"

	SendQueue       int           // frames queued per connection before it is closed as a slow consumer
	PingInterval    time.Duration // server pings; a pong must come within 2×
	WriteWait       time.Duration // deadline of one frame write
	MaxMessageBytes int64         // largest client frame
	DedupSize       int           // client message ids remembered per connection
	OpTimeout       time.Duration // bound of one session call
}

// WS serves GET /ws. Add it to the supervision tree (Serve) so that
// shutdown closes live connections, which http.Server.Shutdown does not
// reach once they are upgraded.
type WS struct {
	opts     WSOptions
	log      *slog.Logger
	origins  map[string]bool
	upgrader websocket.Upgrader

	mu      sync.Mutex
	conns   map[*wsConn]struct{}
	closing bool
	wg      sync.WaitGroup
}

// NewWS returns the WebSocket API; it serves nothing until mounted.
func NewWS(opts WSOptions) *WS {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.UserID == nil {
		opts.UserID = func(prefix, id string) string { return prefix + ":" + id }
	}
	wsDefault(&opts.SendQueue, DefaultWSSendQueue)
	wsDefault(&opts.PingInterval, DefaultWSPingInterval)
	wsDefault(&opts.WriteWait, DefaultWSWriteWait)
	wsDefault(&opts.MaxMessageBytes, DefaultWSMaxMessage)
	wsDefault(&opts.DedupSize, DefaultWSDedup)
	wsDefault(&opts.OpTimeout, DefaultWSOpTimeout)
	if opts.DefaultAgent == "" {
		opts.DefaultAgent = "default"
	}
	if opts.DefaultUser == "" {
		opts.DefaultUser = "anonymous"
	}
	w := &WS{opts: opts, log: opts.Logger.With("component", "ws"),
		origins: make(map[string]bool, len(opts.AllowedOrigins)),
		conns:   make(map[*wsConn]struct{})}
	for _, o := range opts.AllowedOrigins {
		w.origins[o] = true
	}
	w.upgrader = websocket.Upgrader{
		HandshakeTimeout: opts.WriteWait,
		ReadBufferSize:   4096,
		WriteBufferSize:  4096,
		// The Origin was checked exactly before upgrading (originAllowed).
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return w
}

func wsDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Routes mounts GET /ws. The public instance's route is PublicOnly: the
// control socket serves the Local instance's (mount it in Options.Control).
func (w *WS) Routes() []Mount {
	return []Mount{{Method: http.MethodGet, Pattern: protocol.WSPath, Handler: http.HandlerFunc(w.serveHTTP),
		PublicOnly: !w.opts.Local}}
}

func (w *WS) String() string {
	if w.opts.Local {
		return "ws_local"
	}
	return "ws"
}

// Serve returns when ctx ends, after closing every live connection
// (close code 1001) and waiting for their goroutines.
func (w *WS) Serve(ctx context.Context) error {
	w.mu.Lock()
	w.closing = false
	w.mu.Unlock()
	<-ctx.Done()
	w.mu.Lock()
	w.closing = true
	for c := range w.conns {
		c.shutdown(websocket.CloseGoingAway, "server shutting down")
	}
	w.mu.Unlock()
	w.wg.Wait()
	return ctx.Err()
}

// Notify sends text as a notice frame (from agent's job jobID) to every
// connection of userID, whatever agent it talks to, and reports how many
// it reached: a scheduled job's answer going to the user's open clients.
func (w *WS) Notify(userID, agent, jobID, text string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for c := range w.conns {
		if s := c.who.Load(); s == nil || s.user != userID {
			continue
		}
		c.enqueue(protocol.ServerFrame{Type: protocol.FrameNotice, Agent: agent, JobID: jobID, Text: text})
		n++
	}
	return n
}

// Len is the number of live connections.
func (w *WS) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.conns)
}

// originAllowed is an exact match: no prefix, suffix or case folding.
// A page served by this listener itself (the console: Origin is the
// request's own scheme and Host, which the Host allowlist and the token
// guard) is admitted too.
func (w *WS) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	return origin == "" || w.origins[origin] || origin == OwnOrigin(r)
}

// OwnOrigin is the origin of a page served by the listener r came in on:
// its scheme (https behind a trusted TLS proxy too) and Host.
func OwnOrigin(r *http.Request) string {
	if IsHTTPS(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

func (w *WS) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	if !w.originAllowed(r) {
		w.log.Warn("websocket origin refused", "origin", r.Header.Get("Origin"))
		writeErrorStatus(rw, http.StatusForbidden, "origin not allowed", "origin_not_allowed")
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		writeErrorStatus(rw, http.StatusBadRequest, "a WebSocket upgrade is required", "upgrade_required")
		return
	}
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		writeErrorStatus(rw, http.StatusServiceUnavailable, "shutting down", "unavailable")
		return
	}
	w.wg.Add(1)
	w.mu.Unlock()
	defer w.wg.Done()

	ws, err := w.upgrader.Upgrade(wsHijacker{rw}, r, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	c := newWSConn(w, ws, cancel)
	if !w.track(c) {
		c.shutdown(websocket.CloseGoingAway, "server shutting down")
	}
	defer w.untrack(c)
	c.run(ctx)
}

func (w *WS) track(c *wsConn) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conns[c] = struct{}{}
	return !w.closing
}

func (w *WS) untrack(c *wsConn) {
	w.mu.Lock()
	delete(w.conns, c)
	w.mu.Unlock()
}

// wsHijacker reaches the connection through middleware wrappers that only
// offer Unwrap (http.ResponseController), which gorilla's upgrader does
// not use.
type wsHijacker struct{ http.ResponseWriter }

func (h wsHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}
