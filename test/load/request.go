package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Mode is the kind of turn a run sends.
type Mode string

// The modes of a run.
const (
	// ModePlain is a persisted turn: a non-streamed request with a user id,
	// so the daemon appends it to that user's stored session.
	ModePlain Mode = "plain"
	// ModeStream is a persisted, streamed turn (SSE); the time to the first
	// content chunk is recorded as well.
	ModeStream Mode = "stream"
	// ModeEphemeral is a non-streamed request without a user id: the
	// request's messages are the whole history and nothing is stored.
	ModeEphemeral Mode = "ephemeral"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModePlain, ModeStream, ModeEphemeral:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want plain, stream or ephemeral)", s)
}

// chatRequest is the OpenAI request body a turn sends.
type chatRequest struct {
	Model    string        `json:"model"`
	User     string        `json:"user,omitempty"`
	Stream   bool          `json:"stream,omitempty"`
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// streamChunk is the part of an SSE chunk a run reads.
type streamChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
}

// turn is one request of a run and what it measured.
type turn struct {
	latency time.Duration // request sent to body fully read
	ttft    time.Duration // request sent to first content chunk (streams)
}

// body encodes the request for turn i.
func body(model string, mode Mode, user string, i int) ([]byte, error) {
	req := chatRequest{
		Model:    model,
		Stream:   mode == ModeStream,
		Messages: []chatMessage{{Role: "user", Content: fmt.Sprintf("ping %d", i)}},
	}
	if mode != ModeEphemeral {
		req.User = user
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

// do sends one chat completion and reads the whole answer.
func do(ctx context.Context, hc *http.Client, url string, payload []byte, stream bool, token string) (turn, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return turn{}, fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	res, err := hc.Do(req)
	if err != nil {
		return turn{}, fmt.Errorf("post: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return turn{}, fmt.Errorf("status %d: %s", res.StatusCode, strings.TrimSpace(string(b)))
	}
	if !stream {
		b, err := io.ReadAll(res.Body)
		if err != nil {
			return turn{}, fmt.Errorf("read answer: %w", err)
		}
		if !bytes.Contains(b, []byte(`"content"`)) {
			return turn{}, fmt.Errorf("answer without content: %.200s", b)
		}
		return turn{latency: time.Since(start)}, nil
	}
	ttft, err := readStream(res.Body, start)
	if err != nil {
		return turn{}, err
	}
	return turn{latency: time.Since(start), ttft: ttft}, nil
}

// readStream reads SSE events until [DONE] and returns the time from start
// to the first event carrying non-empty content.
func readStream(r io.Reader, start time.Time) (time.Duration, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var ttft time.Duration
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			if ttft == 0 {
				return 0, fmt.Errorf("stream ended without content")
			}
			return ttft, nil
		}
		if ttft != 0 {
			continue
		}
		var c streamChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return 0, fmt.Errorf("decode chunk: %w", err)
		}
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
			ttft = time.Since(start)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read stream: %w", err)
	}
	return 0, fmt.Errorf("stream ended without [DONE]")
}
