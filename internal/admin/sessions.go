package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Sessions is what the control routes need of the running daemon's
// sessions (*session.Manager).
type Sessions interface {
	List(f session.Filter) ([]session.Summary, error)
	Show(id string) (session.Summary, []beamclaw.Message, error)
	Delete(ctx context.Context, id string) error
}

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
		out = protocol.SessionList{Sessions: sessionsWire(sums)}
		return err
	})
	return out, err
}

// SessionShow returns one session and its history. id may be a unique
// prefix of the id.
func (a *Admin) SessionShow(ctx context.Context, id string) (protocol.SessionDetail, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.SessionDetail{}, err
	}
	id, err = a.resolveSession(ctx, id)
	if err != nil {
		return protocol.SessionDetail{}, err
	}
	var out protocol.SessionDetail
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, protocol.ControlSession+"/"+url.PathEscape(id), nil, &out); ok || err != nil {
		return out, err
	}
	err = withCatalog(paths, func(c *session.Catalog) error {
		sum, hist, err := c.Show(id)
		out = detailWire(sum, hist)
		return sessionError(err)
	})
	return out, err
}

// SessionDelete deletes a session and its history (id may be a unique
// prefix).
func (a *Admin) SessionDelete(ctx context.Context, id string) (string, error) {
	paths, err := a.paths()
	if err != nil {
		return "", err
	}
	id, err = a.resolveSession(ctx, id)
	if err != nil {
		return "", err
	}
	if ok, err := controlDo(ctx, paths.Socket, http.MethodDelete, protocol.ControlSession+"/"+url.PathEscape(id), nil, nil); ok || err != nil {
		return id, err
	}
	return id, withCatalog(paths, func(c *session.Catalog) error { return sessionError(c.Delete(id)) })
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
		return "", &userError{msg: "no session " + id + " (see `beamclaw sessions list --archived`)", err: errNoSession}
	}
	return "", &userError{msg: "session " + id + " is ambiguous: give more of its id", err: errNoSession}
}

var errNoSession = errors.New("no such session")

func withCatalog(paths config.Paths, fn func(*session.Catalog) error) error {
	db, err := store.Open(paths.DB, store.Options{PIDFile: paths.PIDFile})
	if err != nil {
		return err
	}
	c, err := session.OpenCatalog(db)
	if err == nil {
		err = fn(c)
	}
	if cerr := db.Close(); cerr != nil && err == nil {
		return cerr
	}
	return err
}

func sessionError(err error) error {
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		return &userError{msg: "no such session (see `beamclaw sessions list --archived`)", err: errNoSession}
	}
	return err
}

func filterOf(f protocol.SessionQuery) session.Filter {
	return session.Filter{UserID: f.User, AgentID: f.Agent, Archived: f.Archived, Text: f.Search}
}

func sessionsWire(sums []session.Summary) []protocol.SessionInfo {
	out := make([]protocol.SessionInfo, 0, len(sums))
	for _, s := range sums {
		out = append(out, gateway.WireSession(s))
	}
	return out
}

func detailWire(s session.Summary, hist []beamclaw.Message) protocol.SessionDetail {
	return protocol.SessionDetail{Session: gateway.WireSession(s), Messages: gateway.WireHistory(hist)}
}

// Control routes.

func (c *control) sessionsList(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		controlError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	q := r.URL.Query()
	sums, err := c.sessions.List(session.Filter{AgentID: q.Get("agent"), UserID: q.Get("user"),
		Archived: q.Get("archived") == "1", Text: q.Get("q")})
	if err != nil {
		controlError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	controlJSON(w, http.StatusOK, protocol.SessionList{Sessions: sessionsWire(sums)})
}

func (c *control) sessionShow(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		controlError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	sum, hist, err := c.sessions.Show(sessionIDOf(r))
	if err != nil {
		controlError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	controlJSON(w, http.StatusOK, detailWire(sum, hist))
}

func (c *control) sessionDelete(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		controlError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	if err := c.sessions.Delete(r.Context(), sessionIDOf(r)); err != nil {
		controlError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// kindStatus maps a session error to its control-route status.
func kindStatus(err error) int {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindNotFound:
		return http.StatusNotFound
	case beamclaw.KindConflict:
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// sessionIDOf is the {id} of a /control/sessions/{id} route.
func sessionIDOf(r *http.Request) string {
	id := strings.TrimPrefix(r.URL.Path, protocol.ControlSession+"/")
	if u, err := url.PathUnescape(id); err == nil {
		return u
	}
	return id
}
