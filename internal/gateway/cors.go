package gateway

import (
	"net/http"
	"slices"
	"strings"
)

// corsMaxAge is how long a browser may cache a preflight answer (seconds).
const corsMaxAge = "600"

// cors lets the configured browser origins call the API: their preflight
// (OPTIONS with Access-Control-Request-Method) is answered before the
// token check, since browsers send no credentials on it, and their other
// responses carry Access-Control-Allow-Origin. Another origin's preflight
// is refused; with no origins configured nothing changes.
func (s *Server) cors(next http.Handler) http.Handler {
	if len(s.opts.CORSOrigins) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		allowed := slices.Contains(s.opts.CORSOrigins, origin)
		h := w.Header()
		h.Add("Vary", "Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		switch {
		case preflight && !allowed:
			writeErrorStatus(w, http.StatusForbidden, "origin "+origin+" is not in gateway.http.cors_origins", "cors_origin")
			return
		case preflight:
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS") // DELETE: /v1/responses/{id}
			if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
				h.Set("Access-Control-Allow-Headers", req)
			}
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		case allowed:
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", strings.Join([]string{"Retry-After", "X-Request-Id"}, ", "))
		}
		next.ServeHTTP(w, r)
	})
}
