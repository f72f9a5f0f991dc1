package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/channel/webhook"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

const (
	webhookSecret = "e2e-webhook-secret-0123456789"
	webhookToken  = "e2e-gateway-token-0123456789abcdefghij"
)

// answerSink is a system's deliver_url: it checks each answer's signature
// and keeps the good ones; failing makes it answer 500.
type answerSink struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	got      []sinkAnswer
	fail     int // requests still to refuse
	redirect int // requests still to answer 302 (to /elsewhere)
	hits     int
	followed int // requests that reached /elsewhere
}

type sinkAnswer struct {
	webhook.Outbound
	Delivery string // X-Beamclaw-Delivery
}

func newAnswerSink(t *testing.T) *answerSink {
	s := &answerSink{t: t}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.URL.Path == "/elsewhere" {
			s.followed++
			return
		}
		s.hits++
		if r.Header.Get(webhook.SignatureHeader) != webhook.Sign(webhookSecret, body) {
			t.Errorf("an answer with a wrong signature: %q", r.Header.Get(webhook.SignatureHeader))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if s.fail > 0 {
			s.fail--
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		if s.redirect > 0 {
			s.redirect--
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		var a sinkAnswer
		if err := json.Unmarshal(body, &a.Outbound); err != nil {
			t.Errorf("answer is not JSON: %s", body)
		}
		a.Delivery = r.Header.Get(webhook.DeliveryHeader)
		s.got = append(s.got, a)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *answerSink) failNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = n
}

func (s *answerSink) answers() []sinkAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sinkAnswer(nil), s.got...)
}

// count is how many answers for the message id arrived.
func (s *answerSink) count(id string) int {
	n := 0
	for _, a := range s.answers() {
		if a.ID == id {
			n++
		}
	}
	return n
}

func (s *answerSink) waitFor(id string) sinkAnswer {
	s.t.Helper()
	pollUntil(s.t, 30*time.Second, "the answer to "+id, func() bool { return s.count(id) > 0 })
	for _, a := range s.answers() {
		if a.ID == id {
			return a
		}
	}
	panic("unreachable")
}

func webhookRig(t *testing.T, sink *answerSink, extra string) *chatRig {
	t.Helper()
	r := newChatRig(t, rigOptions{
		gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n  channels:\n    webhook:\n" +
			"      - {name: ci, secret: {env: CI_WEBHOOK_SECRET}, agent: default, deliver_url: \"" + sink.srv.URL + "/answer\", allow_private_delivery: true}\n",
		extra: extra,
	})
	r.h.env = append(r.h.env, "CI_WEBHOOK_SECRET="+webhookSecret, "E2E_GATEWAY_TOKEN="+webhookToken)
	r.llm.SetDefault(fakellm.Rules)
	return r
}

