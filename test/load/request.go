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
	// ModeResponses is ModePlain over the Responses API: a non-streamed
	// POST /v1/responses with a user id, continuing that user's last
	// response (previous_response_id), so each user's turns are one
	// stored conversation.
	ModeResponses Mode = "responses"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModePlain, ModeStream, ModeEphemeral, ModeResponses:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want plain, stream, ephemeral or responses)", s)
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

// responseRequest is the Responses API body a turn sends.
type responseRequest struct {
	Model    string `json:"model"`
	User     string `json:"user"`
	Input    string `json:"input"`
	Previous string `json:"previous_response_id,omitempty"`
}

// respond sends turn i of user as a response continuing previous ("" for
// the first) and returns the new response's id.
func respond(ctx context.Context, hc *http.Client, url, model, user, previous string, i int, token string) (turn, string, error) {
	payload, err := json.Marshal(responseRequest{Model: model, User: user, Input: fmt.Sprintf("ping %d", i), Previous: previous})
	if err != nil {
		return turn{}, "", fmt.Errorf("encode request: %w", err)
	}
	var id string
	t, err := post(ctx, hc, url, payload, token, whole(func(b []byte) error {
		var r struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(b, &r); err != nil || r.Status != "completed" {
			return fmt.Errorf("response not completed (%v): %.200s", err, b)
		}
		id = r.ID
		return nil
	}))
	return t, id, err
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
	if stream {
		return post(ctx, hc, url, payload, token, func(body io.Reader, start time.Time) (turn, error) {
			ttft, err := readStream(body, start)
			return turn{latency: time.Since(start), ttft: ttft}, err
		})
	}
	return post(ctx, hc, url, payload, token, whole(func(b []byte) error {
		if !bytes.Contains(b, []byte(`"content"`)) {
			return fmt.Errorf("answer without content: %.200s", b)
		}
		return nil
	}))
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

// post sends one request and, once it answered 200, reads its body with
// read (start: when the request was sent).
func post(ctx context.Context, hc *http.Client, url string, payload []byte, token string,
	read func(body io.Reader, start time.Time) (turn, error)) (turn, error) {
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
	return read(res.Body, start)
}

// whole reads a whole answer and checks it with ok.
func whole(ok func([]byte) error) func(io.Reader, time.Time) (turn, error) {
	return func(body io.Reader, start time.Time) (turn, error) {
		b, err := io.ReadAll(body)
		if err != nil {
			return turn{}, fmt.Errorf("read answer: %w", err)
		}
		if err := ok(b); err != nil {
			return turn{}, err
		}
		return turn{latency: time.Since(start)}, nil
	}
}
