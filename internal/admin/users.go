package admin

import (
	"context"
	"net/http"
	"net/url"

	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The users commands go through the running daemon: it holds the
// sessions, the agents' memory of each user and the linked accounts.

// UsersList lists every person the daemon knows.
func (a *Admin) UsersList(ctx context.Context) (protocol.UserList, error) {
	var out protocol.UserList
	return out, a.usersDo(ctx, http.MethodGet, protocol.ControlUsers, nil, &out)
}

// UserShow returns one person (any of their accounts names them) with
// their sessions and their own memory.
func (a *Admin) UserShow(ctx context.Context, user string) (protocol.UserDetail, error) {
	var out protocol.UserDetail
	return out, a.usersDo(ctx, http.MethodGet, protocol.ControlUsers+"?user="+url.QueryEscape(user), nil, &out)
}

// UserExport returns everything kept of one person.
func (a *Admin) UserExport(ctx context.Context, user string) (protocol.UserExport, error) {
	var out protocol.UserExport
	return out, a.usersDo(ctx, http.MethodGet, protocol.ControlUserExport+"?user="+url.QueryEscape(user), nil, &out)
}

// UserForget removes one person's sessions, memory and links.
func (a *Admin) UserForget(ctx context.Context, user string) (protocol.UserForgotten, error) {
	var out protocol.UserForgotten
	return out, a.usersDo(ctx, http.MethodDelete, protocol.ControlUsers+"?user="+url.QueryEscape(user), nil, &out)
}

// UserLinkCode makes a code that links account to another account.
func (a *Admin) UserLinkCode(ctx context.Context, account string) (protocol.LinkCode, error) {
	var out protocol.LinkCode
	return out, a.usersDo(ctx, http.MethodPost, protocol.ControlUserLinkCode, protocol.LinkRequest{Account: account}, &out)
}

// UserLink links account to the person of the account that showed code.
func (a *Admin) UserLink(ctx context.Context, account, code string) (protocol.UserDetail, error) {
	var out protocol.UserDetail
	return out, a.usersDo(ctx, http.MethodPost, protocol.ControlUserLink, protocol.LinkRequest{Account: account, Code: code}, &out)
}

// UserUnlink separates account from the person it is linked to.
func (a *Admin) UserUnlink(ctx context.Context, account string) (protocol.Unlinked, error) {
	var out protocol.Unlinked
	return out, a.usersDo(ctx, http.MethodPost, protocol.ControlUserUnlink, protocol.LinkRequest{Account: account}, &out)
}

func (a *Admin) usersDo(ctx context.Context, method, path string, in, out any) error {
	paths, err := a.paths()
	if err != nil {
		return err
	}
	ok, err := controlDo(ctx, paths.Socket, method, path, in, out)
	if !ok && err == nil {
		return &control.UserError{Msg: "beamclaw users needs the running daemon (it holds the sessions and the links): start it with `beamclaw start`"}
	}
	return err
}
