package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// Client is an OpenAI-compatible chat provider. It is safe for concurrent
// use.
type Client struct {
	t             *transport
	model         string
	maxCompletion bool
	marks         string // Options.CacheBreakpoints, "auto" resolved to "" (by model) or provider.CacheOff
}

var _ beamclaw.Provider = (*Client)(nil)

// New returns a Client. Options.BaseURL is required, and Options.Model
// unless every request names its model.
func New(o Options) (*Client, error) {
	t, err := newTransport(o)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(o.BaseURL)
	marks := o.CacheBreakpoints
	if marks != provider.CacheOn && marks != provider.CacheOff {
		marks = provider.CacheOff
		if u.Hostname() == "openrouter.ai" {
			marks = "" // by model
		}
	}
	return &Client{t: t, model: o.Model, maxCompletion: u.Hostname() == "api.openai.com", marks: marks}, nil
}

// Name is the provider's name (Options.Name).
func (c *Client) Name() string { return c.t.name }

// Model is the default model (Options.Model).
func (c *Client) Model() string { return c.model }

// CloseIdleConnections closes idle keep-alive connections.
func (c *Client) CloseIdleConnections() { c.t.hc.CloseIdleConnections() }

// Chat streams one completion. onText receives visible text only (no
// reasoning), in order, and never twice: failures before any text are
// retried (rate limits, unavailability) with backoff; after the first
// text the error is returned with the partial response. Errors are
// *beamclaw.Error with KindRateLimited, KindUnavailable, KindTimeout,
// KindInvalid, KindUnauthorized or KindTooLarge; a *provider.StatusError is in the
// chain for HTTP failures.
func (c *Client) Chat(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	const op = "openai.Chat"
	model, err := provider.ModelOf(op, req.Model, c.model)
	if err != nil {
		return beamclaw.ChatResponse{}, err
	}
	body := c.t.bodies.get()
	defer body.release()
	if body.b, err = c.encodeBody(body.b, req, model); err != nil {
		return beamclaw.ChatResponse{}, beamclaw.E(op, beamclaw.KindInvalid, "the request could not be encoded", err)
	}
	ctx, cancel := provider.WithTimeout(ctx, c.t.timeout)
	defer cancel()
	start := time.Now()
	var resp beamclaw.ChatResponse
	var last *assembler
	var status int
	err = c.t.retry(ctx, op, func(error) bool { return last == nil || !last.emitted }, func(int) error {
		last = newAssembler(onText)
		var aerr error
		status, aerr = c.attempt(ctx, op, body, last)
		return aerr
	})
	if last != nil {
		resp = beamclaw.ChatResponse{Message: last.message(), Usage: last.usage, Model: last.model,
			FinishReason: last.finish, Provider: c.t.name}
		if resp.Model == "" {
			resp.Model = model
		}
	}
	c.logCall(ctx, model, status, time.Since(start), resp.Usage, err)
	return resp, err
}

// attempt makes one HTTP call and reads the answer into a.
func (c *Client) attempt(ctx context.Context, op string, body *body, a *assembler) (int, error) {
	actx, live, cancel := provider.FirstToken(ctx, c.t.firstToken)
	defer cancel(nil)
	a.onLive = live
	hreq, err := c.t.request(body.traced(actx), "/chat/completions", "application/json", bytes.NewReader(body.b))
	if err != nil {
		return 0, beamclaw.E(op, beamclaw.KindInternal, "", err)
	}
	hreq.Header.Set("Accept", "text/event-stream")
	res, err := c.t.hc.Do(hreq)
	if err != nil {
		return 0, c.t.transportError(op, actx, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return res.StatusCode, c.t.statusError(op, res)
	}
	ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if ct == "application/json" {
		err = c.readWhole(res.Body, a)
	} else {
		err = c.readStream(res.Body, a)
	}
	if err != nil {
		var be *beamclaw.Error
		if errors.As(err, &be) {
			return res.StatusCode, err
		}
		return res.StatusCode, c.t.transportError(op, actx, err)
	}
	a.end()
	drainBody(res.Body, cancel)
	return res.StatusCode, nil
}

// Draining a finished answer: at most drainMax bytes, waiting at most
// drainWait.
const (
	drainMax  = 4 << 10
	drainWait = 10 * time.Millisecond
)

// errDrained cancels the read of what follows a stream's [DONE].
var errDrained = errors.New("stream end drained")

// drainBody reads what is left of an answer after its [DONE] (the chunked
// body's end usually arrives just after it) so the connection goes back
// to the pool: net/http closes a connection whose body was closed unread,
// and the next call pays a new connection (a TLS handshake with a real
// provider). A server that keeps the stream open is cut after drainWait.
func drainBody(b io.Reader, cancel context.CancelCauseFunc) {
	t := time.AfterFunc(drainWait, func() { cancel(errDrained) })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(b, drainMax))
}

