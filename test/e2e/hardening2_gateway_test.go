package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestHardening2RateLimitFloodKeepsNewcomers (issue 23, item 5): a flood
// of source addresses, far more than the limiter's table holds, does not
// lock out a client that has sent nothing: every address is admitted on
// its first request, and so is a fresh client afterwards (one behind the
// trusted proxy and the proxy's own address).
func TestHardening2RateLimitFloodKeepsNewcomers(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  trusted_proxies: [127.0.0.1/32]\n" +
		"  rate_limit: {enabled: true, requests: 60, window_seconds: 3600, max_clients: 100}\n"})
	r.start()
	refused := 0
	for i := range 1000 {
		if r.limitedGet("/v1/models", fmt.Sprintf("203.0.%d.%d", i/250, i%250+1)) == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of 1,000 addresses got 429 on their first request (table of 100)", refused)
	}
	if code := r.limitedGet("/v1/models", "198.51.100.99"); code != http.StatusOK {
		t.Errorf("a fresh client behind the proxy got %d after the flood", code)
	}
	if code := r.limitedGet("/v1/models", ""); code != http.StatusOK {
		t.Errorf("a fresh client on 127.0.0.1 got %d after the flood", code)
	}
}

// TestHardening2WriteFileRefusesHardLinks (issue 23, item 9): a hard link
// in the agent's workspace to a file outside it is refused by write_file
// and read_file, as a symbolic link out is; the outside file is intact.
func TestHardening2WriteFileRefusesHardLinks(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.h.must("agent", "create", "default")
	outside := filepath.Join(r.h.dir, "outside.txt")
	putFile(t, outside, "precious\n")
	if err := os.Link(outside, r.agentFile("hard.txt")); err != nil {
		t.Fatal(err)
	}
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	for i, call := range []string{
		`call tool write_file {"path":"hard.txt","content":"pwned"}`,
		`call tool write_file {"path":"hard.txt","content":"pwned","append":true}`,
		`call tool read_file {"path":"hard.txt"}`,
	} {
		before := len(r.llm.Requests())
		r.chat(fmt.Sprint("user", i), call) // a session each
		reqs := r.llm.Requests()[before:]
		res := llmToolResults(reqs[len(reqs)-1])
		if len(res) != 1 || !strings.Contains(res[0], "refusing a file with 2 hard links") {
			t.Errorf("%s: tool result %q, want a refusal naming the hard links", call, res)
		}
		if b, err := os.ReadFile(outside); err != nil || string(b) != "precious\n" {
			t.Fatalf("%s: the file outside the workspace is now %q (%v)", call, b, err)
		}
	}
}

// TestHardening2ScrubKeepsPasswdProse (issue 23, item 9): a model's answer
// that mentions passwd": in ordinary text reaches the client whole, while
// a quoted "passwd" key's value is still redacted.
func TestHardening2ScrubKeepsPasswdProse(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	secret := canarySecret(t, "pw", 20)
	prose := `search the log for passwd": then read on`
	r.llm.Script(fakellm.Reply{Text: prose + ` and the file has {"passwd": "` + secret + `"}`})
	r.start()
	answer := r.chat("ana", "what is in the log?")
	if !strings.Contains(answer, prose) {
		t.Errorf("the prose was changed: %q", answer)
	}
	if strings.Contains(answer, secret) || !strings.Contains(answer, `{"passwd": "[REDACTED]"}`) {
		t.Errorf("the quoted passwd value was not redacted: %q", answer)
	}
}

