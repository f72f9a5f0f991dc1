package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestSlowBodiesAreCut: 200 connections that send headers and then a
// body one byte at a time hold nothing for long: past the per-client cap
// they are closed on accept, the rest when read_timeout passes; both are
// logged. A streamed answer longer than the timeout is not cut.
func TestSlowBodiesAreCut(t *testing.T) {
	r := newChatRig(t, rigOptions{http: "    read_timeout_seconds: 2\n    max_conns_per_client: 64\n", gateway: "  rate_limit: {enabled: false}\n"})
	r.start()
	const n = 200
	closed := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
			done := make(chan struct{})
			go func() { // trickle a byte a second until the server gives up
				defer close(done)
				for range 30 {
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
					time.Sleep(time.Second)
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(40 * time.Second))
			_, err := io.Copy(io.Discard, c) // returns when the server closes (EOF or a reset)
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				closed <- i
			}
			_ = c.Close()
			<-done
		}()
	}
	wg.Wait()
	close(closed)
	if got := len(closed); got != n {
		t.Errorf("%d of %d slow connections were closed by the server; the rest were held until the client gave up", got, n)
	}
	logs := r.h.logs()
	for _, want := range []string{"request body not received in time", "too many open connections from one address"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log does not say %q", want)
		}
	}

	// An answer streamed over longer than read_timeout arrives whole.
	r.llm.Script(fakellm.Reply{Chunks: []string{"slow ", "and ", "whole"}, ChunkDelay: 1500 * time.Millisecond})
	conn, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var text strings.Builder
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		line := sc.Text()
		text.WriteString(line)
		if strings.Contains(line, "[DONE]") {
			break
		}
	}
	if !strings.Contains(text.String(), "whole") || !strings.Contains(text.String(), "[DONE]") {
		t.Errorf("a stream longer than read_timeout was cut: %q", text.String())
	}
}
