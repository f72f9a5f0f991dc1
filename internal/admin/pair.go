package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The pairing commands go through the running daemon's control socket
// (it owns the database); when none runs they open the store themselves.

// PairList returns the pending requests and the approved peers of channel
// ("" = every channel).
func (a *Admin) PairList(ctx context.Context, channel string) (protocol.PairingList, error) {
	if err := control.CheckChannel(channel, true); err != nil {
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
		out, err = control.PairList(ps, channel)
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
		out, err = control.PairApprove(ps, paths.AgentsDir, req)
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
	return withPairing(paths, func(ps *pairing.Store) error { return control.PairRevoke(ps, req) })
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