// send posts a message to the ci endpoint, signed with secret ("" sends
// no signature), and returns the status and body.
func (r *chatRig) webhookSend(secret string, msg webhook.Inbound) (int, string) {
	r.t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+webhook.PathPrefix+"ci", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(webhook.SignatureHeader, webhook.Sign(secret, body))
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatalf("POST webhook: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func runIDOf(t *testing.T, body string) string {
	t.Helper()
	var v struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.RunID == "" {
		t.Fatalf("202 body without run_id: %s", body)
	}
	return v.RunID
}

// TestWebhookChannel drives the webhook channel through the real binary:
// unsigned and wrongly signed messages are refused with nothing stored
// (and no bearer token is needed: the signature is the credential); a
// signed one is answered 202 with its run, its answer is POSTed signed to
// deliver_url; the same id again runs once and is answered once; a
// failing deliver_url is retried with backoff under one delivery id, and
// a redirect is not followed (it fails the attempt).
func TestWebhookChannel(t *testing.T) {
	sink := newAnswerSink(t)
	r := webhookRig(t, sink, "")
	r.start()

	for name, secret := range map[string]string{"unsigned": "", "wrongly signed": "not-the-secret"} {
		if code, body := r.webhookSend(secret, webhook.Inbound{ID: "x-" + name, User: "eve", Text: "hello"}); code != http.StatusUnauthorized {
			t.Errorf("%s message: %d %s, want 401", name, code, body)
		}
	}
	if n := len(r.llm.Requests()); n != 0 {
		t.Errorf("a refused message reached the model (%d requests)", n)
	}
	if out := r.h.must("sessions", "list", "--json").stdout; strings.Contains(out, "webhook") {
		t.Errorf("a refused message made a session: %s", out)
	}

	code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "build-1", User: "ci-bot", Text: "build 1 failed"})
	if code != http.StatusAccepted {
		t.Fatalf("signed message: %d %s, want 202", code, body)
	}
	run := runIDOf(t, body)
	a := sink.waitFor("build-1")
	if a.User != "ci-bot" || a.SessionID == "" || !strings.Contains(a.Text, "echo: build 1 failed") || a.Error {
		t.Errorf("answer: %+v", a)
	}

	// The same id again: the same run, no second turn, no second answer.
	code, body = r.webhookSend(webhookSecret, webhook.Inbound{ID: "build-1", User: "ci-bot", Text: "build 1 failed"})
	if code != http.StatusAccepted || runIDOf(t, body) != run {
		t.Errorf("resent message: %d %s, want 202 naming %s", code, body, run)
	}
	sink.mu.Lock()
	sink.fail, sink.redirect = 1, 1 // the next answer is refused, redirected (not followed), then taken
	sink.mu.Unlock()
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "build-2", User: "ci-bot", Text: "build 2 passed"}); code != http.StatusAccepted {
		t.Fatalf("second message: %d %s", code, body)
	}
	b2 := sink.waitFor("build-2")
	if n := sink.count("build-1"); n != 1 {
		t.Errorf("build-1 answered %d times, want once", n)
	}
	if n := sink.count("build-2"); n != 1 || b2.Delivery == "" {
		t.Errorf("build-2 answered %d times (delivery id %q), want once after two refusals", n, b2.Delivery)
	}
	sink.mu.Lock()
	followed := sink.followed
	sink.mu.Unlock()
	if followed != 0 {
		t.Errorf("a redirect was followed %d times", followed)
	}
	if turns := len(r.llm.Requests()); turns != 2 {
		t.Errorf("%d model calls, want 2 (the resent message must not run again)", turns)
	}
}

// TestWebhookAnswersSurviveKill9: an answer that could not be delivered
// waits in the database: after kill -9 and a restart it is delivered, once;
// one that was delivered is not delivered again after kill -9.
func TestWebhookAnswersSurviveKill9(t *testing.T) {
	sink := newAnswerSink(t)
	r := webhookRig(t, sink, "")
	r.start()
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "done-1", User: "ops", Text: "first"}); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	sink.waitFor("done-1")

	sink.failNext(1 << 30) // deliver_url is down
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "queued-1", User: "ops", Text: "second"}); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	pollUntil(t, 30*time.Second, "a refused delivery attempt", func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return sink.hits >= 2
	})
	r.kill9()
	sink.failNext(0) // deliver_url is back
	r.start()
	sink.waitFor("queued-1")
	// A third message's answer arriving shows the restarted daemon has
	// been through its queue: nothing is delivered twice.
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "after-1", User: "ops", Text: "third"}); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	sink.waitFor("after-1")
	for _, id := range []string{"done-1", "queued-1", "after-1"} {
		if n := sink.count(id); n != 1 {
			t.Errorf("%s delivered %d times, want once", id, n)
		}
	}
}

// TestWebhookIsASchedulerTarget: a job delivering to webhook:ci posts its
// answer through the channel, signed.
func TestWebhookIsASchedulerTarget(t *testing.T) {
	sink := newAnswerSink(t)
	r := webhookRig(t, sink, "scheduler:\n  enabled: true\n")
	r.start()
	j := r.schedJob("--schedule", "in 1s", "--prompt", "nightly report", "--deliver", "webhook:ci")
	a := sink.waitFor("job:" + j.ID)
	if !strings.Contains(a.Text, "nightly report") {
		t.Errorf("scheduled answer: %+v", a)
	}
	if k := r.h.run("scheduler", "add", "--schedule", "in 1h", "--prompt", "x", "--deliver", "webhook:no such"); k.code == 0 {
		t.Errorf("a delivery to a malformed endpoint was accepted")
	}
	if k := r.h.run("scheduler", "add", "--schedule", "in 1h", "--prompt", "x", "--deliver", "webhook:nosuch"); k.code == 0 ||
		!strings.Contains(k.stdout+k.stderr, `gateway.channels.webhook has no endpoint "nosuch"`) {
		t.Errorf("a delivery to an endpoint that does not exist: exit %d\n%s%s", k.code, k.stdout, k.stderr)
	}
}

