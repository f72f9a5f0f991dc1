package control

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// pairChannels are the channels that pair strangers.
var pairChannels = []string{"telegram"}

func (c *handlers) pairList(w http.ResponseWriter, r *http.Request) {
	channel := r.URL.Query().Get("channel")
	if err := CheckChannel(channel, true); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	out, err := PairList(c.pairing, channel)
	if err != nil {
		c.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *handlers) pairApprove(w http.ResponseWriter, r *http.Request) {
	var req protocol.PairApproveRequest
	if !decodeBody(w, r, &req) {
		return
	}
	peer, err := PairApprove(c.pairing, c.agentsDir, req)
	if err != nil {
		c.fail(w, err)
		return
	}
	c.log.Info("pairing approved", "channel", peer.Channel, "user_id", peer.UserID, "agent", peer.Agent)
	writeJSON(w, http.StatusOK, peer)
}

func (c *handlers) pairRevoke(w http.ResponseWriter, r *http.Request) {
	var req protocol.PairRevokeRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if err := PairRevoke(c.pairing, req); err != nil {
		c.fail(w, err)
		return
	}
	c.log.Info("pairing revoked", "channel", req.Channel, "user_id", req.UserID)
	w.WriteHeader(http.StatusNoContent)
}

// CheckChannel refuses a channel that does not pair strangers ("" is
// every channel when empty is true).
func CheckChannel(channel string, empty bool) error {
	if (empty && channel == "") || slices.Contains(pairChannels, channel) {
		return nil
	}
	return &UserError{Msg: fmt.Sprintf("unknown channel %q (channels that pair: %s)", channel, strings.Join(pairChannels, ", ")),
		Err: pairing.ErrInvalid}
}

// PairList is the pending requests and the approved peers of channel
// ("" = every channel).
func PairList(ps *pairing.Store, channel string) (protocol.PairingList, error) {
	pending, err := ps.ListPending(channel)
	if err != nil {
		return protocol.PairingList{}, err
	}
	approved, err := ps.ListApproved(channel)
	if err != nil {
		return protocol.PairingList{}, err
	}
	out := protocol.PairingList{Pending: make([]protocol.PairingRequest, 0, len(pending)),
		Approved: make([]protocol.Peer, 0, len(approved))}
	for _, p := range pending {
		out.Pending = append(out.Pending, protocol.PairingRequest{Channel: p.Channel, UserID: p.UserID, Name: p.Name,
			CreatedAt: stamp(p.CreatedAt), ExpiresAt: stamp(p.ExpiresAt)})
	}
	for _, p := range approved {
		out.Approved = append(out.Approved, peerWire(p))
	}
	return out, nil
}

// PairApprove approves the pending request with req's code, binding the
// peer to req.Agent, which must be an agent in agentsDir ("" = the
// channel's default agent).
func PairApprove(ps *pairing.Store, agentsDir string, req protocol.PairApproveRequest) (protocol.Peer, error) {
	if err := CheckChannel(req.Channel, false); err != nil {
		return protocol.Peer{}, err
	}
	if req.Agent != "" {
		ws := workspace.New(agentsDir, nil)
		ok, err := ws.Exists(req.Agent)
		if err != nil {
			return protocol.Peer{}, Plain(err)
		}
		if !ok {
			return protocol.Peer{}, &UserError{Msg: fmt.Sprintf("no agent named %q (create it with `beamclaw agent create %s`)",
				req.Agent, req.Agent), Err: pairing.ErrInvalid}
		}
	}
	p, err := ps.Approve(req.Channel, req.Code, req.Agent)
	if err != nil {
		return protocol.Peer{}, pairError(err)
	}
	return peerWire(p), nil
}

// PairRevoke removes an approved peer (or a pending request).
func PairRevoke(ps *pairing.Store, req protocol.PairRevokeRequest) error {
	if err := CheckChannel(req.Channel, false); err != nil {
		return err
	}
	return pairError(ps.Revoke(req.Channel, req.UserID))
}

// pairError words the pairing store's errors for the owner.
func pairError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pairing.ErrUnknownCode):
		return &UserError{Msg: "no pending pairing request has that code (see `beamclaw pair list`)", Err: err}
	case errors.Is(err, pairing.ErrExpired):
		return &UserError{Msg: "that pairing code has expired; ask the person to send a new message for a fresh one", Err: err}
	case errors.Is(err, pairing.ErrNotPaired):
		return &UserError{Msg: "no approved peer or pending request with that id (see `beamclaw pair list`)", Err: err}
	case errors.Is(err, pairing.ErrInvalid):
		return &UserError{Msg: "channel and code (or user id) are required", Err: err}
	}
	return err
}

// pairStatus maps a pairing error to its HTTP status on the control route.
func pairStatus(err error) int {
	switch {
	case errors.Is(err, pairing.ErrUnknownCode), errors.Is(err, pairing.ErrNotPaired):
		return http.StatusNotFound
	case errors.Is(err, pairing.ErrExpired):
		return http.StatusGone
	case errors.Is(err, pairing.ErrInvalid):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func peerWire(p pairing.Peer) protocol.Peer {
	return protocol.Peer{Channel: p.Channel, UserID: p.UserID, Name: p.Name, Agent: p.Agent, ApprovedAt: stamp(p.ApprovedAt)}
}

// stamp is a time on the wire (RFC 3339, UTC).
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
