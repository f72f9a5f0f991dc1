package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

const maxErrorBody = 64 << 10

// statusError reads an error response and returns it with its Kind
// (provider.KindForStatus), a *provider.StatusError its cause.
func (t *transport) statusError(op string, res *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg, code := errorMessage(body)
	se := &provider.StatusError{
		Provider:   t.name,
		Status:     res.StatusCode,
		Message:    t.redact(msg),
		RetryAfter: provider.RetryAfter(res.Header, t.clock.Now()),
	}
	k := provider.KindForStatus(res.StatusCode, code, msg)
	return beamclaw.E(op, k, provider.KindMessage(k), se)
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
			return provider.Truncate(obj.Message, 300), c
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return provider.Truncate(s, 300), ""
		}
	}
	return provider.Truncate(strings.TrimSpace(string(body)), 200), ""
}

// transportError classifies a failure to send or read
// (provider.TransportError).
func (t *transport) transportError(op string, attemptCtx context.Context, err error) error {
	return provider.TransportError(op, t.name, attemptCtx, t.firstToken, err)
}

// redact removes the API key from provider-supplied text.
func (t *transport) redact(s string) string { return provider.Redact(s, t.apiKey) }
