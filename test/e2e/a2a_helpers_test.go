package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// The tokens of the A2A suites: the gateway token (caller "gateway") and
// peer1's (caller "peer1").
var (
	a2aGatewayToken = strings.Repeat("G", 20) + strings.Repeat("w", 20)
	a2aPeerToken    = strings.Repeat("P", 20) + strings.Repeat("q", 20)
)

// newA2ARig is a chat rig whose gateway has a token and one inbound peer
// (peer1), with small stream chunks so streamed answers arrive in pieces.
// a2aYAML is more of the a2a section, indented two spaces.
func newA2ARig(t *testing.T, o rigOptions, a2aYAML string) *chatRig {
	t.Helper()
	o.gateway += "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n"
	o.core += "  agentic_loop: {stream_chunk_size: 10}\n"
	o.extra += "a2a:\n  peers:\n    peer1: {token: {env: E2E_PEER_TOKEN}}\n" + a2aYAML
	r := newChatRig(t, o)
	r.h.env = append(r.h.env, "E2E_GATEWAY_TOKEN="+a2aGatewayToken, "E2E_PEER_TOKEN="+a2aPeerToken)
	return r
}

func (r *chatRig) a2aURL() string { return "http://" + r.addr }

// bearerTransport sets a bearer token on every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(req)
}

// a2aClient is a2a-go's client of the rig's default agent, discovered from
// its card, presenting token.
func (r *chatRig) a2aClient(token string) *a2aclient.Client {
	r.t.Helper()
	tr := &http.Transport{}
	r.t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: bearerTransport{token: token, base: tr}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	card, err := agentcard.NewResolver(hc).Resolve(ctx, r.a2aURL())
	if err != nil {
		r.t.Fatalf("discover %s: %v", r.a2aURL(), err)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc))
	if err != nil {
		r.t.Fatalf("a2a client: %v", err)
	}
	r.t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// a2aPost posts a raw body to path with the token ("" for none).
func (r *chatRig) a2aPost(path, token, body string) (int, string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.a2aURL()+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// a2aCtx is a bounded context for one client call.
func a2aCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func a2aMsg(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// a2aSend sends text and wants a task back.
func a2aSend(t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(a2aCtx(t), req)
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage returned %T, want a task", res)
	}
	return task
}

// a2aAnswer is the text of a task's artifacts.
func a2aAnswer(task *a2a.Task) string {
	var b strings.Builder
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text())
		}
	}
	return b.String()
}

// a2aStatusText is the text of a task's status message.
func a2aStatusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range task.Status.Message.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// a2aStream collects a stream's events on a channel (closed at its end;
// an error ends it as an error event).
type streamItem struct {
	ev  a2a.Event
	err error
}

func a2aStream(ctx context.Context, seq func(func(a2a.Event, error) bool)) <-chan streamItem {
	out := make(chan streamItem, 256)
	go func() {
		defer close(out)
		for ev, err := range seq {
			out <- streamItem{ev, err}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// nextEvent waits for the next streamed event.
func nextEvent(t *testing.T, ch <-chan streamItem) (a2a.Event, bool) {
	t.Helper()
	select {
	case it, ok := <-ch:
		if !ok {
			return nil, false
		}
		if it.err != nil {
			t.Fatalf("stream: %v", it.err)
		}
		return it.ev, true
	case <-time.After(30 * time.Second):
		t.Fatal("no stream event in time")
		return nil, false
	}
}

// eventKind names an event for comparisons: "task:submitted",
// "status:working", "artifact:<text>".
func eventKind(ev a2a.Event) string {
	switch e := ev.(type) {
	case *a2a.Task:
		return "task:" + shortState(e.Status.State)
	case *a2a.TaskStatusUpdateEvent:
		return "status:" + shortState(e.Status.State)
	case *a2a.TaskArtifactUpdateEvent:
		var b strings.Builder
		for _, p := range e.Artifact.Parts {
			b.WriteString(p.Text())
		}
		return "artifact:" + b.String()
	case *a2a.Message:
		return "message"
	}
	return "?"
}

func shortState(s a2a.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

// untilWorking reads a streamed task's events until it works, and
// returns the task's id.
func untilWorking(t *testing.T, events <-chan streamItem) a2a.TaskID {
	t.Helper()
	for {
		ev, ok := nextEvent(t, events)
		if !ok {
			t.Fatal("stream ended before working")
		}
		if eventKind(ev) == "status:working" {
			return ev.TaskInfo().TaskID
		}
	}
}

// lastEvent reads a stream to its end and returns its last event (nil:
// none).
func lastEvent(t *testing.T, events <-chan streamItem) a2a.Event {
	t.Helper()
	var last a2a.Event
	for ev, ok := nextEvent(t, events); ok; ev, ok = nextEvent(t, events) {
		last = ev
	}
	return last
}
