package gateway

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// statusOf maps an error Kind to an HTTP status, once, at the edge.
func statusOf(k beamclaw.Kind) int {
	switch k {
	case beamclaw.KindInvalid:
		return http.StatusBadRequest
	case beamclaw.KindNotFound:
		return http.StatusNotFound
	case beamclaw.KindUnauthorized:
		return http.StatusUnauthorized
	case beamclaw.KindForbidden:
		return http.StatusForbidden
	case beamclaw.KindConflict:
		return http.StatusConflict
	case beamclaw.KindRateLimited:
		return http.StatusTooManyRequests
	case beamclaw.KindUnavailable:
		return http.StatusBadGateway
	case beamclaw.KindTimeout:
		return http.StatusGatewayTimeout
	case beamclaw.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case beamclaw.KindStorage:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errType is OpenAI's error "type" for a status.
func errType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusConflict,
		http.StatusUnprocessableEntity:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	}
	return "api_error"
}

// storageRetryAfter is the Retry-After, in seconds, of a 503: the
// database could not be written; a retry after space is freed works.
const storageRetryAfter = "10"

// writeError is the one way an error leaves the gateway: OpenAI's error
// JSON with the status its Kind maps to and a message safe for users.
func writeError(w http.ResponseWriter, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = beamclaw.E("gateway", beamclaw.KindTooLarge, "request body too large", err)
	}
	status := statusOf(beamclaw.KindOf(err))
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", storageRetryAfter)
	}
	writeErrorStatus(w, status, beamclaw.UserMessage(err), "")
}

func writeErrorStatus(w http.ResponseWriter, status int, msg, code string) {
	writeJSON(w, status, errorBody(status, msg, code, ""))
}

// errorBody is OpenAI's error object; code and param are null when empty.
func errorBody(status int, msg, code, param string) protocol.Error {
	body := protocol.Error{Error: protocol.ErrorDetail{Message: msg, Type: errType(status)}}
	if code != "" {
		body.Error.Code = &code
	}
	if param != "" {
		body.Error.Param = &param
	}
	return body
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeRunError answers a run that failed: 429 with Retry-After when every
// provider was rate limiting, 504 when none answered in time, 503 with
// Retry-After when its messages could not be stored, otherwise 502 (an
// upstream's refusal is not the client's fault).
func writeRunError(w http.ResponseWriter, ev beamclaw.RunEvent) {
	status := runStatus(ev)
	code := ""
	switch status {
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", retryAfterSeconds(ev.RetryAfter))
		if ev.Kind == beamclaw.KindBudget {
			code = "budget_exceeded"
		}
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", storageRetryAfter)
	}
	writeErrorStatus(w, status, ev.Text, code)
}

// runStatus is the status of a run's error event.
func runStatus(ev beamclaw.RunEvent) int {
	switch ev.Kind {
	case beamclaw.KindRateLimited, beamclaw.KindBudget:
		return http.StatusTooManyRequests
	case beamclaw.KindTimeout:
		return http.StatusGatewayTimeout
	case beamclaw.KindStorage:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadGateway
}

// defaultRetryAfter is what a 429 says when the provider did not.
const defaultRetryAfter = 20 * time.Second

// retryAfterSeconds is a Retry-After value: whole seconds, at least one.
func retryAfterSeconds(d time.Duration) string {
	if d <= 0 {
		d = defaultRetryAfter
	}
	return strconv.Itoa(max(int((d+time.Second-1)/time.Second), 1))
}
