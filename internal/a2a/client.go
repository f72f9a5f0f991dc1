package a2a

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2alog "github.com/a2aproject/a2a-go/v2/log"

	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// Target is an A2A agent to call: where its card is, and the bearer token
// to present to that host (and no other).
type Target struct {
	URL   string
	Token string
}

// Request is one message to an agent: a new task, or (TaskID) the answer
// to a task that waits for input; ContextID continues a conversation.
type Request struct {
	Text      string
	TaskID    string
	ContextID string
	Stream    bool
}

// Reply is how the task of a Request ended (or paused).
type Reply struct {
	TaskID    string
	ContextID string
	State     string // "completed", "input-required", "failed", ...
	Text      string // the agent's answer, or what it asks for
}

// Caller calls A2A agents. Requests to the target's host carry its token;
// a card that names other hosts gets them reached without it, through the
// SSRF guard (public addresses only).
type Caller struct {
	log      *slog.Logger
	resolver builtin.Resolver
	check    func(net.IP) error // for hosts other than the target's
}

// NewCaller returns a Caller logging to log (nil: nowhere).
func NewCaller(log *slog.Logger) *Caller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Caller{log: log.With("component", "a2a_client"), check: builtin.CheckPublicIP}
}

// Discover fetches the agent card of t (v1.0, or a v0.3 one converted).
func (c *Caller) Discover(ctx context.Context, t Target) (*a2a.AgentCard, error) {
	hc, done, err := c.httpClient(t)
	if err != nil {
		return nil, err
	}
	defer done()
	return c.discover(a2alog.AttachLogger(ctx, c.log), hc, t)
}

func (c *Caller) discover(ctx context.Context, hc *http.Client, t Target) (*a2a.AgentCard, error) {
	card, err := (&agentcard.Resolver{Client: hc, CardParser: a2av0.NewAgentCardParser()}).Resolve(ctx, t.URL)
	if err != nil {
		return nil, fmt.Errorf("agent card of %s: %w", t.URL, err)
	}
	return card, nil
}

// Send sends r to the agent of t and waits for its task to end or to ask
// for input. onEvent, when set, sees each streamed event.
func (c *Caller) Send(ctx context.Context, t Target, r Request, onEvent func(a2a.Event)) (Reply, error) {
	hc, done, err := c.httpClient(t)
	if err != nil {
		return Reply{}, err
	}
	defer done()
	ctx = a2alog.AttachLogger(ctx, c.log)
	card, err := c.discover(ctx, hc, t)
	if err != nil {
		return Reply{}, err
	}
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc}))
	if err != nil {
		return Reply{}, fmt.Errorf("connect to %s: %w", card.Name, err)
	}
	defer func() { _ = client.Destroy() }()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(r.Text))
	msg.TaskID, msg.ContextID = a2a.TaskID(r.TaskID), r.ContextID
	req := &a2a.SendMessageRequest{Message: msg}
	v := &view{}
	if r.Stream && card.Capabilities.Streaming {
		for ev, err := range client.SendStreamingMessage(ctx, req) {
			if err != nil {
				return Reply{}, fmt.Errorf("stream from %s: %w", card.Name, err)
			}
			if onEvent != nil {
				onEvent(ev)
			}
			v.apply(ev)
		}
	} else {
		res, err := client.SendMessage(ctx, req)
		if err != nil {
			return Reply{}, fmt.Errorf("send to %s: %w", card.Name, err)
		}
		if onEvent != nil {
			onEvent(res)
		}
		v.apply(res)
	}
	return v.reply(), nil
}

// httpClient is the HTTP client of one call: the token goes to the
// target's host only.
func (c *Caller) httpClient(t Target) (*http.Client, func(), error) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("%q is not an http(s) URL", t.URL)
	}
	direct := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext, TLSHandshakeTimeout: 10 * time.Second}
	guarded := &http.Transport{Proxy: nil, DialContext: builtin.GuardedDialer(c.check, c.resolver, 10*time.Second),
		TLSHandshakeTimeout: 10 * time.Second}
	rt := &hostTransport{scheme: u.Scheme, host: u.Host, token: t.Token, own: direct, other: guarded}
	done := func() {
		direct.CloseIdleConnections()
		guarded.CloseIdleConnections()
	}
	return &http.Client{Transport: rt}, done, nil
}

// hostTransport sends requests for the target's host (with its token) and
// those for any other host (without it, guarded) on separate transports.
type hostTransport struct {
	scheme, host, token string
	own, other          http.RoundTripper
}

func (h *hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != h.scheme || !strings.EqualFold(r.URL.Host, h.host) {
		r = r.Clone(r.Context())
		r.Header.Del("Authorization")
		return h.other.RoundTrip(r)
	}
	if h.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+h.token)
	}
	return h.own.RoundTrip(r)
}

// view follows one task through the events of a call.
type view struct {
	task     a2a.TaskInfo
	state    a2a.TaskState
	status   string // the text of the latest status message
	answer   map[a2a.ArtifactID]string
	order    []a2a.ArtifactID
	agentMsg string // a direct message reply
}

func (v *view) apply(ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.Message:
		v.agentMsg = textOf(e)
	case *a2a.Task:
		v.task, v.state, v.status = e.TaskInfo(), e.Status.State, textOf(e.Status.Message)
		v.answer, v.order = nil, nil
		for _, a := range e.Artifacts {
			v.setArtifact(a, false)
		}
	case *a2a.TaskStatusUpdateEvent:
		v.task, v.state, v.status = e.TaskInfo(), e.Status.State, textOf(e.Status.Message)
	case *a2a.TaskArtifactUpdateEvent:
		v.task = e.TaskInfo()
		v.setArtifact(e.Artifact, e.Append)
	}
}

func (v *view) setArtifact(a *a2a.Artifact, appendParts bool) {
	if a == nil {
		return
	}
	if v.answer == nil {
		v.answer = map[a2a.ArtifactID]string{}
	}
	if _, ok := v.answer[a.ID]; !ok {
		v.order = append(v.order, a.ID)
	}
	text := textOfParts(a.Parts)
	if appendParts {
		text = v.answer[a.ID] + text
	}
	v.answer[a.ID] = text
}

func (v *view) reply() Reply {
	r := Reply{TaskID: string(v.task.TaskID), ContextID: v.task.ContextID, State: stateName(v.state), Text: v.status}
	if v.state == a2a.TaskStateUnspecified && v.agentMsg != "" {
		r.State, r.Text = "completed", v.agentMsg
		return r
	}
	if v.state == a2a.TaskStateCompleted || r.Text == "" {
		var parts []string
		for _, id := range v.order {
			if s := v.answer[id]; s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			r.Text = strings.Join(parts, "\n")
		}
	}
	return r
}

// textOfParts is the text parts of ps, joined.
func textOfParts(ps a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range ps {
		if p != nil {
			b.WriteString(p.Text())
		}
	}
	return b.String()
}
