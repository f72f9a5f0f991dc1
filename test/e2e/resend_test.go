package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// resend sends a message frame with a fixed id on a fresh connection and
// returns the run's final text.
func (r *chatRig) resend(user, id, content string) (string, string) {
	r.t.Helper()
	conn := r.dial(user)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := conn.SendFrame(ctx, protocol.ClientFrame{Type: protocol.FrameMessage, ID: id, Content: content}); err != nil {
		r.t.Fatal(err)
	}
	runID := ""
	for {
		select {
		case <-ctx.Done():
			r.t.Fatalf("no answer to %s", id)
		case f, ok := <-conn.Events():
			if !ok {
				r.t.Fatalf("connection closed: %v", conn.Err())
			}
			switch {
			case f.Type == protocol.FrameAck && f.ID == id:
				runID = f.RunID
			case f.Type == protocol.FrameError && f.ID == id:
				r.t.Fatalf("message %s refused: %s", id, f.Message)
			case runID != "" && f.RunID == runID && (f.Type == protocol.FrameFinal || f.Type == protocol.FrameError):
				return runID, f.Text
			}
		}
	}
}

// TestResentMessagesNeverRunTwice: message ids acknowledged before a
// kill -9, a graceful restart or a hibernation are answered from what
// was stored when they are sent again, and never reach the model twice.
func TestResentMessagesNeverRunTwice(t *testing.T) {
	r := newChatRig(t, rigOptions{core: "  session_idle_hibernate_seconds: 1\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	answers := map[string]string{}
	questions := map[string]string{}
	for i := range 12 {
		id := fmt.Sprintf("%s-%d", client.NewMessageID(), i)
		questions[id] = fmt.Sprint("question ", i)
		_, text := r.resend("ana", id, questions[id])
		answers[id] = text
	}
	resendAll := func(when string) {
		t.Helper()
		before := len(r.llm.Requests())
		for id, want := range answers {
			if _, got := r.resend("ana", id, questions[id]); got != want {
				t.Errorf("%s: resend of %s answered %q, want %q", when, id, got, want)
			}
		}
		if n := len(r.llm.Requests()) - before; n != 0 {
			t.Errorf("%s: %d resent messages reached the model again", when, n)
		}
	}
	resendAll("live")
	r.kill9()
	r.start()
	resendAll("after kill -9")
	r.h.must("stop")
	r.start()
	resendAll("after a graceful restart")
	pollUntil(t, 30*time.Second, "the session hibernates", func() bool {
		_, health := get(t, "http://"+r.addr+"/health")
		return strings.Contains(health, `"0 live, 1 hibernated"`)
	})
	resendAll("after hibernation")
}

// TestIdempotencyKey: an OpenAI-compatible request sent again with the
// same Idempotency-Key on a stored session gets the first answer, and the
// model is asked once.
func TestIdempotencyKey(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	post := func() string {
		body, _ := json.Marshal(map[string]any{"model": "default", "user": "ana",
			"messages": []map[string]string{{"role": "user", "content": "charge my card once"}}})
		req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-4711")
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		var a chatAnswer
		if err := json.Unmarshal(b, &a); err != nil || len(a.Choices) != 1 {
			t.Fatalf("bad answer: %s", b)
		}
		return a.Choices[0].Message.Content
	}
	first := post()
	before := len(r.llm.Requests())
	if again := post(); again != first {
		t.Errorf("the retry answered %q, want %q", again, first)
	}
	if n := len(r.llm.Requests()) - before; n != 0 {
		t.Errorf("the retry reached the model %d times", n)
	}
}
