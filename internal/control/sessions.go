package control

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Sessions is what the control routes need of the running daemon's
// sessions (*session.Manager).
type Sessions interface {
	List(f session.Filter) ([]session.Summary, error)
	Show(id string) (session.Summary, []beamclaw.Message, error)
	Delete(ctx context.Context, id string) error
}

// SessionsWire is the wire form of session summaries.
func SessionsWire(sums []session.Summary) []protocol.SessionInfo {
	out := make([]protocol.SessionInfo, 0, len(sums))
	for _, s := range sums {
		out = append(out, gateway.WireSession(s))
	}
	return out
}

// DetailWire is the wire form of a session and its history.
func DetailWire(s session.Summary, hist []beamclaw.Message) protocol.SessionDetail {
	return protocol.SessionDetail{Session: gateway.WireSession(s), Messages: gateway.WireHistory(hist)}
}

func (c *handlers) sessionsList(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	q := r.URL.Query()
	sums, err := c.sessions.List(session.Filter{AgentID: q.Get("agent"), UserID: q.Get("user"),
		Archived: q.Get("archived") == "1", Text: q.Get("q")})
	if err != nil {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, protocol.SessionList{Sessions: SessionsWire(sums)})
}

func (c *handlers) sessionShow(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	sum, hist, err := c.sessions.Show(sessionIDOf(r))
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, DetailWire(sum, hist))
}

func (c *handlers) sessionDelete(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	id := sessionIDOf(r)
	gone, _, err := c.sessions.Show(id)
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	if err := c.sessions.Delete(r.Context(), id); err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	c.forgetIfLast(r.Context(), gone)
	w.WriteHeader(http.StatusNoContent)
}

// forgetIfLast removes the user's own memory at the agent of the deleted
// session once no other session of theirs with that agent is left: a
// user who deleted every conversation with an agent is forgotten by it.
func (c *handlers) forgetIfLast(ctx context.Context, gone session.Summary) {
	if c.memory == nil {
		return
	}
	left, err := c.sessions.List(session.Filter{UserID: gone.UserID, AgentID: gone.AgentID, Archived: true})
	if err != nil || slices.ContainsFunc(left, func(s session.Summary) bool { return s.ID != gone.ID }) {
		return
	}
	if had, err := c.memory.ForgetMemoryAt(ctx, gone.AgentID, gone.UserID); err != nil {
		c.log.Warn("forget the memory of a deleted session's user", "agent", gone.AgentID, "err", err)
	} else if had {
		c.log.Info("user's memory forgotten with their last session", "agent", gone.AgentID)
	}
}

// sessionIDOf is the {id} of a /control/sessions/{id} route.
func sessionIDOf(r *http.Request) string {
	id := strings.TrimPrefix(r.URL.Path, protocol.ControlSession+"/")
	if u, err := url.PathUnescape(id); err == nil {
		return u
	}
	return id
}
