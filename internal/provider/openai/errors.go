package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// StatusError is an HTTP error answer from a provider. It is the cause
// (Err) of the *beamclaw.Error a call returns; find it with errors.As.
type StatusError struct {
	Provider   string
	Status     int
	Message    string        // the provider's error.message (or the start of its body)
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

// errFirstToken is the cancel cause when no token arrived in time.
var errFirstToken = errors.New("no first token in time")

// errBrokenStream is the cause when a stream ends before it finished.
var errBrokenStream = errors.New("stream ended before the answer finished")

const maxErrorBody = 64 << 10

// kindForStatus maps an HTTP status and the error body's code and
// message to an error Kind: the reason a chain decides on (a rate limit
// cools the provider down, refused credentials or billing move to the
// next, an overflowing context or a content policy are not retried).
func kindForStatus(status int, code, msg string) beamclaw.Kind {
	lower := strings.ToLower(code + " " + msg)
	switch {
	case status == http.StatusTooManyRequests:
		return beamclaw.KindRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusPaymentRequired:
		return beamclaw.KindUnauthorized
	case status == http.StatusBadRequest && (code == "context_length_exceeded" || strings.Contains(lower, "maximum context length")):
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

// userMessage is the user-facing text for each Kind this package returns.
func userMessage(k beamclaw.Kind) string {
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

// statusError reads an error response and returns it with its Kind.
func (t *transport) statusError(op string, res *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg, code := errorMessage(body)
	se := &StatusError{
		Provider:   t.name,
		Status:     res.StatusCode,
		Message:    t.redact(msg),
		RetryAfter: retryAfter(res.Header, t.clock.Now()),
	}
	k := kindForStatus(res.StatusCode, code, msg)
	return beamclaw.E(op, k, userMessage(k), se)
}

// errorMessage extracts error.message and error.code from an
// OpenAI-style error body (or the "error" string some servers send),
// else the start of the body.
func errorMessage(body []byte) (msg, code string) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			var c string
			_ = json.Unmarshal(obj.Code, &c)
			return truncate(obj.Message, 300), c
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return truncate(s, 300), ""
		}
	}
	return truncate(strings.TrimSpace(string(body)), 200), ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// retryAfter reads retry-after-ms, then Retry-After (seconds or a date).
func retryAfter(h http.Header, now time.Time) time.Duration {
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

// transportError classifies a failure to send or read: a first-token or
// call timeout, a cancelled caller, or an unreachable provider.
func (t *transport) transportError(op string, attemptCtx context.Context, err error) error {
	err = fmt.Errorf("%s: %w", t.name, err)
	switch {
	case errors.Is(context.Cause(attemptCtx), errFirstToken):
		return beamclaw.E(op, beamclaw.KindTimeout, userMessage(beamclaw.KindTimeout),
			fmt.Errorf("%w (%s): %w", errFirstToken, t.firstToken, err))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(attemptCtx.Err(), context.DeadlineExceeded):
		return beamclaw.E(op, beamclaw.KindTimeout, userMessage(beamclaw.KindTimeout), err)
	case errors.Is(err, context.Canceled) || attemptCtx.Err() != nil:
		return beamclaw.E(op, beamclaw.KindUnavailable, "the request was cancelled", err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return beamclaw.E(op, beamclaw.KindTimeout, userMessage(beamclaw.KindTimeout), err)
	}
	return beamclaw.E(op, beamclaw.KindUnavailable, userMessage(beamclaw.KindUnavailable), err)
}

// retryable reports whether a failed attempt may be tried again: rate
// limits and unavailability, not timeouts (the chain falls over instead),
// not caller errors.
func retryable(err error) bool {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindRateLimited, beamclaw.KindUnavailable:
		return true
	}
	return false
}

// redact removes the API key from provider-supplied text.
func (t *transport) redact(s string) string {
	if len(t.apiKey) >= 8 {
		s = strings.ReplaceAll(s, t.apiKey, "[redacted]")
	}
	return s
}
