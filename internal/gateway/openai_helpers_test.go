package gateway

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// oaiAgents knows a fixed list of agents.
type oaiAgents []string

func (a oaiAgents) Exists(name string) bool { return slices.Contains(a, name) }
func (a oaiAgents) List() []string          { return a }

// oaiSessions plays scripted run events to the request's route: Send
// from its own goroutine (as the session lanes do), RunDetached in the
// caller's. A non-nil hold delays the terminal event until it is closed
// (or the run's context ends, for ephemeral runs).
type oaiSessions struct {
	events  []beamclaw.RunEvent
	hold    chan struct{}
	sendErr error
	ephErr  error

	mu        sync.Mutex
	inbound   []beamclaw.Inbound
	histories [][]beamclaw.Message
	samplings []*beamclaw.Sampling
	marks     []string
	agents    []string
	functions [][]beamclaw.ToolDef
	wg        sync.WaitGroup
}

func (f *oaiSessions) Send(_ context.Context, in beamclaw.Inbound) (string, error) {
	f.mu.Lock()
	f.inbound = append(f.inbound, in)
	f.mu.Unlock()
	if f.sendErr != nil {
		return "", f.sendErr
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.play(context.Background(), in.Route)
	}()
	return "run-1", nil
}

func (f *oaiSessions) RunDetached(ctx context.Context, d session.Detached, route beamclaw.Route) (string, error) {
	f.mu.Lock()
	f.functions = append(f.functions, d.Functions)
	f.histories = append(f.histories, d.History)
	f.samplings = append(f.samplings, d.Sampling)
	f.agents = append(f.agents, d.Agent)
	f.mu.Unlock()
	if f.ephErr != nil {
		return "run-e", f.ephErr
	}
	if err := f.play(ctx, route); err != nil {
		return "run-e", err
	}
	return "run-e", nil
}

func (f *oaiSessions) Response(context.Context, string, string) (session.Response, error) {
	return session.Response{}, beamclaw.E("fake", beamclaw.KindNotFound, "no such response", nil)
}

func (f *oaiSessions) ResponseHead(context.Context, string, string) (session.ResponseHead, error) {
	return session.ResponseHead{}, beamclaw.E("fake", beamclaw.KindNotFound, "no such response", nil)
}

func (f *oaiSessions) DeleteResponse(context.Context, string, string) error {
	return beamclaw.E("fake", beamclaw.KindNotFound, "no such response", nil)
}

func (f *oaiSessions) CancelResponse(context.Context, string, string) error {
	return beamclaw.E("fake", beamclaw.KindNotFound, "no such response", nil)
}

func (f *oaiSessions) MarkTurn(_ context.Context, sessionID, runID, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.marks = append(f.marks, runID+" "+key)
	return nil
}

func (f *oaiSessions) play(ctx context.Context, route beamclaw.Route) error {
	for _, ev := range f.events {
		if ev.Terminal() && f.hold != nil {
			select {
			case <-f.hold:
			case <-ctx.Done():
				route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, Text: "the request was canceled"})
				return ctx.Err()
			}
		}
		route.Deliver(ev)
	}
	return nil
}

func (f *oaiSessions) lastInbound(t *testing.T) beamclaw.Inbound {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.inbound) == 0 {
		t.Fatal("Send was not called")
	}
	return f.inbound[len(f.inbound)-1]
}

func (f *oaiSessions) lastHistory(t *testing.T) []beamclaw.Message {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.histories) == 0 {
		t.Fatal("RunDetached was not called")
	}
	return f.histories[len(f.histories)-1]
}

// oaiHandled tells when a request's handler has returned.
type oaiHandled chan string

func (m oaiHandled) ObserveHTTP(route, _ string, _ int, _ time.Duration) {
	select {
	case m <- route:
	default:
	}
}

// oaiEnv is a gateway serving the OpenAI routes over loopback, with the
// official SDK as its client.
type oaiEnv struct {
	url     string
	hc      *http.Client
	client  openai.Client
	handled oaiHandled
}

func newOAIEnv(t testing.TB, fake *oaiSessions, opts OpenAIOptions, gw Options) *oaiEnv {
	t.Helper()
	opts.Sessions = fake
	if opts.Agents == nil {
		opts.Agents = oaiAgents{"default", "coder"}
	}
	o := NewOpenAI(opts)
	env := &oaiEnv{handled: make(oaiHandled, 16)}
	gw.Routes = append(gw.Routes, o.Routes()...)
	gw.Metrics = env.handled
	srv := httptest.NewServer(New(gw).PublicHandler())
	env.url = srv.URL
	env.hc = &http.Client{Transport: &http.Transport{}}
	env.client = openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("x"),
		option.WithHTTPClient(env.hc), option.WithMaxRetries(0))
	t.Cleanup(func() {
		env.hc.CloseIdleConnections()
		srv.Close()
	})
	t.Cleanup(fake.wg.Wait) // runs first: the fake's runs end before the server closes
	return env
}

// post sends a raw request body to /v1/chat/completions.
func (e *oaiEnv) post(t *testing.T, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sseLines reads a stream's non-empty lines up to and including [DONE].
func sseLines(t *testing.T, resp *http.Response) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			out = append(out, line)
			if line == "data: [DONE]" {
				break
			}
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return out
}

func oaiFinal(text string, p, c int) beamclaw.RunEvent {
	return beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: text,
		Usage: &beamclaw.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}}
}

func oaiChunk(text string) beamclaw.RunEvent {
	return beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: text}
}
