package gateway

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// statusRecorder remembers the status written, for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush, Hijack and deadlines.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// observe logs each request and records its metrics under the chi route
// pattern (never the raw path: bounded label values).
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		d := time.Since(start)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		if s.opts.Metrics != nil {
			s.opts.Metrics.ObserveHTTP(route, r.Method, rec.status, d)
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "http",
			slog.String("req_id", reqID(r.Context())),
			slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", rec.status), slog.Duration("duration", d))
	})
}

// recoverer turns a handler panic into a 500 and a log line.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panicked", "panic", fmt.Sprint(v),
					"req_id", reqID(r.Context()))
				writeErrorStatus(w, http.StatusInternalServerError, "internal error", "")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies; handlers see *http.MaxBytesError.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.opts.MaxBodyBytes {
			writeErrorStatus(w, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("request body over %d bytes", s.opts.MaxBodyBytes), "body_too_large")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// rateLimit applies the per-client sliding window to every route but
// /health and /ready: a probe from a busy address must never be throttled.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limiter == nil || probe(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		ok, retry := s.limiter.Allow(rateKey(clientIP(r, s.opts.TrustedProxies)))
		if !ok {
			secs := int(math.Ceil(retry.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
			writeErrorStatus(w, http.StatusTooManyRequests, "rate limit exceeded, retry later", "rate_limited")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownsAuth reports whether a public route authenticates path itself.
func (s *Server) ownsAuth(path string) bool {
	for _, m := range s.opts.Routes {
		if m.ownsAuth(path) {
			return true
		}
	}
	return false
}

// requireToken checks Authorization: Bearer in constant time on every
// route but /health, /ready and the routes that authenticate themselves.
func (s *Server) requireToken(next http.Handler) http.Handler {
	want := []byte(s.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(want) == 0 || probe(r.URL.Path) || s.ownsAuth(r.URL.Path) || (s.opts.Admit != nil && s.opts.Admit(r)) {
			next.ServeHTTP(w, r)
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="beamclaw"`)
			writeErrorStatus(w, http.StatusUnauthorized, "missing or invalid bearer token", "invalid_api_key")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowHost refuses a request whose Host is not an allowed name
// (Options.AllowedHosts): a page of another site whose name was made to
// resolve to this listener (DNS rebinding) reaches nothing.
func (s *Server) allowHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(s.opts.AllowedHosts) == 0 || probe(r.URL.Path) || hostAllowed(r.Host, s.opts.AllowedHosts) {
			next.ServeHTTP(w, r)
			return
		}
		writeErrorStatus(w, http.StatusMisdirectedRequest,
			"host "+strconv.Quote(r.Host)+" is not served here (add it to gateway.http.allowed_hosts)", "host_not_allowed")
	})
}

// hostAllowed reports whether the name of host (a Host header, with or
// without its port) is one of names, case-insensitively.
func hostAllowed(host string, names []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	for _, n := range names {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}
