package console

import (
	"net/http"
	"net/url"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (c *Console) approvals(w http.ResponseWriter, r *http.Request) {
	var d protocol.ApprovalList
	c.show(w, r, "approvals", "Approvals", protocol.ControlApprovals, nil, &d)
}

// approvalAnswer answers one approval as the console's user (the
// terminal's person: only approvals asked there are the console's to
// answer); its card becomes the answer.
func (c *Console) approvalAnswer(w http.ResponseWriter, r *http.Request) {
	body := protocol.ApprovalAnswer{Session: r.PostFormValue("session"), Decision: r.PostFormValue("decision")}
	path := protocol.ControlApprovals + "/" + url.PathEscape(r.PathValue("id"))
	var d protocol.ApprovalDecided
	if err := c.call(r.Context(), http.MethodPost, path, body, &d); err != nil {
		c.fail(w, r, statusOf(err), err.Error())
		return
	}
	c.part(w, r, "approvals", "answered", d)
}
