package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Metrics is what the gateway reports per request.
type Metrics interface {
	ObserveHTTP(route, method string, code int, d time.Duration)
}

// Mount is a route another part of the daemon serves through the gateway.
type Mount struct {
	Method  string // "" mounts a whole subtree at Pattern
	Pattern string
	Handler http.Handler
	// PublicOnly keeps the route off the control socket, which serves its
	// own variant (the local WebSocket of the terminal UI, say).
	PublicOnly bool
	// OwnAuth: the handler authenticates requests itself (the A2A routes
	// accept per-peer tokens as well as the gateway token, and serve their
	// agent cards to anyone), so the gateway's bearer check skips its
	// path. The rate limit and the body limit still apply.
	OwnAuth bool
}

// ownsAuth reports whether m authenticates path itself.
func (m Mount) ownsAuth(path string) bool {
	if !m.OwnAuth {
		return false
	}
	if m.Method == "" {
		return path == m.Pattern || strings.HasPrefix(path, strings.TrimSuffix(m.Pattern, "/")+"/")
	}
	return path == m.Pattern
}

// RateLimit configures the limiter; Requests <= 0 disables it.
type RateLimit struct {
	Requests   int
	Window     time.Duration
	MaxClients int
}

// Options configures a Server.
type Options struct {
	Logger            *slog.Logger
	Token             string // resolved gateway.auth.token; "" = no auth
	TrustedProxies    []netip.Prefix
	RateLimit         RateLimit
	MaxBodyBytes      int64
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the sending of a request body on the public
	// listener (gateway.http.read_timeout_seconds); answers are not cut.
	ReadTimeout time.Duration
	// MaxConnsPerClient caps the open connections of one client address
	// on the public listener (gateway.http.max_conns_per_client); 0 = no cap.
	MaxConnsPerClient int
	// CORSOrigins are the browser origins allowed on the public listener
	// (gateway.http.cors_origins); empty = no CORS headers at all.
	CORSOrigins []string
	// AllowedHosts, when set, are the only host names (no port) the Host
	// header may carry on the public listener (DNS rebinding); probes
	// pass regardless.
	AllowedHosts []string
	// Admit, when set, lets a request without the bearer token through
	// when it answers true: the console's signed-in browser on the routes
	// it may use (its cookie, with the checks of its kind of request).
	Admit          func(r *http.Request) bool
	Metrics        Metrics
	MetricsHandler http.Handler
	Health         func(ctx context.Context) protocol.Health
	// Routes are served on both the public listener and the control socket.
	Routes []Mount
	// Control routes are served only on the control socket, next to
	// GET /control/status (Status) and POST /control/stop (Stop).
	Control []Mount
	Status  func(ctx context.Context) protocol.Status
	Stop    func()
	// Clock drives the rate limiter and its pruning and the throttle of
	// refused-connection warnings (socket deadlines stay on real time);
	// defaults to clock.System.
	Clock clock.Clock
}

// Server builds the handlers and serves listeners.
type Server struct {
	opts    Options
	log     *slog.Logger
	limiter *Limiter
	ids     *requestIDs
}

// New returns a Server; it opens nothing.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.ReadHeaderTimeout <= 0 {
		opts.ReadHeaderTimeout = 5 * time.Second
	}
	opts.Clock = clock.Or(opts.Clock)
	s := &Server{opts: opts, log: opts.Logger.With("component", "gateway"), ids: newRequestIDs()}
	if opts.RateLimit.Requests > 0 {
		s.limiter = NewLimiter(opts.RateLimit.Requests, opts.RateLimit.Window,
			opts.RateLimit.MaxClients, opts.Clock)
	}
	return s
}

// PublicHandler is what the TCP listener serves: every middleware,
// including the rate limit and the bearer token.
func (s *Server) PublicHandler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.ids.middleware, s.bodyDeadline, s.observe, s.recoverer, s.allowHost, s.forwardedProto, s.cors, s.rateLimit, s.requireToken, s.limitBody)
	s.routes(r, s.opts.Routes)
	return r
}

// ControlHandler is what the control socket serves: the same routes plus
// the control routes, with no token (the socket is mode 0600) and no rate
// limit.
func (s *Server) ControlHandler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.ids.middleware, s.observe, s.recoverer, s.limitBody)
	r.Get("/control/status", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Status == nil {
			writeErrorStatus(w, http.StatusNotFound, "no status", "not_found")
			return
		}
		writeJSON(w, http.StatusOK, s.opts.Status(r.Context()))
	})
	r.Post("/control/stop", func(w http.ResponseWriter, _ *http.Request) {
		if s.opts.Stop == nil {
			writeErrorStatus(w, http.StatusNotFound, "no stop", "not_found")
			return
		}
		s.log.Info("stop requested over the control socket")
		w.WriteHeader(http.StatusAccepted)
		s.opts.Stop()
	})
	mounts := make([]Mount, 0, len(s.opts.Routes)+len(s.opts.Control))
	for _, m := range s.opts.Routes {
		if !m.PublicOnly {
			mounts = append(mounts, m)
		}
	}
	s.routes(r, append(mounts, s.opts.Control...))
	return r
}

