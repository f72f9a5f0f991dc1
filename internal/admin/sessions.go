package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/usage"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The sessions commands go through the running daemon (it owns the
// database and knows which sessions are live); when none runs they read
// the store themselves.

// SessionsList lists stored sessions, most recently active first.
func (a *Admin) SessionsList(ctx context.Context, f protocol.SessionQuery) (protocol.SessionList, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.SessionList{}, err
	}
	q := url.Values{}
	for k, v := range map[string]string{"agent": f.Agent, "user": f.User, "q": f.Search} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Archived {
		q.Set("archived", "1")
	}
	var out protocol.SessionList
	path := protocol.ControlSessions
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, path, nil, &out); ok || err != nil {
		return out, err
	}
	err = withCatalog(paths, func(c *session.Catalog) error {
		sums, err := c.List(filterOf(f))
		out = protocol.SessionList{Sessions: control.SessionsWire(sums)}
		return err
	})
	return out, err
}

// SessionShow returns one session and its history. id may be a unique
// prefix of the id.
func (a *Admin) SessionShow(ctx context.Context, id string) (protocol.SessionDetail, error) {
	paths, id, err := a.sessionAt(ctx, id)
	if err != nil {
		return protocol.SessionDetail{}, err
	}
	var out protocol.SessionDetail
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, protocol.ControlSession+"/"+url.PathEscape(id), nil, &out); ok || err != nil {
		return out, err
	}
	return showStored(paths, id, false)
}

// SessionExport returns what SessionShow does and the tool results the
// session kept whole (id may be a unique prefix).
func (a *Admin) SessionExport(ctx context.Context, id string) (protocol.SessionDetail, error) {
	paths, id, err := a.sessionAt(ctx, id)
	if err != nil {
		return protocol.SessionDetail{}, err
	}
	var out protocol.SessionDetail
	path := protocol.ControlSession + "/" + url.PathEscape(id) + "/export?format=json"
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, path, nil, &out); ok || err != nil {
		return out, err
	}
	return showStored(paths, id, true)
}

// showStored reads session id from the store no daemon holds: its
// history, usage and, with outputs, the tool results it kept whole.
func showStored(paths config.Paths, id string, outputs bool) (protocol.SessionDetail, error) {
	var out protocol.SessionDetail
	err := withCatalog(paths, func(c *session.Catalog) error {
		sum, hist, err := c.Show(id)
		if err != nil {
			return sessionError(err)
		}
		out = control.DetailWire(sum, hist)
		if !outputs {
			return nil
		}
		outs, err := c.Outputs(id)
		out.Outputs = control.OutputsWire(outs)
		return err
	})
	if err != nil {
		return out, err
	}
	err = withStore(paths, func(db *store.DB) error {
		l, err := usage.New(db, nil, nil)
		if err != nil {
			return err
		}
		use, err := control.SessionUsage(l, out.Session.ID)
		out.Usage = use[out.Session.ID]
		return err
	})
	return out, err
}

// SessionDelete deletes a session and its history (id may be a unique
// prefix).
func (a *Admin) SessionDelete(ctx context.Context, id string) (string, error) {
	paths, id, err := a.sessionAt(ctx, id)
	if err != nil {
		return "", err
	}
	if ok, err := controlDo(ctx, paths.Socket, http.MethodDelete, protocol.ControlSession+"/"+url.PathEscape(id), nil, nil); ok || err != nil {
		return id, err
	}
	return id, withCatalog(paths, func(c *session.Catalog) error { return sessionError(c.Delete(id)) })
}

// SessionReset empties a session's history as the chat's /reset does
// (id may be a unique prefix). Only the running daemon resets: it holds
// the live session a reset must reach.
func (a *Admin) SessionReset(ctx context.Context, id string) (string, error) {
	paths, id, err := a.sessionAt(ctx, id)
	if err != nil {
		return "", err
	}
	ok, err := controlDo(ctx, paths.Socket, http.MethodPost, protocol.ControlSession+"/"+url.PathEscape(id)+"/reset", nil, nil)
	if !ok && err == nil {
		return "", &control.UserError{Msg: "no daemon is running: a reset needs it (beamclaw start), or delete the session instead",
			Err: errNoDaemonToReset}
	}
	return id, err
}

var errNoDaemonToReset = errors.New("no daemon to reset a session")

// sessionAt is the paths of the configured home and the whole id of
// session id (a unique prefix).
func (a *Admin) sessionAt(ctx context.Context, id string) (config.Paths, string, error) {
	paths, err := a.paths()
	if err != nil {
		return config.Paths{}, "", err
	}
	id, err = a.resolveSession(ctx, id)
	return paths, id, err
}

// resolveSession turns a unique prefix ("session-3fa9", "3fa9") into the
// whole id.
func (a *Admin) resolveSession(ctx context.Context, id string) (string, error) {
	if len(id) == len("session-")+64 {
		return id, nil
	}
	all, err := a.SessionsList(ctx, protocol.SessionQuery{Archived: true})
	if err != nil {
		return "", err
	}
	want := id
	if !strings.HasPrefix(want, "session-") {
		want = "session-" + want
	}
	var found []string
	for _, s := range all.Sessions {
		if strings.HasPrefix(s.ID, want) {
			found = append(found, s.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", &control.UserError{Msg: "no session " + id + " (see `beamclaw sessions list --archived`)", Err: errNoSession}
	}
	return "", &control.UserError{Msg: "session " + id + " is ambiguous: give more of its id", Err: errNoSession}
}

var errNoSession = errors.New("no such session")

func withCatalog(paths config.Paths, fn func(*session.Catalog) error) error {
	return withStore(paths, func(db *store.DB) error {
		c, err := session.OpenCatalog(db)
		if err != nil {
			return err
		}
		return fn(c)
	})
}

func sessionError(err error) error {
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		return &control.UserError{Msg: "no such session (see `beamclaw sessions list --archived`)", Err: errNoSession}
	}
	return err
}

func filterOf(f protocol.SessionQuery) session.Filter {
	return session.Filter{UserID: f.User, AgentID: f.Agent, Archived: f.Archived, Text: f.Search}
}
