package control

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// argsShown is how much of a pending call's arguments the list shows.
const argsShown = 200

// approvalsList answers the approvals waiting in every live session, their
// arguments scrubbed.
func (c *handlers) approvalsList(w http.ResponseWriter, _ *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	list := protocol.ApprovalList{Approvals: []protocol.PendingApproval{}}
	for _, p := range c.sessions.Pending() {
		list.Approvals = append(list.Approvals, protocol.PendingApproval{ID: p.Request.ID, Session: p.Session, Agent: p.Agent,
			User: p.User, Channel: string(p.Channel), Tool: p.Request.ToolName, Args: protocol.OneLine(c.scrub(p.Request.Args), argsShown),
			Risk: p.Request.Risk, Asked: p.Asked.UTC(), Answerable: p.Local})
	}
	writeJSON(w, http.StatusOK, list)
}

// approvalDecide answers one approval for the operator holding this API:
// as the terminal it was asked on would (session.Manager.DecideLocal).
func (c *handlers) approvalDecide(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	var req protocol.ApprovalAnswer
	if !decodeBody(w, r, &req) {
		return
	}
	d, ok := decisionOf(req.Decision)
	switch {
	case req.Session == "":
		writeError(w, http.StatusBadRequest, "session is required: the session the approval waits in")
		return
	case !ok:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("decision %q: want yes, no or always", req.Decision))
		return
	}
	id := idAfter(r, protocol.ControlApprovals)
	if err := c.sessions.DecideLocal(r.Context(), req.Session, id, d); err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, protocol.ApprovalDecided{ID: id, Session: req.Session, Decision: string(d)})
}

// decisionOf reads yes, no or always (or the /ws frame's allow and deny).
func decisionOf(s string) (beamclaw.Decision, bool) {
	if strings.HasPrefix(s, "/") {
		return "", false
	}
	return beamclaw.ParseDecision(strings.ToLower(strings.TrimSpace(s)))
}
