package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestStreamingIsLive: five words one second apart reach an SSE client
// as separate chunks spread over the answer's time, not at its end. The
// test asserts order and spread, never a time budget.
func TestStreamingIsLive(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	words := []string{"one ", "two ", "three ", "four ", "five"}
	r.llm.Script(fakellm.Reply{Chunks: words, ChunkDelay: time.Second})
	r.start()
	body, _ := json.Marshal(map[string]any{"model": "default", "stream": true,
		"messages": []map[string]string{{"role": "user", "content": "count"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+r.addr+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var at []time.Time
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &ch) == nil && len(ch.Choices) == 1 && ch.Choices[0].Delta.Content != "" {
			at = append(at, time.Now())
			text.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	if text.String() != strings.Join(words, "") {
		t.Fatalf("streamed %q", text.String())
	}
	if len(at) < 4 {
		t.Fatalf("%d chunks for five words sent a second apart: the answer was held back", len(at))
	}
	if spread := at[len(at)-1].Sub(at[0]); spread < 3*time.Second {
		t.Errorf("chunks arrived within %s of each other: held back, not streamed", spread)
	}
}

// TestWSStreamingIsLive: the same over /ws.
func TestWSStreamingIsLive(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.Script(fakellm.Reply{Chunks: []string{"one ", "two ", "three ", "four ", "five"}, ChunkDelay: time.Second})
	r.start()
	conn := r.dial("ana")
	run := sendRun(t, conn, "count", nil)
	var chunks int
	for _, f := range run.frames {
		if f.Type == protocol.FrameChunk {
			chunks++
		}
	}
	if chunks < 4 {
		t.Errorf("%d chunk frames for five words a second apart", chunks)
	}
}
