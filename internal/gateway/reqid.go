package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync/atomic"
)

// requestIDs numbers requests for their log lines: a random prefix per
// daemon (ids stay apart across restarts) and a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &requestIDs{prefix: hex.EncodeToString(b) + "-"}
}

type reqIDKey struct{}

// maxClientRequestID bounds an X-Request-Id taken from a client.
const maxClientRequestID = 64

// middleware gives each request its id — the client's X-Request-Id when it
// is a plain token (letters, digits, '.', '_', ':', '-'; at most 64),
// else the next of ours — in its context (reqID) and in the response's
// X-Request-Id, so a client can quote it against the daemon's logs.
func (ids *requestIDs) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !plainToken(id) {
			id = ids.prefix + strconv.FormatUint(ids.n.Add(1), 10)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reqIDKey{}, id)))
	})
}

// reqID is the id the request middleware gave ctx's request ("" outside).
func reqID(ctx context.Context) string {
	id, _ := ctx.Value(reqIDKey{}).(string)
	return id
}

func plainToken(s string) bool {
	if s == "" || len(s) > maxClientRequestID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
