// Package webhook is a generic channel for systems that have no channel of
// their own (CI, monitoring, home automation): they POST a signed JSON
// message to /channels/webhook/<endpoint>, and the agent's answer is POSTed,
// signed the same way, to the endpoint's deliver_url. It is also a
// scheduler delivery target ("webhook:<endpoint>"). Answers wait in bbolt
// until delivered, so a restart neither loses nor repeats one.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// Header names.
const (
	// SignatureHeader carries "sha256=<hex HMAC-SHA256 of the raw body>",
	// or, with TimestampHeader, of "<timestamp>.<raw body>".
	SignatureHeader = "X-Beamclaw-Signature"
	// TimestampHeader (optional, inbound) is the sender's Unix time in
	// seconds; when present it is signed with the body and must be within
	// MaxSkew of the daemon's clock, so a captured request cannot be
	// replayed later.
	TimestampHeader = "X-Beamclaw-Timestamp"
	// DeliveryHeader names an answer: the same answer retried carries the
	// same value, so a receiver can drop a repeat.
	DeliveryHeader = "X-Beamclaw-Delivery"
)

// MaxSkew is how far a signed timestamp may be from the daemon's clock.
const MaxSkew = 5 * time.Minute

// PathPrefix is where endpoints receive messages: PathPrefix + name.
const PathPrefix = "/channels/webhook/"

// Buckets: the answers waiting to be delivered, by delivery id, and for a
// week the ids of those delivered or given up (so a resent message's
// answer, which is the same run's, is not delivered again).
const (
	outboxBucket    = "webhook_outbox"
	deliveredBucket = "webhook_delivered"
)

// keepDelivered is how long a delivered answer's id is remembered, and
// how long an answer waits for an endpoint that is not configured (its
// secret unset, or the endpoint removed).
const keepDelivered = 7 * 24 * time.Hour

const (
	deliveryTimeout = 30 * time.Second
	firstRetry      = time.Second
	maxRetryWait    = 5 * time.Minute
	maxAttempts     = 12 // about 18 minutes of waits between attempts, then the answer is dropped (logged)
)

// Inbound is the JSON an endpoint POSTs.
type Inbound struct {
	ID   string `json:"id"`   // the sender's id of the message: the same id twice runs once
	User string `json:"user"` // the sender's user (the session is theirs)
	Text string `json:"text"`
}

// Outbound is the JSON POSTed to deliver_url.
type Outbound struct {
	ID        string `json:"id"` // the inbound message's id, or "job:<id>" for a scheduled answer
	User      string `json:"user"`
	SessionID string `json:"session_id,omitempty"`
	Text      string `json:"text"`
	Error     bool   `json:"error,omitempty"` // the run failed; Text says why
}

// pending is an outbox record.
type pending struct {
	Endpoint string    `json:"endpoint"`
	Body     Outbound  `json:"body"`
	Attempts int       `json:"attempts"`
	NextAt   time.Time `json:"next_at"`
	Queued   time.Time `json:"queued"`
}

// Channel serves the endpoints and delivers their answers.
type Channel struct {
	host      channel.Host
	endpoints map[string]endpoint
	outbox    *store.KV
	delivered *store.KV // delivery id -> when (RFC 3339)
	pruned    time.Time // when delivered was last pruned
	log       *slog.Logger
	clk       clock.Clock
	guarded   *http.Client // deliver_url through the SSRF guard
	open      *http.Client // allow_private_delivery endpoints
	wake      chan struct{}
}

func newChannel(h channel.Host, options any) (channel.Instance, error) {
	eps, ok := options.([]endpoint)
	if !ok {
		return nil, fmt.Errorf("webhook: options are %T", options)
	}
	if h.Sessions == nil || h.DB == nil {
		return nil, errors.New("webhook: Host.Sessions and Host.DB are required")
	}
	outbox, err := store.NewKV(h.DB, outboxBucket)
	if err != nil {
		return nil, err
	}
	delivered, err := store.NewKV(h.DB, deliveredBucket)
	if err != nil {
		return nil, err
	}
	c := &Channel{host: h, endpoints: make(map[string]endpoint, len(eps)), outbox: outbox, delivered: delivered,
		log: h.Logger, clk: clock.Or(h.Clock), wake: make(chan struct{}, 1),
		guarded: deliveryClient(builtin.GuardedDialer(builtin.CheckPublicIP, nil, deliveryTimeout)),
		open:    deliveryClient((&net.Dialer{Timeout: deliveryTimeout}).DialContext)}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	for _, e := range eps {
		c.endpoints[e.Name] = e
	}
	return c, nil
}

// Routes implements channel.Instance: the subtree of the endpoints
// (POST only); requests are authenticated by their signature.
func (c *Channel) Routes() []channel.Route {
	return []channel.Route{{Pattern: strings.TrimSuffix(PathPrefix, "/"), Handler: http.HandlerFunc(c.receive), OwnAuth: true}}
}

