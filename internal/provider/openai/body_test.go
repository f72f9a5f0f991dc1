package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Request bodies are pooled, and a server may answer before it has read
// the body (net/http then still writes it after Do returned): under the
// race detector, no body is reused while it is still being sent, and
// every server reads exactly the request its caller made, answered early
// or late.
func TestPooledBodiesAreNotReusedWhileSent(t *testing.T) {
	var mu sync.Mutex
	var bad []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := func(text string) {
			w.Header().Set("Content-Type", "application/json")
			b, _ := json.Marshal(text)
			fmt.Fprintf(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, b)
		}
		check := func(body []byte) string {
			var req struct {
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("unreadable body (%v): %.80q", err, body))
				mu.Unlock()
				return ""
			}
			last := req.Messages[len(req.Messages)-1].Content
			if want := strings.Repeat(last[:8], len(last)/8); last != want {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("a mixed message: %.80q", last))
				mu.Unlock()
			}
			return last[:8]
		}
		if r.ContentLength%2 == 0 { // half the requests are answered before their body is read
			_ = http.NewResponseController(w).EnableFullDuplex()
			answer("early")
			_ = http.NewResponseController(w).Flush()
			time.Sleep(2 * time.Millisecond) // the client is done with the call meanwhile
			body, _ := io.ReadAll(r.Body)
			check(body)
			return
		}
		body, _ := io.ReadAll(r.Body)
		answer(check(body))
	}))
	defer hs.Close()
	c, err := New(Options{Name: "pool", BaseURL: hs.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				tag := fmt.Sprintf("g%02d-i%03d", g, i)      // 8 bytes
				text := strings.Repeat(tag, 2000+(g*40+i)%7) // ~16 KB, odd and even lengths
				req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: text}}}
				resp, err := c.Chat(context.Background(), req, nil)
				if err != nil {
					t.Errorf("%s: %v", tag, err)
					return
				}
				if resp.Message.Content != "early" && resp.Message.Content != tag {
					t.Errorf("%s: answered %q", tag, resp.Message.Content)
				}
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bad {
		t.Error(b)
	}
}

// lateWriter is a RoundTripper that, as net/http may, answers at once and
// writes the request body after RoundTrip returned, reporting through the
// request's trace hooks as net/http does.
type lateWriter struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	seen []string
}

func (lw *lateWriter) RoundTrip(r *http.Request) (*http.Response, error) {
	tr := httptrace.ContextClientTrace(r.Context())
	if tr != nil && tr.GotConn != nil {
		tr.GotConn(httptrace.GotConnInfo{})
	}
	lw.wg.Go(func() {
		time.Sleep(time.Millisecond) // the call has returned by now
		body, _ := io.ReadAll(r.Body)
		_ = r.Body.Close()
		lw.mu.Lock()
		lw.seen = append(lw.seen, string(body))
		lw.mu.Unlock()
		if tr != nil && tr.WroteRequest != nil {
			tr.WroteRequest(httptrace.WroteRequestInfo{})
		}
	})
	answer := `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(answer)), Request: r}, nil
}

// Every body is intact when written after its call returned, and a client
// given in Options (whose transport may not report writes) never has its
// bodies reused.
func TestPooledBodyWrittenAfterTheCall(t *testing.T) {
	for _, own := range []bool{true, false} {
		lw := &lateWriter{}
		c, err := New(Options{Name: "late", BaseURL: "http://127.0.0.1:1", Model: "m", HTTPClient: &http.Client{Transport: lw}})
		if err != nil {
			t.Fatal(err)
		}
		if own {
			c.t.bodies.off = false // as over net/http's transport, which reports writes
		} else {
			// A RoundTripper that does not report writes: remove the hooks.
			c.t.hc = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return lw.RoundTrip(r.WithContext(context.Background()))
			})}
		}
		for i := range 50 {
			text := strings.Repeat(fmt.Sprintf("m%07d", i), 500)
			if _, err := c.Chat(context.Background(), beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: text}}}, nil); err != nil {
				t.Fatal(err)
			}
		}
		lw.wg.Wait()
		for i, body := range lw.seen {
			var req struct {
				Messages []struct{ Content string } `json:"messages"`
			}
			if err := json.Unmarshal([]byte(body), &req); err != nil || len(req.Messages) != 1 {
				t.Errorf("own transport %v: body %d unreadable: %v", own, i, err)
				continue
			}
			m := req.Messages[0].Content
			if m != strings.Repeat(m[:8], 500) {
				t.Errorf("own transport %v: body %d mixed: %.40q", own, i, m)
			}
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
