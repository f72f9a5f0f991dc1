package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// StatusError is an HTTP error answer from a provider (or an error a
// provider sent inside a stream). It is the cause (Err) of the
// *beamclaw.Error an adapter returns; find it with errors.As.
type StatusError struct {
	Provider   string
	Status     int
	Message    string        // the provider's error message (or the start of its body), the key redacted
	RetryAfter time.Duration // from Retry-After / retry-after-ms; 0 when absent
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s: HTTP %d", e.Provider, e.Status)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
}

// RetryIn is the provider's Retry-After (beamclaw.RetryAfterOf).
func (e *StatusError) RetryIn() time.Duration { return e.RetryAfter }

// ErrFirstToken is the cancel cause of an attempt whose first token did
// not arrive in time (Settings.FirstTokenTimeout).
var ErrFirstToken = errors.New("no first token in time")

// ErrBrokenStream is the cause when a stream ends before its answer
// finished.
var ErrBrokenStream = errors.New("stream ended before the answer finished")

// KindForStatus maps an HTTP status and the error body's code and
// message to an error Kind: the reason a chain decides on (a rate limit
// cools the provider down, refused credentials or billing move to the
// next, an overflowing context or a content policy are not retried).
func KindForStatus(status int, code, msg string) beamclaw.Kind {
	lower := strings.ToLower(code + " " + msg)
	switch {
	case status == http.StatusTooManyRequests:
		return beamclaw.KindRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusPaymentRequired:
		return beamclaw.KindUnauthorized
	case status == http.StatusBadRequest && contextOverflow(code, lower):
		return beamclaw.KindTooLarge
	case status == http.StatusBadRequest && (strings.Contains(lower, "content_filter") || strings.Contains(lower, "content_policy") ||
		strings.Contains(lower, "content policy") || strings.Contains(lower, "content management policy")):
		return beamclaw.KindForbidden
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return beamclaw.KindTimeout
	case status == http.StatusRequestEntityTooLarge:
		return beamclaw.KindTooLarge
	case status >= 500:
		return beamclaw.KindUnavailable
	}
	return beamclaw.KindInvalid
}

// contextOverflow reports whether a 400's code or (lower-cased) text
// says the prompt does not fit the model's context: OpenAI's code and
// words, Anthropic's "prompt is too long".
func contextOverflow(code, lower string) bool {
	return code == "context_length_exceeded" || strings.Contains(lower, "maximum context length") ||
		strings.Contains(lower, "prompt is too long")
}

// KindMessage is the user-facing text of an adapter's failure of Kind k.
func KindMessage(k beamclaw.Kind) string {
	switch k {
	case beamclaw.KindRateLimited:
		return "the model provider is rate limiting requests; try again shortly"
	case beamclaw.KindUnauthorized:
		return "the model provider rejected the credentials"
	case beamclaw.KindTimeout:
		return "the model provider did not answer in time"
	case beamclaw.KindTooLarge:
		return "the request is too large for the model provider (its context window is full)"
	case beamclaw.KindForbidden:
		return "the model provider refused the request under its content policy"
	case beamclaw.KindInvalid:
		return "the model provider rejected the request"
	}
	return "the model provider is unavailable"
}

// RetryAfter reads retry-after-ms, then Retry-After (seconds or a date).
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// TransportError classifies a failure to send or read, for provider
// name: a first-token timeout (firstToken is the configured one, for the
// message), a call timeout, a cancelled caller, or an unreachable
// provider.
func TransportError(op, name string, attemptCtx context.Context, firstToken time.Duration, err error) error {
	err = fmt.Errorf("%s: %w", name, err)
	switch {
	case errors.Is(context.Cause(attemptCtx), ErrFirstToken):
		return beamclaw.E(op, beamclaw.KindTimeout, KindMessage(beamclaw.KindTimeout),
			fmt.Errorf("%w (%s): %w", ErrFirstToken, firstToken, err))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(attemptCtx.Err(), context.DeadlineExceeded):
		return beamclaw.E(op, beamclaw.KindTimeout, KindMessage(beamclaw.KindTimeout), err)
	case errors.Is(err, context.Canceled) || attemptCtx.Err() != nil:
		return beamclaw.E(op, beamclaw.KindUnavailable, "the request was cancelled", err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return beamclaw.E(op, beamclaw.KindTimeout, KindMessage(beamclaw.KindTimeout), err)
	}
	return beamclaw.E(op, beamclaw.KindUnavailable, KindMessage(beamclaw.KindUnavailable), err)
}

// Retryable reports whether a failed attempt may be tried again: rate
// limits and unavailability, not timeouts (the chain falls over instead),
// not caller errors.
func Retryable(err error) bool {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindRateLimited, beamclaw.KindUnavailable:
		return true
	}
	return false
}

// Redact removes key (an API key of 8 bytes or more) from
// provider-supplied text.
func Redact(s, key string) string {
	if len(key) >= 8 {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}

// Truncate cuts s to n bytes, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