// Sign returns the signature header's value for body under secret.
func Sign(secret string, body []byte) string {
	return signParts(secret, nil, body)
}

// SignAt returns the signature of body sent with the timestamp ts (the
// value of TimestampHeader).
func SignAt(secret, ts string, body []byte) string {
	return signParts(secret, []byte(ts+"."), body)
}

func signParts(secret string, prefix, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(prefix)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (c *Channel) receive(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "send messages with POST")
		return
	}
	ep, ok := c.endpoints[strings.TrimPrefix(r.URL.Path, PathPrefix)]
	if !ok {
		writeError(w, http.StatusNotFound, "no such webhook endpoint")
		return
	}
	body, err := io.ReadAll(r.Body) // the gateway bounds it (gateway.http.max_body_bytes)
	if err != nil {
		status, msg := http.StatusBadRequest, "could not read the body"
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("the message is larger than %d bytes (gateway.http.max_body_bytes)", mbe.Limit)
		}
		writeError(w, status, msg)
		return
	}
	if why := c.verify(r, ep.Secret, body); why != "" {
		writeError(w, http.StatusUnauthorized, why)
		return
	}
	var in Inbound
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "the body is not JSON {\"id\", \"user\", \"text\"}")
		return
	}
	if in.ID == "" || in.User == "" || strings.TrimSpace(in.Text) == "" || len(in.ID) > 200 || len(in.User) > 200 {
		writeError(w, http.StatusBadRequest, "id, user and text are required (id and user at most 200 bytes)")
		return
	}
	if c.host.KnownAgent != nil && !c.host.KnownAgent(ep.Agent) {
		writeError(w, http.StatusServiceUnavailable, "the endpoint's agent "+ep.Agent+" does not exist (beamclaw agent create "+ep.Agent+")")
		return
	}
	runID, err := c.host.Sessions.Send(r.Context(), beamclaw.Inbound{
		// The sender's users stay its own, whatever BEAMCLAW_USER says: a
		// remote system never speaks as the owner.
		Channel: Name, UserID: string(Name) + ":" + ep.Name + ":" + in.User, AgentID: ep.Agent,
		MessageID: "webhook:" + ep.Name + ":" + in.ID, Content: in.Text, NoApproval: true,
		Route: &answerRoute{c: c, endpoint: ep.Name, id: in.ID, user: in.User},
	})
	if err != nil {
		c.log.Warn("webhook message not stored", "endpoint", ep.Name, "err", err)
		writeError(w, http.StatusServiceUnavailable, "the message could not be stored; send it again")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]string{"run_id": runID})
}

// verify checks the signature (and the timestamp, when one is sent); it
// returns why a request is refused, or "".
func (c *Channel) verify(r *http.Request, secret string, body []byte) string {
	want := Sign(secret, body)
	if ts := r.Header.Get(TimestampHeader); ts != "" {
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return TimestampHeader + " is not a Unix time in seconds"
		}
		if d := c.clk.Now().Sub(time.Unix(sec, 0)); d > MaxSkew || d < -MaxSkew {
			return TimestampHeader + " is more than 5 minutes from the daemon's clock (a replay, or a clock to set)"
		}
		want = SignAt(secret, ts, body)
	}
	if !hmac.Equal([]byte(r.Header.Get(SignatureHeader)), []byte(want)) {
		return "missing or wrong " + SignatureHeader + " (sha256=<hex HMAC-SHA256 of the body, or of \"<timestamp>.<body>\" with " + TimestampHeader + ">)"
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg}})
}

// answerRoute queues a run's answer for delivery.
type answerRoute struct {
	c        *Channel
	endpoint string
	id, user string
}

// Deliver implements beamclaw.Route: the terminal event is queued in
// bbolt under the run's id (a resent message's answer is the same run's,
// so it is queued once).
func (r *answerRoute) Deliver(ev beamclaw.RunEvent) {
	if !ev.Terminal() {
		return
	}
	out := Outbound{ID: r.id, User: r.user, SessionID: ev.SessionID, Text: ev.Text, Error: ev.Type == beamclaw.EvError}
	if err := r.c.enqueue("run:"+ev.RunID, r.endpoint, out); err != nil {
		r.c.log.Error("webhook answer not queued", "endpoint", r.endpoint, "run", ev.RunID, "err", err)
	}
}

// Deliver implements channel.Instance: a scheduled answer for the
// endpoint target.
func (c *Channel) Deliver(_ context.Context, target string, d channel.Delivery) error {
	if _, ok := c.endpoints[target]; !ok {
		return fmt.Errorf("no webhook endpoint %q", target)
	}
	id := "job:" + d.JobID + ":" + c.clk.Now().UTC().Format(time.RFC3339Nano)
	return c.enqueue(id, target, Outbound{ID: "job:" + d.JobID, User: d.UserID, SessionID: d.SessionID, Text: d.Text})
}
