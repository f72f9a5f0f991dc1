package anthropic

import (
	"context"
	"log/slog"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// Chat streams one message. onText receives visible text only (never
// thinking), in order, and never twice: failures before any text are
// retried (rate limits, unavailability) with backoff; after the first
// text the error is returned with the partial response. Errors are
// *beamclaw.Error with KindRateLimited, KindUnavailable, KindTimeout,
// KindInvalid, KindUnauthorized, KindForbidden or KindTooLarge; a
// *provider.StatusError is in the chain for the API's errors.
func (c *Client) Chat(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	const op = "anthropic.Chat"
	model, err := provider.ModelOf(op, req.Model, c.model)
	if err != nil {
		return beamclaw.ChatResponse{}, err
	}
	params := c.encode(req, model)
	ctx, cancel := provider.WithTimeout(ctx, c.timeout)
	defer cancel()
	start := time.Now()
	var last *assembler
	err = c.retries.Do(ctx, op, func(error) bool { return last == nil || !last.emitted }, func(int) error {
		last = newAssembler(onText)
		return c.attempt(ctx, op, params, last)
	})
	var resp beamclaw.ChatResponse
	if last != nil {
		resp = beamclaw.ChatResponse{Message: last.message(), Usage: last.usage(), Model: last.model,
			FinishReason: finishReason(last.stop), Provider: c.name}
		if resp.Model == "" {
			resp.Model = model
		}
		if err == nil {
			c.thoughts.keep(resp.Message.ToolCalls, last.thinking)
		}
	}
	c.logCall(ctx, model, time.Since(start), resp.Usage, err)
	return resp, err
}

// attempt makes one streamed call and reads its events into a, within
// the first-token timeout until a token arrives.
func (c *Client) attempt(ctx context.Context, op string, params *sdk.MessageNewParams, a *assembler) error {
	actx, live, cancel := provider.FirstToken(ctx, c.firstToken)
	defer cancel(nil)
	a.onLive = live
	stream := c.api.Messages.NewStreaming(actx, *params)
	defer stream.Close()
	for stream.Next() {
		ev := stream.Current()
		a.add(&ev)
	}
	if err := stream.Err(); err != nil {
		return c.failure(op, actx, err)
	}
	if !a.stopped {
		return provider.TransportError(op, c.name, actx, c.firstToken, provider.ErrBrokenStream)
	}
	return nil
}

// finishReason is the OpenAI-style finish reason of Anthropic's
// stop_reason.
func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence", "pause_turn":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

func (c *Client) logCall(ctx context.Context, model string, d time.Duration, u beamclaw.Usage, err error) {
	attrs := []slog.Attr{
		slog.String("provider", c.name), slog.String("model", model), slog.Duration("duration", d),
		slog.Int("prompt_tokens", u.PromptTokens), slog.Int("completion_tokens", u.CompletionTokens),
		slog.Int("cached_tokens", u.CachedTokens), slog.Int("cache_write_tokens", u.CacheWriteTokens),
	}
	if err != nil {
		attrs = append(attrs, slog.String("kind", beamclaw.KindOf(err).String()))
		c.log.LogAttrs(ctx, slog.LevelWarn, "provider call failed", attrs...)
		return
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "provider call", attrs...) // the turn's own line is the access line
}
