package control

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// maxBody bounds a control request body.
const maxBody = 64 << 10

// UserError shows a user-facing message while keeping the cause for
// errors.Is and errors.As.
type UserError struct {
	Msg string
	Err error
}

func (e *UserError) Error() string { return e.Msg }
func (e *UserError) Unwrap() error { return e.Err }

// Plain turns a beamclaw.Error that carries a user message (not found,
// invalid, conflict...) into that message alone; other errors pass.
func Plain(err error) error {
	var be *beamclaw.Error
	if err == nil || !errors.As(err, &be) || be.Kind == beamclaw.KindInternal {
		return err
	}
	return &UserError{Msg: beamclaw.UserMessage(err), Err: err}
}

// fail answers err: its own words for the owner's mistakes, a logged
// internal error otherwise.
func (c *handlers) fail(w http.ResponseWriter, err error) {
	status := pairStatus(err)
	switch beamclaw.KindOf(err) {
	case beamclaw.KindInvalid:
		status = http.StatusBadRequest
	case beamclaw.KindNotFound:
		status = http.StatusNotFound
	}
	var ue *UserError
	if status == http.StatusInternalServerError && !errors.As(err, &ue) {
		c.log.Error("control request failed", "err", err)
	}
	writeError(w, status, err.Error())
}

// kindStatus maps an error of the sessions or the scheduler to its
// control-route status.
func kindStatus(err error) int {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindInvalid:
		return http.StatusBadRequest
	case beamclaw.KindForbidden:
		return http.StatusForbidden
	case beamclaw.KindNotFound:
		return http.StatusNotFound
	case beamclaw.KindConflict:
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	code := http.StatusText(status)
	writeJSON(w, status, protocol.Error{Error: protocol.ErrorDetail{Message: msg, Type: "control_error", Code: &code}})
}
