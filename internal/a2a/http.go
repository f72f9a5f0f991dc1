package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	a2alog "github.com/a2aproject/a2a-go/v2/log"
	"github.com/go-chi/chi/v5"
)

// Stream timing: an idle SSE stream gets a keep-alive comment this often,
// and every write must finish within writeTimeout (the gateway's server
// has no WriteTimeout; streams set their own).
const (
	keepAlive    = 15 * time.Second
	writeTimeout = 30 * time.Second
)

// Route is an HTTP route of the edge. The daemon mounts each on the
// gateway as one that authenticates itself (the cards are public, the
// calls accept peer tokens), behind the gateway's rate limit.
type Route struct {
	Method  string // "" mounts a subtree at Pattern
	Pattern string
	Handler http.Handler
}

// Routes are the edge's routes: /a2a (JSON-RPC v1.0 and v0.3, /a2a/rest
// HTTP+JSON, /a2a/agents/NAME for each exposed agent), and the default
// agent's cards at the well-known paths.
func (s *Server) Routes() []Route {
	return []Route{
		{Pattern: "/a2a", Handler: s.tree()},
		{Method: http.MethodGet, Pattern: a2asrv.WellKnownAgentCardPath, Handler: s.cardHandler(false)},
		{Method: http.MethodGet, Pattern: "/.well-known/agent.json", Handler: s.cardHandler(true)},
	}
}

func (s *Server) tree() http.Handler {
	v1 := a2asrv.NewJSONRPCHandler(s.handler, a2asrv.WithTransportKeepAlive(keepAlive), a2asrv.WithTransportPanicHandler(s.panicked))
	v0 := a2av0.NewJSONRPCHandler(s.handler, a2asrv.WithTransportKeepAlive(keepAlive), a2asrv.WithTransportPanicHandler(s.panicked))
	rest := a2asrv.NewRESTHandler(s.handler, a2asrv.WithTransportKeepAlive(keepAlive), a2asrv.WithTransportPanicHandler(s.panicked))
	agentRoutes := func(r chi.Router) {
		r.Method(http.MethodPost, "/", s.call(func(w http.ResponseWriter, r *http.Request) { s.rpc(w, r, v1, v0) }))
		r.Handle("/rest/*", s.call(func(w http.ResponseWriter, r *http.Request) {
			prefix := "/a2a/rest"
			if a := chi.URLParam(r, "agent"); a != "" {
				prefix = "/a2a/agents/" + a + "/rest"
			}
			http.StripPrefix(prefix, rest).ServeHTTP(w, r)
		}))
		r.Get(a2asrv.WellKnownAgentCardPath, s.cardHandler(false).ServeHTTP)
		r.Get("/.well-known/agent.json", s.cardHandler(true).ServeHTTP)
	}
	r := chi.NewRouter()
	agentRoutes(r)
	r.Route("/agents/{agent}", agentRoutes)
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { httpError(w, http.StatusNotFound, "no such A2A route") })
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
	})
	return r
}

// call authenticates an A2A call and scopes it to its caller and agent.
func (s *Server) call(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, ok := s.tokens.caller(r)
		if !ok {
			unauthorized(w)
			return
		}
		agent, err := s.agentFor(chi.URLParam(r, "agent"))
		if err != nil {
			httpError(w, http.StatusNotFound, err.Error())
			return
		}
		ctx := withScope(r.Context(), scope{caller: caller, agent: agent, method: r.Method, path: routeOf(r)})
		ctx = context.WithValue(ctx, cardKey{}, cardRequest{base: s.baseURL(r), agent: agent})
		ctx = a2alog.AttachLogger(ctx, s.log)
		next(&streamWriter{ResponseWriter: w, rc: http.NewResponseController(w)}, r.WithContext(ctx))
	})
}

// rpc serves JSON-RPC: v0.3 method names ("message/send") go to the SDK's
// compatibility handler, v1.0 ones ("SendMessage") to its v1.0 handler.
func (s *Server) rpc(w http.ResponseWriter, r *http.Request, v1, v0 http.Handler) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", mbe.Limit))
			return
		}
		httpError(w, http.StatusBadRequest, "could not read the request body")
		return
	}
	var head struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &head) // a malformed body is the SDK's to report
	r.Body = io.NopCloser(bytes.NewReader(body))
	if strings.Contains(head.Method, "/") {
		v0.ServeHTTP(w, r)
		return
	}
	v1.ServeHTTP(w, r)
}

// cardHandler serves an agent's public card (legacy: in the v0.3 and v1.0
// union format of /.well-known/agent.json). Cards need no token: they are
// how a peer learns that it needs one.
func (s *Server) cardHandler(legacy bool) http.Handler {
	var producer a2asrv.AgentCardProducer = a2asrv.AgentCardProducerFn(s.card)
	if legacy {
		producer = a2av0.NewAgentCardProducer(producer)
	}
	h := a2asrv.NewAgentCardHandler(producer)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent, err := s.agentFor(chi.URLParam(r, "agent"))
		if err != nil {
			httpError(w, http.StatusNotFound, err.Error())
			return
		}
		ctx := context.WithValue(r.Context(), cardKey{}, cardRequest{base: s.baseURL(r), agent: agent})
		h.ServeHTTP(w, r.WithContext(a2alog.AttachLogger(ctx, s.log)))
	})
}

// routeOf is the route pattern of r, never its raw path (bounded values
// in events).
func routeOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return strings.TrimSuffix(rc.RoutePattern(), "/")
	}
	return "/a2a"
}

// panicked turns a panic in the SDK's handlers into an internal error for
// the peer and a log line with the value for us.
func (s *Server) panicked(v any) error {
	s.log.LogAttrs(context.Background(), slog.LevelError, "a2a handler panicked", slog.String("panic", fmt.Sprint(v)))
	return a2a.ErrInternalError
}

// httpError answers a route-level error in JSON.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg}})
}

// streamWriter gives the SDK's SSE writer what the gateway's response
// writer only offers through http.ResponseController: Flush, and a write
// deadline per write so a stalled peer cannot hold a stream forever.
type streamWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w *streamWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *streamWriter) Flush() { _ = w.rc.Flush() }

// Unwrap lets http.ResponseController reach the writers below.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