func (s *Server) routes(r chi.Router, mounts []Mount) {
	r.Get("/health", s.health)
	r.Get("/ready", s.ready)
	if s.opts.MetricsHandler != nil {
		r.Method(http.MethodGet, "/metrics", s.opts.MetricsHandler)
	}
	for _, m := range mounts {
		if m.Method == "" {
			r.Mount(m.Pattern, m.Handler)
			continue
		}
		r.Method(m.Method, m.Pattern, m.Handler)
	}
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		writeErrorStatus(w, http.StatusNotFound, "no such route", "not_found")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		writeErrorStatus(w, http.StatusMethodNotAllowed, "method not allowed", "method_not_allowed")
	})
}

// health is the liveness probe: 200 while the daemon answers, with its
// readiness in the body.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.healthOf(r))
}

// ready is the readiness probe of load balancers and orchestrators: the
// same body as /health, 503 while a subsystem is not ready.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	h := s.healthOf(r)
	status := http.StatusOK
	if !h.Ready {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
}

func (s *Server) healthOf(r *http.Request) protocol.Health {
	if s.opts.Health != nil {
		return s.opts.Health(r.Context())
	}
	return protocol.Health{Status: "ok", Ready: true}
}

// probe reports whether path is a health probe: never rate-limited and
// open without the token.
func probe(path string) bool { return path == "/health" || path == "/ready" }

// PublicService serves PublicHandler on ln, with the per-client
// connection cap.
func (s *Server) PublicService(name string, ln *Listener) *HTTPService {
	if s.opts.MaxConnsPerClient > 0 {
		ln.conns = &clientConns{max: s.opts.MaxConnsPerClient, log: s.log, open: map[netip.Addr]int{},
			warned: map[netip.Addr]time.Time{}, nowFunc: s.opts.Clock.Now,
			exempt: func(a netip.Addr) bool { return isTrusted(a, s.opts.TrustedProxies) }}
	}
	return s.Service(name, ln, s.PublicHandler())
}

// Service serves handler on ln under a supervisor. The listener survives
// restarts of the service; Close it after the tree has stopped.
func (s *Server) Service(name string, ln *Listener, handler http.Handler) *HTTPService {
	return &HTTPService{name: name, ln: ln, newServer: func() *http.Server {
		return &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
			IdleTimeout:       120 * time.Second,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		}
	}}
}

// PruneService prunes the limiter every minute.
func (s *Server) PruneService() func(ctx context.Context) error {
	return func(ctx context.Context) error {
		return clock.Every(ctx, s.opts.Clock, time.Minute, func(context.Context) error {
			if s.limiter != nil {
				s.limiter.Prune()
			}
			return nil
		})
	}
}

// HTTPService is a suture Service serving HTTP on a Listener.
type HTTPService struct {
	name      string
	ln        *Listener
	newServer func() *http.Server // an http.Server cannot serve again after Shutdown
}

func (h *HTTPService) String() string { return h.name }

// Serve serves until ctx is done, then shuts down gracefully: in-flight
// requests get 5 s to finish.
func (h *HTTPService) Serve(ctx context.Context) error {
	h.ln.reopen()
	srv := h.newServer()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(h.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("%s: %w", h.name, err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		<-errc
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("%s shutdown: %w", h.name, err)
		}
		return ctx.Err()
	}
}

// Listener wraps a net.Listener so that http.Server's Close does not
// close the socket: it only wakes a blocked Accept (a deadline in the
// past), and a restarted HTTPService serves the same socket again. Close
// it for real with Release.
type Listener struct {
	net.Listener
	once  sync.Once
	conns *clientConns // nil: no per-client cap
}

// Accept returns the next connection its client may open.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || l.conns == nil {
			return c, err
		}
		if admitted, ok := l.conns.admit(c); ok {
			return admitted, nil
		}
		_ = c.Close()
	}
}

type deadliner interface{ SetDeadline(time.Time) error }

// NewListener wraps ln (a *net.TCPListener or *net.UnixListener).
func NewListener(ln net.Listener) *Listener { return &Listener{Listener: ln} }

// Close makes a pending and every later Accept fail until reopen.
func (l *Listener) Close() error {
	if d, ok := l.Listener.(deadliner); ok {
		return d.SetDeadline(time.Unix(1, 0))
	}
	return nil
}

func (l *Listener) reopen() {
	if d, ok := l.Listener.(deadliner); ok {
		_ = d.SetDeadline(time.Time{})
	}
}

// Release closes the underlying listener.
func (l *Listener) Release() error {
	var err error
	l.once.Do(func() { err = l.Listener.Close() })
	return err
}
