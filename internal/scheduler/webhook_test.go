package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guardedClient refuses loopback addresses at connect time, like the
// daemon's SSRF guard.
func guardedClient(t *testing.T) *http.Client {
	d := &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return errors.New("blocked address: " + host + " is loopback")
		}
		return nil
	}}
	tr := &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func plainClient(t *testing.T) *http.Client {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

type hook struct {
	srv    *httptest.Server
	bodies chan webhookPayload
	header chan http.Header
}

func newHook(t *testing.T, status int) *hook {
	h := &hook{bodies: make(chan webhookPayload, 10), header: make(chan http.Header, 10)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/hook", http.StatusFound)
			return
		}
		var p webhookPayload
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &p); err != nil || r.Method != http.MethodPost {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.bodies <- p
		h.header <- r.Header
		w.WriteHeader(status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) url(path string) string { return h.srv.URL + path + "?token=s3cret" }

func TestWebhookDeliver(t *testing.T) {
	ok, broken := newHook(t, http.StatusNoContent), newHook(t, http.StatusInternalServerError)
	msg := Message{JobID: "job-1", Agent: "ana", Text: "Call Ana.", Time: t0, Heartbeat: true}
	cases := []struct {
		name    string
		opts    WebhookOptions
		url     string
		wantErr string
	}{
		{"loopback refused by the guard", WebhookOptions{Client: guardedClient(t)}, ok.url("/hook"), "blocked address"},
		{"allowed host", WebhookOptions{Client: guardedClient(t), AllowClient: plainClient(t), AllowHosts: []string{"127.0.0.1"}},
			ok.url("/hook"), ""},
		{"allowed host and port", WebhookOptions{Client: guardedClient(t), AllowClient: plainClient(t),
			AllowHosts: []string{strings.TrimPrefix(ok.srv.URL, "http://")}}, ok.url("/hook"), ""},
		{"other port of an allowed host:port", WebhookOptions{Client: guardedClient(t), AllowClient: plainClient(t),
			AllowHosts: []string{"127.0.0.1:1"}}, ok.url("/hook"), "blocked address"},
		{"error status", WebhookOptions{Client: plainClient(t)}, broken.url("/hook"), "status 500"},
		{"redirects are not followed", WebhookOptions{Client: plainClient(t)}, ok.url("/moved"), "status 302"},
		{"no client", WebhookOptions{}, ok.url("/hook"), "no HTTP client configured"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := NewWebhook(tc.opts).Deliver(context.Background(), Delivery{Kind: DeliverWebhook, Target: tc.url}, msg)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				got := <-ok.bodies
				want := webhookPayload{JobID: "job-1", Agent: "ana", Text: "Call Ana.", Time: t0, Heartbeat: true}
				if got != want {
					t.Errorf("payload %+v, want %+v", got, want)
				}
				if ct := (<-ok.header).Get("Content-Type"); ct != "application/json" {
					t.Errorf("content type %q", ct)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows the URL: %v", err)
			}
		})
	}
}

// TestWebhookJobEndToEnd: a one-shot job delivers its answer to a
// loopback webhook on an allowed host.
func TestWebhookJobEndToEnd(t *testing.T) {
	h := newHook(t, http.StatusOK)
	e := newEnv(t, func(o *Options) {
		o.Webhook = WebhookOptions{Client: guardedClient(t), AllowClient: plainClient(t), AllowHosts: []string{"127.0.0.1"}}
	})
	e.start()
	j := e.add(AddRequest{Schedule: "in 5m", Prompt: "summarize the day", Delivery: "webhook:" + h.url("/hook")})
	e.advanceTo(t0.Add(5 * time.Minute))
	e.waitRuns(1)
	select {
	case p := <-h.bodies:
		if p.JobID != j.ID || p.Text != "done: summarize the day" || !p.Time.Equal(t0.Add(5*time.Minute)) {
			t.Errorf("payload %+v", p)
		}
	default:
		t.Fatal("the webhook got nothing")
	}
	if r := e.runs(j.ID); r[0].Outcome != OutcomeOK {
		t.Errorf("run %+v", r[0])
	}
}
