package control

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/gateway"
)

// APIPrefix is the public door of the control API: the same handlers as
// the control socket's /control routes, on the TCP gateway under the
// gateway's bearer token and rate limit.
const APIPrefix = "/api/v1"

// socketOnly are the control routes the public door leaves out: a
// database backup carries every sealed credential and pairing, and stays
// a thing of the machine's own shell.
var socketOnly = []string{"/control/db/backup"}

// APIRoutes returns the control routes of d as /api/v1 routes (each
// /control/X as /api/v1/X, its handler seeing the /control path it
// knows) and GET /api/v1/openapi.json describing exactly them.
func APIRoutes(d Deps) []gateway.Mount {
	var out []gateway.Mount
	for _, m := range Routes(d) {
		if !strings.HasPrefix(m.Pattern, "/control/") || slices.Contains(socketOnly, m.Pattern) {
			continue
		}
		out = append(out, gateway.Mount{Method: m.Method, Pattern: APIPrefix + strings.TrimPrefix(m.Pattern, "/control"),
			Handler: asControl(m.Handler), PublicOnly: true})
	}
	doc := OpenAPI(out)
	out = append(out, gateway.Mount{Method: http.MethodGet, Pattern: APIPrefix + "/openapi.json", PublicOnly: true,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(doc)
		})})
	return out
}

// asControl serves an /api/v1 request with a handler of the control
// socket, which reads its ids from the /control path.
func asControl(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/control" + strings.TrimPrefix(r.URL.Path, APIPrefix)
		r2.URL.RawPath = ""
		h.ServeHTTP(w, r2)
	})
}

// Handler serves routes (Routes' control routes) at their /control
// paths: the web console's in-process door to the same handlers.
func Handler(routes []gateway.Mount) http.Handler {
	mux := http.NewServeMux()
	for _, m := range routes {
		mux.Handle(m.Method+" "+m.Pattern, m.Handler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			writeError(w, http.StatusNotFound, "no such route")
			return
		}
		mux.ServeHTTP(w, r)
	})
}
