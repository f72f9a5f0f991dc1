package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// statusOverloaded is Anthropic's 529: the API is overloaded.
const statusOverloaded = 529

// failure maps an error of the SDK to a *beamclaw.Error: an API error (an
// error status, or an error event inside the stream) by its status and
// type, anything else as a transport failure of the attempt.
func (c *Client) failure(op string, attemptCtx context.Context, err error) error {
	var ae *sdk.Error
	if !errors.As(err, &ae) {
		return provider.TransportError(op, c.name, attemptCtx, c.firstToken, err)
	}
	typ := string(ae.Type())
	se := &provider.StatusError{Provider: c.name, Status: ae.StatusCode,
		Message: provider.Redact(provider.Truncate(ae.Message, 300), c.apiKey)}
	if ae.StatusCode < 400 { // an error event of a stream that began well
		se.Status = statusOfType(typ)
	} else if ae.Response != nil {
		se.RetryAfter = provider.RetryAfter(ae.Response.Header, c.clock.Now())
	}
	k := kindOf(se.Status, typ, ae.Message)
	return beamclaw.E(op, k, provider.KindMessage(k), se)
}

// kindOf is the Kind of an API error: Anthropic's billing errors (402, or
// a 400 about the credit balance) are refused like credentials; the rest
// as every adapter's (provider.KindForStatus: 429 rate limited, 529 and
// 5xx unavailable, "prompt is too long" an overflowing context).
func kindOf(status int, typ, msg string) beamclaw.Kind {
	if typ == "billing_error" || (status == http.StatusBadRequest && strings.Contains(strings.ToLower(msg), "credit balance")) {
		return beamclaw.KindUnauthorized
	}
	return provider.KindForStatus(status, typ, msg)
}

// statusOfType is the HTTP status of an error type, for an error that
// came as a stream event (its response was a 200).
func statusOfType(typ string) int {
	switch typ {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "billing_error":
		return http.StatusPaymentRequired
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "overloaded_error":
		return statusOverloaded
	}
	return http.StatusInternalServerError
}

// asStatus finds the *provider.StatusError in err's chain.
func asStatus(err error, se **provider.StatusError) bool { return errors.As(err, se) }