// idemPost posts a chat completion for ana with an Idempotency-Key and
// returns the status and body.
func (r *chatRig) idemPost(key, content string) (int, string) {
	r.t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "default", "user": "ana",
		"messages": []map[string]string{{"role": "user", "content": content}}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHardening2IdempotencyKeyReusedWithOtherBody (issue 23, item 9): an
// Idempotency-Key sent again with a different body is answered 422
// naming the key, never with the first request's answer, also after a
// restart; the same body still gets the first answer.
func TestHardening2IdempotencyKeyReusedWithOtherBody(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	code, first := r.idemPost("order-4711", "charge my card 10 EUR")
	if code != http.StatusOK {
		t.Fatalf("first request: %d %s", code, first)
	}
	check := func(when string) {
		t.Helper()
		before := len(r.llm.Requests())
		code, body := r.idemPost("order-4711", "charge my card 1000 EUR")
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `order-4711`) ||
			!strings.Contains(body, "idempotency_key_reused") {
			t.Errorf("%s: reused key with another body: %d %s, want 422 naming the key", when, code, body)
		}
		if code, again := r.idemPost("order-4711", "charge my card 10 EUR"); code != http.StatusOK ||
			answerText(t, again) != answerText(t, first) {
			t.Errorf("%s: the same body again: %d %s, want the first answer", when, code, again)
		}
		if n := len(r.llm.Requests()) - before; n != 0 {
			t.Errorf("%s: the model was asked %d times", when, n)
		}
	}
	check("live")
	r.h.must("stop")
	r.start()
	check("after a restart")
}

func answerText(t *testing.T, body string) string {
	t.Helper()
	var a chatAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil || len(a.Choices) != 1 {
		t.Fatalf("bad answer: %s", body)
	}
	return a.Choices[0].Message.Content
}

// firstReply sends a message frame with id on a fresh connection and
// returns the first frame about it: its ack or its error.
func (r *chatRig) firstReply(user, id, content string) protocol.ServerFrame {
	r.t.Helper()
	conn := r.dial(user)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := conn.SendFrame(ctx, protocol.ClientFrame{Type: protocol.FrameMessage, ID: id, Content: content}); err != nil {
		r.t.Fatal(err)
	}
	for {
		select {
		case <-ctx.Done():
			r.t.Fatalf("no reply to %s", id)
		case f, ok := <-conn.Events():
			if !ok {
				r.t.Fatalf("connection closed: %v", conn.Err())
			}
			if f.ID == id && (f.Type == protocol.FrameAck || f.Type == protocol.FrameError) {
				return f
			}
		}
	}
}

