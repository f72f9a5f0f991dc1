package telegram

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

const testSecret = "webhook-secret-0123456789"

func webhookHarness(t *testing.T) (*harness, *httptest.Server) {
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Mode, o.WebhookURL, o.WebhookSecret = ModeWebhook, "https://bot.example.com/webhook/telegram", testSecret
	})
	srv := httptest.NewServer(h.ch.WebhookHandler())
	t.Cleanup(srv.Close)
	return h.start(), srv
}

func post(t *testing.T, url, secret string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set(SecretHeader, secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func TestWebhook(t *testing.T) {
	h, srv := webhookHarness(t)
	defer http.DefaultClient.CloseIdleConnections()
	// The fake records a call before handling it: wait for its effect.
	if err := h.tg.Wait(waitCtx(t), func([]faketelegram.Call) bool { url, _ := h.tg.Webhook(); return url != "" }); err != nil {
		t.Fatal(err)
	}
	if url, secret := h.tg.Webhook(); url != "https://bot.example.com/webhook/telegram" || secret != testSecret {
		t.Errorf("setWebhook(%q, %q)", url, secret)
	}
	_, upd := h.tg.SendText(alice.ID, alice, "via webhook")
	cases := []struct {
		name   string
		secret string
		body   []byte
		want   int
	}{
		{"no secret", "", upd, http.StatusUnauthorized},
		{"wrong secret", "webhook-secret-0123456788", upd, http.StatusUnauthorized},
		{"not an update", testSecret, []byte(`{"hello":1}`), http.StatusBadRequest},
		{"update", testSecret, upd, http.StatusOK},
		{"same update again", testSecret, upd, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := post(t, srv.URL, tc.secret, tc.body); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
	h.waitProcessed(1)
	_, other := h.tg.SendText(alice.ID, alice, "second")
	if got := post(t, srv.URL, testSecret, other); got != http.StatusOK {
		t.Fatalf("second update: %d", got)
	}
	sent := h.sess.waitSent(t, 2)
	h.waitProcessed(2)
	if len(h.sess.Sent()) != 2 || sent[0].Content != "via webhook" || sent[1].Content != "second" {
		t.Errorf("sends %d: %+v", len(h.sess.Sent()), sent)
	}
	if n := len(h.tg.Calls("getUpdates")); n != 0 {
		t.Errorf("webhook mode polled %d times", n)
	}
}

func TestWebhookRecordsBeforeServe(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Mode, o.WebhookURL, o.WebhookSecret = ModeWebhook, "https://bot.example.com/webhook/telegram", testSecret
	})
	srv := httptest.NewServer(h.ch.WebhookHandler())
	defer srv.Close()
	defer http.DefaultClient.CloseIdleConnections()
	_, upd := h.tg.SendText(alice.ID, alice, "queued while down")
	if got := post(t, srv.URL, testSecret, upd); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	if len(h.sess.Sent()) != 0 {
		t.Fatal("processed without a running service")
	}
	h.start()
	if in := h.sess.waitSent(t, 1)[0]; in.Content != "queued while down" {
		t.Errorf("content %q", in.Content)
	}
}

func TestDuplicateAcrossRestart(t *testing.T) {
	dbPath := t.TempDir() + "/beamclaw.db"
	first := newHarness(t, nil, dbPath, allowAlice).start()
	first.tg.SendText(alice.ID, alice, "once")
	first.sess.waitSent(t, 1)
	first.waitProcessed(1)
	first.stop()

	// A new Bot API whose update ids start over re-delivers id 1001.
	second := newHarness(t, nil, dbPath, allowAlice).start()
	id, _ := second.tg.SendText(alice.ID, alice, "once")
	id2, _ := second.tg.SendText(alice.ID, alice, "new")
	if id != 1001 || id2 != 1002 {
		t.Fatalf("fake ids %d %d", id, id2)
	}
	sent := second.sess.waitSent(t, 1)
	second.waitProcessed(1)
	if len(second.sess.Sent()) != 1 || sent[0].Content != "new" {
		t.Errorf("after restart: %+v", second.sess.Sent())
	}
}

func TestInboxWindow(t *testing.T) {
	h := newHarness(t, nil, "", nil)
	defer h.stop()
	q := &inbox{area: h.ch.inbox.area, window: 3}
	for id := int64(1); id <= 5; id++ {
		fresh, err := q.record(id, json.RawMessage(`{}`))
		if err != nil || !fresh {
			t.Fatalf("record %d = %v %v", id, fresh, err)
		}
	}
	// The window holds 3, 4, 5; recording 2 again forgets 3.
	steps := []struct {
		id    int64
		fresh bool
	}{{5, false}, {3, false}, {2, true}, {3, true}, {5, false}}
	for _, s := range steps {
		if fresh, _ := q.record(s.id, json.RawMessage(`{}`)); fresh != s.fresh {
			t.Errorf("record(%d) fresh = %v, want %v", s.id, fresh, s.fresh)
		}
	}
	var n int
	for {
		seq, _, ok, err := q.next()
		if err != nil || !ok {
			break
		}
		n++
		if err := q.done(seq); err != nil {
			t.Fatal(err)
		}
	}
	if n != 7 {
		t.Errorf("%d queued updates, want 7", n)
	}
}
