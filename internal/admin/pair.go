package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// pairChannels are the channels that pair strangers.
var pairChannels = []string{"telegram"}

// The pairing commands go through the running daemon's control socket
// (it owns the database); when none runs they open the store themselves.

// PairList returns the pending requests and the approved peers of channel
// ("" = every channel).
func (a *Admin) PairList(ctx context.Context, channel string) (protocol.PairingList, error) {
	if err := checkChannel(channel, true); err != nil {
		return protocol.PairingList{}, err
	}
	paths, err := a.paths()
	if err != nil {
		return protocol.PairingList{}, err
	}
	path := protocol.ControlPairing
	if channel != "" {
		path += "?channel=" + url.QueryEscape(channel)
	}
	var out protocol.PairingList
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, path, nil, &out); ok || err != nil {
		return out, err
	}
	err = withPairing(paths, func(ps *pairing.Store) error {
		out, err = pairList(ps, channel)
		return err
	})
	return out, err
}

// PairApprove approves the pending request with code on channel, binding
// the peer to agent ("" = the channel's default agent).
func (a *Admin) PairApprove(ctx context.Context, req protocol.PairApproveRequest) (protocol.Peer, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.Peer{}, err
	}
	var out protocol.Peer
	if ok, err := controlDo(ctx, paths.Socket, http.MethodPost, protocol.ControlPairingApprove, req, &out); ok || err != nil {
		return out, err
	}
	err = withPairing(paths, func(ps *pairing.Store) error {
		out, err = pairApprove(ps, paths, req)
		return err
	})
	return out, err
}

// PairRevoke removes an approved peer (or a pending request) of channel.
func (a *Admin) PairRevoke(ctx context.Context, req protocol.PairRevokeRequest) error {
	paths, err := a.paths()
	if err != nil {
		return err
	}
	if ok, err := controlDo(ctx, paths.Socket, http.MethodPost, protocol.ControlPairingRevoke, req, nil); ok || err != nil {
		return err
	}
	return withPairing(paths, func(ps *pairing.Store) error { return pairRevoke(ps, req) })
}

// withPairing opens the store for fn when no daemon holds it.
func withPairing(paths config.Paths, fn func(*pairing.Store) error) error {
	db, err := store.Open(paths.DB, store.Options{PIDFile: paths.PIDFile})
	if err != nil {
		return err
	}
	ferr := fn(pairing.New(db, pairing.Options{}))
	if err := db.Close(); err != nil && ferr == nil {
		return fmt.Errorf("close store: %w", err)
	}
	return ferr
}

func checkChannel(channel string, empty bool) error {
	if (empty && channel == "") || slices.Contains(pairChannels, channel) {
		return nil
	}
	return &userError{msg: fmt.Sprintf("unknown channel %q (channels that pair: %s)", channel, strings.Join(pairChannels, ", ")),
		err: pairing.ErrInvalid}
}

func pairList(ps *pairing.Store, channel string) (protocol.PairingList, error) {
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

func pairApprove(ps *pairing.Store, paths config.Paths, req protocol.PairApproveRequest) (protocol.Peer, error) {
	if err := checkChannel(req.Channel, false); err != nil {
		return protocol.Peer{}, err
	}
	if req.Agent != "" {
		ws := workspace.New(paths.AgentsDir, nil)
		ok, err := ws.Exists(req.Agent)
		if err != nil {
			return protocol.Peer{}, plain(err)
		}
		if !ok {
			return protocol.Peer{}, &userError{msg: fmt.Sprintf("no agent named %q (create it with `beamclaw agent create %s`)",
				req.Agent, req.Agent), err: pairing.ErrInvalid}
		}
	}
	p, err := ps.Approve(req.Channel, req.Code, req.Agent)
	if err != nil {
		return protocol.Peer{}, pairError(err)
	}
	return peerWire(p), nil
}

func pairRevoke(ps *pairing.Store, req protocol.PairRevokeRequest) error {
	if err := checkChannel(req.Channel, false); err != nil {
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
		return &userError{msg: "no pending pairing request has that code (see `beamclaw pair list`)", err: err}
	case errors.Is(err, pairing.ErrExpired):
		return &userError{msg: "that pairing code has expired; ask the person to send a new message for a fresh one", err: err}
	case errors.Is(err, pairing.ErrNotPaired):
		return &userError{msg: "no approved peer or pending request with that id (see `beamclaw pair list`)", err: err}
	case errors.Is(err, pairing.ErrInvalid):
		return &userError{msg: "channel and code (or user id) are required", err: err}
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

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