// TestHardening2WSMessageIDReusedWithOtherContent (issue 23, item 9): a
// /ws message id sent again with other content gets an error frame with
// code id_reused naming the id, on the same connection and on a new one;
// the same content is still acknowledged with the first run.
func TestHardening2WSMessageIDReusedWithOtherContent(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	runID, _ := r.resend("ana", "m-42", "delete the old branch")
	conn := r.dial("ana")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, content := range []string{"delete every branch", "delete the old branch"} {
		if err := conn.SendFrame(ctx, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m-42", Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	var got []protocol.ServerFrame
	for len(got) < 2 {
		select {
		case <-ctx.Done():
			t.Fatalf("replies so far: %+v", got)
		case f := <-conn.Events():
			if f.ID == "m-42" {
				got = append(got, f)
			}
		}
	}
	if f := got[0]; f.Type != protocol.FrameError || f.Code != protocol.CodeIDReused || !strings.Contains(f.Message, `"m-42"`) {
		t.Errorf("other content under the same id: %+v, want an id_reused error naming it", f)
	}
	if f := got[1]; f.Type != protocol.FrameAck || f.RunID != runID {
		t.Errorf("the same content again: %+v, want the ack of run %s", f, runID)
	}
	if f := r.firstReply("ana", "m-42", "delete every branch"); f.Type != protocol.FrameError || f.Code != protocol.CodeIDReused {
		t.Errorf("other content on a new connection: %+v, want id_reused", f)
	}
}

// unixGet asks path of the daemon's control socket.
func unixGet(t *testing.T, sock, path string) (int, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get("http://beamclaw" + path)
	if err != nil {
		t.Fatalf("GET %s on the control socket: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHardening2ReadyEndpoint (issue 23, item 9): /ready answers the
// readiness probe of load balancers, without the gateway token and never
// rate-limited, on the public listener and the control socket, with the
// body of /health (which stays the liveness probe). Its 503 while not
// ready is in TestDiskFull.
func TestHardening2ReadyEndpoint(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n" +
		"  rate_limit: {enabled: true, requests: 2, window_seconds: 3600}\n"})
	r.h.env = append(r.h.env, "E2E_GATEWAY_TOKEN="+strings.Repeat("t0k3n", 8))
	r.start()
	for i := range 5 {
		code, body := get(t, "http://"+r.addr+"/ready")
		if code != http.StatusOK || !strings.Contains(body, `"ready":true`) {
			t.Fatalf("/ready %d on the public listener: %d %s", i, code, body)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	code, body := unixGet(t, filepath.Join(r.h.dir, "run", "beamclaw.sock"), "/ready")
	if code != http.StatusOK || !strings.Contains(body, `"ready":true`) {
		t.Errorf("/ready on the control socket: %d %s", code, body)
	}
}

// rawWS is a WebSocket client written by hand (the e2e tests may not
// import a WebSocket library): it sends frames that pkg/client never
// would, such as an attachment whose data is not base64.
type rawWS struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dialRawWS(t *testing.T, addr string) *rawWS {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("WebSocket handshake: %v %v", resp, err)
	}
	return &rawWS{t: t, c: c, br: br}
}

// send writes one masked text frame.
func (w *rawWS) send(text string) {
	w.t.Helper()
	n := len(text)
	head := []byte{0x81}
	switch {
	case n < 126:
		head = append(head, 0x80|byte(n))
	default:
		head = append(head, 0x80|126, byte(n>>8), byte(n))
	}
	mask := [4]byte{1, 2, 3, 4}
	body := []byte(text)
	for i := range body {
		body[i] ^= mask[i%4]
	}
	if _, err := w.c.Write(append(append(head, mask[:]...), body...)); err != nil {
		w.t.Fatal(err)
	}
}

// read returns the next server frame (text, unmasked).
func (w *rawWS) read() protocol.ServerFrame {
	w.t.Helper()
	var head [2]byte
	if _, err := io.ReadFull(w.br, head[:]); err != nil {
		w.t.Fatal(err)
	}
	n := int(head[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		_, _ = io.ReadFull(w.br, ext[:])
		n = int(ext[0])<<8 | int(ext[1])
	case 127:
		w.t.Fatal("a server frame over 64 KiB")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(w.br, body); err != nil {
		w.t.Fatal(err)
	}
	var f protocol.ServerFrame
	if err := json.Unmarshal(body, &f); err != nil {
		w.t.Fatalf("server frame %q: %v", body, err)
	}
	return f
}

// TestHardening2WSBadBase64Attachment (issue 23, item 9): a /ws message
// whose attachment data is not base64 gets a bad_frame error that says
// so, not "not a JSON object"; the connection goes on.
func TestHardening2WSBadBase64Attachment(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	w := dialRawWS(t, r.addr)
	w.send(`{"type":"hello","user":"ana"}`)
	if f := w.read(); f.Type != protocol.FrameReady {
		t.Fatalf("hello answered %+v", f)
	}
	w.send(`{"type":"message","id":"m1","content":"look","attachments":[{"mime":"image/png","data":"not base64!"}]}`)
	f := w.read()
	if f.Type != protocol.FrameError || f.Code != protocol.CodeBadFrame ||
		!strings.Contains(f.Message, "attachments[].data is not valid standard base64") {
		t.Errorf("bad base64 answered %+v, want a bad_frame error naming the attachment's data", f)
	}
	w.send(`{"type":"ping"}`)
	if f := w.read(); f.Type != protocol.FramePong {
		t.Errorf("after the bad frame: %+v, want pong", f)
	}
}
