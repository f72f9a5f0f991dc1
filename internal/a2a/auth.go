package a2a

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
)

// scope is who is calling which agent, set on the request context once the
// bearer token checked out. The handler, the executor and the task store
// read it: tasks belong to their caller and agent.
type scope struct {
	caller string // a peer name, or GatewayCaller
	agent  string
	method string // HTTP method and path, for the a2a_request event
	path   string
	early  bool // the response acknowledges the task before it ends (streaming, return-immediately, push)
}

type scopeKey struct{}

func withScope(ctx context.Context, s scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

func scopeFrom(ctx context.Context) (scope, bool) {
	s, ok := ctx.Value(scopeKey{}).(scope)
	return s, ok
}

// withEarly marks the call as one that acknowledges its task at once.
func withEarly(ctx context.Context) context.Context {
	s, ok := scopeFrom(ctx)
	if !ok {
		return ctx
	}
	s.early = true
	return withScope(ctx, s)
}

// tokens checks bearer tokens against the gateway token and every peer's,
// in constant time, and says which caller presented it.
type tokens struct {
	callers []string
	secrets [][]byte
}

func newTokens(gateway string, peers []Peer) *tokens {
	t := &tokens{}
	if gateway != "" {
		t.callers, t.secrets = append(t.callers, GatewayCaller), append(t.secrets, []byte(gateway))
	}
	for _, p := range peers {
		if p.Token != "" {
			t.callers, t.secrets = append(t.callers, p.Name), append(t.secrets, []byte(p.Token))
		}
	}
	return t
}

// caller returns the caller whose token r bears. Every token is compared,
// so the time taken does not say which one matched, or how far.
func (t *tokens) caller(r *http.Request) (string, bool) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || got == "" {
		return "", false
	}
	found := -1
	for i, want := range t.secrets {
		if subtle.ConstantTimeCompare([]byte(got), want) == 1 && found < 0 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return t.callers[found], true
}

// unauthorized answers 401 with a JSON-RPC error body, which A2A clients of
// every binding report as an authentication failure.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="beamclaw-a2a"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,` +
		`"message":"authentication required: send Authorization: Bearer <gateway or peer token>"}}` + "\n"))
}