// TestWebhookPrivateDeliveryRefused: a loopback deliver_url is refused by
// config check and start unless allow_private_delivery is true.
func TestWebhookPrivateDeliveryRefused(t *testing.T) {
	for _, allow := range []bool{false, true} {
		h := newHome(t, fmt.Sprintf("gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n  channels:\n    webhook:\n"+
			"      - {name: ci, secret: {env: CI_WEBHOOK_SECRET}, agent: default, deliver_url: \"http://127.0.0.1:9/answer\", allow_private_delivery: %v}\n", allow))
		check := h.run("config", "check")
		if refused := check.code != 0 && strings.Contains(check.stdout+check.stderr, "gateway.channels.webhook[0].deliver_url"); refused == allow {
			t.Errorf("allow_private_delivery %v: config check exit %d:\n%s%s", allow, check.code, check.stdout, check.stderr)
		}
	}
}

// TestWebhookResendAfterKill9: a message whose run a kill -9 cut short has
// no answer to queue; the system sends the same id again after the
// restart, and it is answered then, once.
func TestWebhookResendAfterKill9(t *testing.T) {
	sink := newAnswerSink(t)
	r := webhookRig(t, sink, "")
	hold := make(chan struct{})
	r.llm.Script(fakellm.Reply{Text: "never sent", Hold: hold})
	r.start()
	msg := webhook.Inbound{ID: "cut-1", User: "ops", Text: "long job"}
	if code, body := r.webhookSend(webhookSecret, msg); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	pollUntil(t, 30*time.Second, "the model asked", func() bool { return len(r.llm.Requests()) > 0 })
	r.kill9()
	close(hold)
	r.start()
	if code, body := r.webhookSend(webhookSecret, msg); code != http.StatusAccepted {
		t.Fatalf("resent message: %d %s", code, body)
	}
	a := sink.waitFor("cut-1")
	if a.Error || !strings.Contains(a.Text, "long job") {
		t.Errorf("answer after the resend: %+v", a)
	}
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "after-2", User: "ops", Text: "next"}); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	sink.waitFor("after-2")
	if n := sink.count("cut-1"); n != 1 {
		t.Errorf("cut-1 answered %d times, want once", n)
	}
}

// TestWebhookUsersAreNotTheOwner: with BEAMCLAW_USER set (one user across
// the owner's channels), a webhook's users keep sessions of their own:
// a remote system never speaks as the owner.
func TestWebhookUsersAreNotTheOwner(t *testing.T) {
	sink := newAnswerSink(t)
	r := webhookRig(t, sink, "")
	r.h.env = append(r.h.env, "BEAMCLAW_USER=owner")
	r.start()
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "u-1", User: "ci-bot", Text: "hello"}); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	sink.waitFor("u-1")
	var list protocol.SessionList
	if err := json.Unmarshal([]byte(r.h.must("sessions", "list", "--json").stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].User != "webhook:ci:ci-bot" || list.Sessions[0].Channel != "webhook" {
		t.Errorf("sessions: %+v, want one of user webhook:ci:ci-bot", list.Sessions)
	}
}

// TestWebhookJobRepliesToItsEndpoint: a job the agent creates in a webhook
// conversation without naming a delivery answers through that endpoint.
func TestWebhookJobRepliesToItsEndpoint(t *testing.T) {
	sink := newAnswerSink(t)
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"webhook": "full"},
		gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n  channels:\n    webhook:\n" +
			"      - {name: ci, secret: {env: CI_WEBHOOK_SECRET}, agent: default, deliver_url: \"" + sink.srv.URL + "/answer\", allow_private_delivery: true}\n",
		extra: "scheduler:\n  enabled: true\n"})
	r.h.env = append(r.h.env, "CI_WEBHOOK_SECRET="+webhookSecret, "E2E_GATEWAY_TOKEN="+webhookToken)
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	args := `{"action":"create","schedule":"in 1s","prompt":"rotate the logs"}`
	if code, body := r.webhookSend(webhookSecret, webhook.Inbound{ID: "job-1", User: "ops", Text: "call tool scheduler " + args}); code != http.StatusAccepted {
		t.Fatalf("message: %d %s", code, body)
	}
	sink.waitFor("job-1") // the turn's own answer
	pollUntil(t, 30*time.Second, "the job's answer at the endpoint", func() bool {
		for _, a := range sink.answers() {
			if strings.HasPrefix(a.ID, "job:") && strings.Contains(a.Text, "rotate the logs") {
				return true
			}
		}
		return false
	})
}