// readStream reads server-sent chunks until [DONE] (or the end of a
// stream that reported its finish reason).
func (c *Client) readStream(body io.Reader, a *assembler) error {
	sr := c.t.readers.get(body)
	defer c.t.readers.put(sr)
	var ch chunkJSON
	var choices []choiceJSON // reused across chunks, zeroed before each
	for {
		data, err := sr.Next()
		if errors.Is(err, io.EOF) {
			if a.finish != "" {
				return nil
			}
			return provider.ErrBrokenStream
		}
		if err != nil {
			return err
		}
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			return nil
		}
		clear(choices[:cap(choices)])                                    // no field of the last chunk may stay
		ch = chunkJSON{ID: ch.ID, Model: ch.Model, Choices: choices[:0]} // id and model kept: the same in every chunk, not copied again
		if err := decodeChunk(data, &ch); err != nil {
			return fmt.Errorf("decode stream chunk: %w", err)
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return c.streamError(ch.Error)
		}
		a.add(&ch)
		choices = ch.Choices
	}
}

// readWhole reads a non-streamed completion (servers that ignore stream).
func (c *Client) readWhole(body io.Reader, a *assembler) error {
	var ch chunkJSON
	if err := json.NewDecoder(body).Decode(&ch); err != nil {
		return fmt.Errorf("decode completion: %w", err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return c.streamError(ch.Error)
	}
	a.add(&ch)
	return nil
}

// streamError maps an error object sent inside a 200 answer.
func (c *Client) streamError(raw json.RawMessage) error {
	var e struct {
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	_ = json.Unmarshal(raw, &e)
	se := &provider.StatusError{Provider: c.t.name, Message: c.t.redact(provider.Truncate(e.Message, 300))}
	kind := beamclaw.KindUnavailable
	if code, err := strconv.Atoi(string(bytes.Trim(e.Code, `"`))); err == nil && code >= 400 {
		se.Status, kind = code, provider.KindForStatus(code, "", e.Message)
	}
	return beamclaw.E("openai.Chat", kind, provider.KindMessage(kind), se)
}

func (c *Client) logCall(ctx context.Context, model string, status int, d time.Duration, u beamclaw.Usage, err error) {
	attrs := []slog.Attr{
		slog.String("provider", c.t.name), slog.String("model", model),
		slog.Int("status", status), slog.Duration("duration", d),
		slog.Int("prompt_tokens", u.PromptTokens), slog.Int("completion_tokens", u.CompletionTokens),
	}
	if err != nil {
		attrs = append(attrs, slog.String("kind", beamclaw.KindOf(err).String()))
		c.t.log.LogAttrs(ctx, slog.LevelWarn, "provider call failed", attrs...)
		return
	}
	c.t.log.LogAttrs(ctx, slog.LevelDebug, "provider call", attrs...) // the turn's own line is the access line
}

// probeTimeout bounds a health probe.
const probeTimeout = 10 * time.Second

// Probe asks the provider for its model list (GET /models), a call that
// costs nothing, to learn whether it answers again and takes the key
// (provider.Prober): the chain probes a provider whose cool-down ended
// before it sends it a paid call.
func (c *Client) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	hreq, err := c.t.requestWith(ctx, http.MethodGet, "/models", "", nil)
	if err != nil {
		return fmt.Errorf("probe %s: %w", c.t.name, err)
	}
	res, err := c.t.hc.Do(hreq)
	if err != nil {
		return c.t.transportError("openai.Probe", ctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed {
		return nil // a server without a model list (a deployment URL, a proxy) answered: it is up
	}
	if res.StatusCode >= 300 {
		return c.t.statusError("openai.Probe", res)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxErrorBody))
	return nil
}
