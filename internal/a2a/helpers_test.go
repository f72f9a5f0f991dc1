package a2a

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/go-chi/chi/v5"

	"github.com/beamclaw/beamclaw-go/test/leak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }

var (
	gatewayToken = strings.Repeat("g", 40)
	peerToken    = strings.Repeat("p", 40)
	otherToken   = strings.Repeat("o", 40)
)

// rig is a Server on a real bbolt file behind a real HTTP server.
type rig struct {
	t    testing.TB
	s    *Server
	sess *fakeSessions
	url  string
	path string // the bbolt file
	db   *store.DB
	stop func()
	// events are the observability events the edge emitted.
	events chan beamclaw.Event
}

// events is an Emitter that keeps every event (dropping past its buffer).
type events struct{ ch chan beamclaw.Event }

func (e *events) Emit(_ context.Context, ev beamclaw.Event) {
	select {
	case e.ch <- ev:
	default:
	}
}

// waitEvent waits for an event named name whose attribute key is val.
func (rg *rig) waitEvent(name beamclaw.EventName, key, val string) beamclaw.Event {
	rg.t.Helper()
	for {
		ev := wait(rg.t, rg.events)
		if ev.Name != name {
			continue
		}
		for _, a := range ev.Attrs {
			if a.Key == key && a.Value.String() == val {
				return ev
			}
		}
	}
}

func newRig(t testing.TB, change func(*Options)) *rig {
	t.Helper()
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	return openRig(t, path, change)
}

func openRig(t testing.TB, path string, change func(*Options)) *rig {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess := newFakeSessions()
	events := &events{ch: make(chan beamclaw.Event, 256)}
	o := Options{Emitter: events, Sessions: sess, Agents: fakeAgents{"default", "coder"}, DB: db, GatewayToken: gatewayToken,
		Peers: []Peer{{Name: "peer1", Token: peerToken}, {Name: "peer2", Token: otherToken}}, Push: true, Version: "test"}
	if change != nil {
		change(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	for _, rt := range s.Routes() {
		if rt.Method == "" {
			r.Mount(rt.Pattern, rt.Handler)
		} else {
			r.Method(rt.Method, rt.Pattern, rt.Handler)
		}
	}
	srv := httptest.NewServer(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(ctx) }()
	rg := &rig{t: t, s: s, sess: sess, url: srv.URL, path: path, db: db, events: events.ch}
	var once sync.Once
	rg.stop = func() {
		once.Do(func() {
			cancel()
			<-done
			srv.Close()
			_ = db.Close()
		})
	}
	t.Cleanup(rg.stop)
	return rg
}

// do sends a request (with an Authorization header value when auth is set).
func (rg *rig) do(method, path, auth, body string) (*http.Response, []byte) {
	rg.t.Helper()
	req, err := http.NewRequest(method, rg.url+path, strings.NewReader(body))
	if err != nil {
		rg.t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		rg.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// client is an a2a-go client of the rig's default agent (or of the agent
// whose base URL is given), presenting token.
func (rg *rig) client(token string, base ...string) *a2aclient.Client {
	rg.t.Helper()
	tr := &http.Transport{}
	rg.t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: bearer{token: token, base: tr}, Timeout: 30 * time.Second}
	u := rg.url
	if len(base) > 0 {
		u = base[0]
	}
	card, err := agentcard.NewResolver(hc).Resolve(context.Background(), u)
	if err != nil {
		rg.t.Fatalf("resolve card: %v", err)
	}
	c, err := a2aclient.NewFromCard(context.Background(), card, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc))
	if err != nil {
		rg.t.Fatalf("client: %v", err)
	}
	rg.t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func userMsg(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// finish plays a run that streams text in chunks and answers it.
func finish(in beamclaw.Inbound, chunks ...string) {
	in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvState, Text: "streaming"})
	for _, c := range chunks {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: c})
	}
	in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: strings.Join(chunks, "")})
}

// answered sends req with c, has the session answer text and returns the
// finished task.
func (rg *rig) answered(t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest, text string) *a2a.Task {
	t.Helper()
	res := sendAsync(c, req)
	finish(rg.sess.next(t).in, text)
	return wait(t, res).task(t)
}

// sendAsync runs a blocking SendMessage in the background.
func sendAsync(c *a2aclient.Client, req *a2a.SendMessageRequest) <-chan sendResult {
	out := make(chan sendResult, 1)
	go func() {
		res, err := c.SendMessage(context.Background(), req)
		out <- sendResult{res, err}
	}()
	return out
}

type sendResult struct {
	res a2a.SendMessageResult
	err error
}

func (r sendResult) task(t *testing.T) *a2a.Task {
	t.Helper()
	if r.err != nil {
		t.Fatalf("SendMessage: %v", r.err)
	}
	task, ok := r.res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage returned %T, want a task", r.res)
	}
	return task
}

func wait[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(15 * time.Second):
		t.Fatal("timed out")
		var zero T
		return zero
	}
}

func artifactText(t *a2a.Task) string {
	var b strings.Builder
	for _, a := range t.Artifacts {
		b.WriteString(textOfParts(a.Parts))
	}
	return b.String()
}
