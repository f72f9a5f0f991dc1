package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// A 429 is waited out on the channel's clock: the answer goes out once
// its retry_after (1 s) has passed there.
func TestRetryAfter429(t *testing.T) { answerAfter429s(t, 1) }

// A final answer outlasts flood control: Telegram answers its send 429
// more times in a row than any other call waits out, and the answer still
// goes out once the last retry_after passed.
func TestFinalAnswerOutlastsFloodControl(t *testing.T) { answerAfter429s(t, maxAttempts+2) }

// answerAfter429s: Telegram refuses the answer's send refusals times with
// 429 (retry_after 1 s); each is waited out on the channel's clock,
// nothing is sent before, and the answer goes out after the last.
func answerAfter429s(t *testing.T, refusals int) {
	clk := clock.NewFake(time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC))
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Clock = clk
	}).start()
	h.tg.FailNext("sendMessage", refusals, 1)
	h.sess.setScript(func(_ context.Context, in beamclaw.Inbound) {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "after the wait"})
	})
	h.tg.SendText(alice.ID, alice, "hi")
	for i := range refusals {
		// The streamer's typing ticker, then the wait for the retry.
		if !clk.WaitForWaiters(2, waitCtx(t).Done()) {
			t.Fatalf("429 number %d is not waited out on the clock", i+1)
		}
		if got := h.tg.Messages(alice.ID); len(got) != 0 {
			t.Fatalf("sent before retry_after passed: %+v", got)
		}
		clk.Advance(time.Second)
	}
	h.waitMessage(alice.ID, contains("after the wait"))
	if n := len(h.tg.Calls("sendMessage")); n != refusals+1 {
		t.Errorf("%d sendMessage calls, want the %d refused and the one that went out", n, refusals)
	}
}

func TestLongAnswerSplitsAcrossMessages(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	para := strings.Repeat("word ", 150) // 750 characters
	var md strings.Builder
	for i := range 12 {
		fmt.Fprintf(&md, "Paragraph %d: **%s**\n\n", i, para)
	}
	h.sess.setScript(func(_ context.Context, in beamclaw.Inbound) {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: md.String()[:5000]})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: md.String()})
	})
	h.tg.SendText(alice.ID, alice, "write a lot")
	last := h.waitMessage(alice.ID, contains("Paragraph 11"))
	msgs := h.tg.Messages(alice.ID)
	if len(msgs) < 3 || msgs[len(msgs)-1].ID != last.ID {
		t.Fatalf("%d messages, last %d", len(msgs), last.ID)
	}
	var all strings.Builder
	for _, m := range msgs {
		plain, err := faketelegram.ParseHTML(m.Text)
		if err != nil {
			t.Fatalf("message %d: %v", m.ID, err)
		}
		all.WriteString(plain)
	}
	for i := range 12 {
		if n := strings.Count(all.String(), fmt.Sprintf("Paragraph %d:", i)); n != 1 {
			t.Errorf("paragraph %d appears %d times", i, n)
		}
	}
}

func TestToolActivityShownBriefly(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	release := make(chan struct{})
	h.sess.setScript(func(ctx context.Context, in beamclaw.Inbound) {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: "Looking"})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvToolStart, Tool: &beamclaw.ToolCall{Name: "web_search"}})
		select {
		case <-release:
		case <-ctx.Done():
			return
		}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvToolResult})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "Found it."})
	})
	h.tg.SendText(alice.ID, alice, "search")
	h.waitMessage(alice.ID, contains("<i>🔧 web_search…</i>"))
	close(release)
	h.waitMessage(alice.ID, func(m faketelegram.Message) bool { return m.Text == "Found it." })
}

func TestTokenRedacted(t *testing.T) {
	const token = faketelegram.DefaultToken
	r := newRedactor(token)
	var buf bytes.Buffer
	log := slog.New(redactHandler{inner: slog.NewJSONHandler(&buf, nil), r: r})
	err := fmt.Errorf("get https://api.telegram.org/bot%s/getMe: %w", token, context.DeadlineExceeded)
	log.With("url", "https://x/bot"+token).Error("call failed "+token, "err", err,
		slog.Group("g", "u", "/file/bot"+token+"/a"), "any", []string{token})
	if strings.Contains(buf.String(), token) || !strings.Contains(buf.String(), "<token>") {
		t.Errorf("log: %s", buf.String())
	}
	red := r.Err(err)
	if strings.Contains(red.Error(), token) || !errors.Is(red, context.DeadlineExceeded) {
		t.Errorf("Err = %v (is deadline: %v)", red, errors.Is(red, context.DeadlineExceeded))
	}
}

// failingFiles fails every file download, with the URL in the error.
type failingFiles struct{ inner http.RoundTripper }

func (f failingFiles) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/file/") {
		return nil, errors.New("connection reset")
	}
	return f.inner.RoundTrip(r)
}

func TestTokenNeverLoggedOnFailures(t *testing.T) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.HTTPClient = &http.Client{Transport: failingFiles{transport}}
	}).start()
	h.tg.SendPhoto(alice.ID, alice, "", []faketelegram.Photo{{Width: 1, Height: 1, Data: []byte{1}}})
	h.waitMessage(alice.ID, contains("could not download"))
	h.stop()
	transport.CloseIdleConnections()
	logs := h.logs.String()
	if !strings.Contains(logs, "<token>") {
		t.Errorf("expected a redacted download error in the logs:\n%s", logs)
	}
	// stop already checked that the token itself is absent.
}

func TestServeErrorsHideToken(t *testing.T) {
	cases := []struct {
		name string
		api  func(h *harness) string
	}{
		{"unreachable", func(*harness) string { return "http://127.0.0.1:1" }},
		{"refused token", func(h *harness) string { return h.tg.URL() + "/other" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, "", nil)
			defer h.stop()
			bad := newHarness(t, h.tg, t.TempDir()+"/b.db", func(o *Options) { o.APIURL = tc.api(h) })
			defer bad.stop()
			err := bad.ch.Serve(context.Background())
			if err == nil || strings.Contains(err.Error(), h.tg.Token()) {
				t.Errorf("Serve = %v", err)
			}
		})
	}
}

// Small streamed pieces are gathered into one edit per EditChunk new
// characters (core.agentic_loop.stream_chunk_size): Telegram rate-limits
// edits; the whole answer is still shown at the end.
func TestEditsGatherSmallPieces(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.EditChunk = 40
	}).start()
	pieces := strings.Fields(strings.Repeat("tok ", 60))
	done := make(chan struct{})
	h.sess.setScript(func(_ context.Context, in beamclaw.Inbound) {
		defer close(done)
		for _, p := range pieces {
			in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: p + " "})
		}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: strings.Repeat("tok ", 60)})
	})
	h.tg.SendText(alice.ID, alice, "stream it")
	final := h.waitMessage(alice.ID, func(m faketelegram.Message) bool { return strings.Count(m.Text, "tok") == 60 })
	<-done
	if final.Edits > 240/40+1 {
		t.Errorf("%d edits for 240 characters with a chunk of 40", final.Edits)
	}
}