// TestWebhookStartNeedsItsSecret: config check and start refuse an
// endpoint whose secret is unset or shorter than 16 characters (its
// answers would otherwise wait for an endpoint that is not there).
func TestWebhookStartNeedsItsSecret(t *testing.T) {
	for _, env := range []string{"", "CI_WEBHOOK_SECRET=short"} {
		h := newHome(t, "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n  channels:\n    webhook:\n"+
			"      - {name: ci, secret: {env: CI_WEBHOOK_SECRET}, agent: default, deliver_url: \"https://ci.example.com/answer\"}\n")
		if env != "" {
			h.env = append(h.env, env)
		}
		for name, r := range map[string]result{"config check": h.run("config", "check"), "start": h.run("start")} {
			if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "gateway.channels.webhook[0].secret") {
				t.Errorf("%s with %q: exit %d, want a refusal naming the secret:\n%s%s", name, env, r.code, r.stdout, r.stderr)
			}
		}
	}
}

// TestWebhookTimestampStopsReplays: a sender that signs a timestamp with
// the body is accepted while it is fresh; the same request more than five
// minutes off, or with the timestamp stripped, is refused and stores
// nothing.
func TestWebhookTimestampStopsReplays(t *testing.T) {
	sink := newAnswerSink(t)
	r := webhookRig(t, sink, "")
	r.start()
	send := func(ts string, sig string, body []byte) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+webhook.PathPrefix+"ci", bytes.NewReader(body))
		if ts != "" {
			req.Header.Set(webhook.TimestampHeader, ts)
		}
		req.Header.Set(webhook.SignatureHeader, sig)
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	body, _ := json.Marshal(webhook.Inbound{ID: "ts-1", User: "ops", Text: "fresh"})
	now := strconv.FormatInt(time.Now().Unix(), 10)
	if code := send(now, webhook.SignAt(webhookSecret, now, body), body); code != http.StatusAccepted {
		t.Fatalf("fresh timestamped message: %d", code)
	}
	sink.waitFor("ts-1")
	stale := strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10)
	old, _ := json.Marshal(webhook.Inbound{ID: "ts-2", User: "ops", Text: "replayed"})
	if code := send(stale, webhook.SignAt(webhookSecret, stale, old), old); code != http.StatusUnauthorized {
		t.Errorf("a stale timestamp: %d, want 401", code)
	}
	if code := send("", webhook.SignAt(webhookSecret, now, old), old); code != http.StatusUnauthorized {
		t.Errorf("the timestamp stripped: %d, want 401", code)
	}
	if n := len(r.llm.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1 (refused messages must not run)", n)
	}
}

// TestWebhookRefusesWhatItCannotRun: a message over
// gateway.http.max_body_bytes is 413, one for an endpoint whose agent does
// not exist is 503, one for no such endpoint is 404; none runs.
func TestWebhookRefusesWhatItCannotRun(t *testing.T) {
	sink := newAnswerSink(t)
	r := newChatRig(t, rigOptions{http: "    max_body_bytes: 4096\n",
		gateway: "  channels:\n    webhook:\n" +
			"      - {name: ci, secret: {env: CI_WEBHOOK_SECRET}, agent: default, deliver_url: \"" + sink.srv.URL + "/answer\", allow_private_delivery: true}\n" +
			"      - {name: ghost, secret: {env: CI_WEBHOOK_SECRET}, agent: ghost, deliver_url: \"" + sink.srv.URL + "/answer\", allow_private_delivery: true}\n"})
	r.h.env = append(r.h.env, "CI_WEBHOOK_SECRET="+webhookSecret)
	r.start()
	post := func(endpoint string, msg webhook.Inbound) int {
		body, _ := json.Marshal(msg)
		req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+webhook.PathPrefix+endpoint, bytes.NewReader(body))
		req.Header.Set(webhook.SignatureHeader, webhook.Sign(webhookSecret, body))
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		endpoint string
		msg      webhook.Inbound
		want     int
	}{
		{"ci", webhook.Inbound{ID: "big", User: "ops", Text: strings.Repeat("x", 8000)}, http.StatusRequestEntityTooLarge},
		{"ghost", webhook.Inbound{ID: "g", User: "ops", Text: "hello"}, http.StatusServiceUnavailable},
		{"nosuch", webhook.Inbound{ID: "n", User: "ops", Text: "hello"}, http.StatusNotFound},
	} {
		if code := post(c.endpoint, c.msg); code != c.want {
			t.Errorf("%s %s: %d, want %d", c.endpoint, c.msg.ID, code, c.want)
		}
	}
	if n := len(r.llm.Requests()); n != 0 {
		t.Errorf("%d model calls, want none", n)
	}
}
