package control

import (
	"context"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// A2ATasks are the A2A edge's tasks as the operator sees them, every
// caller's (*a2a.Server).
type A2ATasks interface {
	Tasks(ctx context.Context, agent, state string, limit int) ([]protocol.A2ATask, error)
	Task(ctx context.Context, id string) (protocol.A2ATask, error)
}

func (c *handlers) a2aOff(w http.ResponseWriter) bool {
	if c.a2a == nil {
		writeError(w, http.StatusNotFound, "the A2A edge is off (a2a.enabled: false, or no token to check)")
		return true
	}
	return false
}

// a2aTaskList answers every caller's tasks, newest first (?agent, state,
// limit).
func (c *handlers) a2aTaskList(w http.ResponseWriter, r *http.Request) {
	if c.a2aOff(w) {
		return
	}
	q := r.URL.Query()
	limit, err := limitOf(q)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	tasks, err := c.a2a.Tasks(r.Context(), q.Get("agent"), q.Get("state"), limit)
	if err != nil {
		c.failKind(w, err)
		return
	}
	writeJSON(w, http.StatusOK, protocol.A2ATaskList{Tasks: tasks})
}

// a2aTaskShow answers one task with its history and artifacts.
func (c *handlers) a2aTaskShow(w http.ResponseWriter, r *http.Request) {
	if c.a2aOff(w) {
		return
	}
	t, err := c.a2a.Task(r.Context(), idAfter(r, protocol.ControlA2ATasks))
	if err != nil {
		c.failKind(w, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// failKind answers err by its Kind, in its user message; an internal
// failure is logged.
func (c *handlers) failKind(w http.ResponseWriter, err error) {
	status := kindStatus(err)
	if status == http.StatusInternalServerError {
		c.log.Error("control request failed", "err", err)
	}
	writeError(w, status, beamclaw.UserMessage(err))
}
