package control

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/agent"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/people"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Memory is what the users routes need of the agents' memory
// (*agent.Runtime): the users who have memory of their own, and their
// export and removal.
type Memory interface {
	MemoryUsers() (map[string][]string, error)
	ExportMemory(ctx context.Context, user string) ([]agent.UserMemory, error)
	ForgetMemory(ctx context.Context, user string) ([]string, error)
	ForgetMemoryAt(ctx context.Context, agentID, user string) (bool, error)
}

func (c *handlers) userRoutes() []gateway.Mount {
	return []gateway.Mount{
		{Method: http.MethodGet, Pattern: protocol.ControlUsers, Handler: http.HandlerFunc(c.usersGet)},
		{Method: http.MethodDelete, Pattern: protocol.ControlUsers, Handler: http.HandlerFunc(c.userForget)},
		{Method: http.MethodGet, Pattern: protocol.ControlUserExport, Handler: http.HandlerFunc(c.userExport)},
		{Method: http.MethodPost, Pattern: protocol.ControlUserLinkCode, Handler: http.HandlerFunc(c.userLinkCode)},
		{Method: http.MethodPost, Pattern: protocol.ControlUserLink, Handler: http.HandlerFunc(c.userLink)},
		{Method: http.MethodPost, Pattern: protocol.ControlUserUnlink, Handler: http.HandlerFunc(c.userUnlink)},
	}
}

// usersReady answers 404 unless the daemon has sessions, memory and links.
func (c *handlers) usersReady(w http.ResponseWriter) bool {
	if c.sessions == nil || c.memory == nil || c.links == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no users")
		return false
	}
	return true
}

// people gathers every person: those with sessions, with memory of their
// own, or with linked accounts; with every stored session, read once for
// the request.
func (c *handlers) people() (map[string]*protocol.UserInfo, []session.Summary, error) {
	sums, err := c.sessions.List(session.Filter{Archived: true})
	if err != nil {
		return nil, nil, err
	}
	mem, err := c.memory.MemoryUsers()
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*protocol.UserInfo{}
	get := func(id string) *protocol.UserInfo {
		if u, ok := out[id]; ok {
			return u
		}
		u := &protocol.UserInfo{ID: id}
		out[id] = u
		return u
	}
	for _, s := range sums { // a linked account's sessions are its person's
		u := get(c.links.Resolve(s.UserID))
		u.Sessions++
		if s.Updated.After(u.Updated) {
			u.Updated = s.Updated
		}
	}
	for id, agents := range mem {
		u := get(c.links.Resolve(id))
		for _, a := range agents {
			if !slices.Contains(u.Memory, a) {
				u.Memory = append(u.Memory, a)
			}
		}
		slices.Sort(u.Memory)
	}
	for account, person := range c.links.All() {
		u := get(person)
		u.Accounts = append(u.Accounts, account)
		slices.Sort(u.Accounts)
	}
	return out, sums, nil
}

func (c *handlers) usersGet(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("user") != "" {
		c.userShow(w, r)
		return
	}
	if !c.usersReady(w) {
		return
	}
	all, _, err := c.people()
	if err != nil {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	list := protocol.UserList{Users: make([]protocol.UserInfo, 0, len(all))}
	for _, u := range all {
		list.Users = append(list.Users, *u)
	}
	slices.SortFunc(list.Users, func(a, b protocol.UserInfo) int { return strings.Compare(a.ID, b.ID) })
	writeJSON(w, http.StatusOK, list)
}

// requested finds the person the request's ?user= names (any account of
// theirs), with every stored session, answering the error itself when
// there is none.
func (c *handlers) requested(w http.ResponseWriter, r *http.Request) (*protocol.UserInfo, []session.Summary, bool) {
	if !c.usersReady(w) {
		return nil, nil, false
	}
	all, sums, err := c.people()
	if err != nil {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return nil, nil, false
	}
	id := r.URL.Query().Get("user")
	u, ok := all[c.links.Resolve(id)]
	if !ok {
		writeError(w, http.StatusNotFound, "no user "+id+" (beamclaw users list shows them)")
	}
	return u, sums, ok
}

func (c *handlers) userShow(w http.ResponseWriter, r *http.Request) {
	u, sums, ok := c.requested(w, r)
	if !ok {
		return
	}
	d, err := c.userData(r.Context(), u, sums, false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, protocol.UserDetail{User: d.User, Sessions: sessionInfos(d.Sessions), Memory: d.Memory})
}

func sessionInfos(ds []protocol.SessionDetail) []protocol.SessionInfo {
	out := make([]protocol.SessionInfo, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.Session)
	}
	return out
}

// userData collects a person's sessions (with their history and the
// tool results they kept whole when history) and their own memory, those
// of every account of theirs.
func (c *handlers) userData(ctx context.Context, u *protocol.UserInfo, sums []session.Summary, history bool) (protocol.UserExport, error) {
	out := protocol.UserExport{User: *u, Exported: c.clock.Now().UTC(), Sessions: []protocol.SessionDetail{}, Memory: []protocol.UserAgentMemory{}}
	accounts := c.links.Accounts(u.ID)
	sums = slices.DeleteFunc(slices.Clone(sums), func(s session.Summary) bool { return !slices.Contains(accounts, s.UserID) })
	var use map[string]*protocol.UsageRow
	if history {
		ids := make([]string, len(sums))
		for i, s := range sums {
			ids[i] = s.ID
		}
		var err error
		if use, err = SessionUsage(c.ledger, ids...); err != nil {
			return out, err
		}
	}
	for _, s := range sums {
		d := protocol.SessionDetail{Session: SessionsWire([]session.Summary{s})[0]}
		if history {
			var err error
			if d, err = c.detailWith(s.ID, true, use); err != nil {
				return out, err
			}
		}
		out.Sessions = append(out.Sessions, d)
	}
	for _, account := range accounts {
		if err := c.exportMemory(ctx, &out, account, account != u.ID); err != nil {
			return out, err
		}
	}
	return out, nil
}

// exportMemory adds account's own memory to out (named, when linked).
func (c *handlers) exportMemory(ctx context.Context, out *protocol.UserExport, account string, linked bool) error {
	mems, err := c.memory.ExportMemory(ctx, account)
	if err != nil {
		return err
	}
	for _, m := range mems {
		am := protocol.UserAgentMemory{Agent: m.Agent, Files: map[string]string{}, DailyLogs: map[string]string{}}
		if linked {
			am.Account = account
		}
		for f, text := range m.Files {
			am.Files[f] = c.scrub(text)
		}
		for d, text := range m.Daily {
			am.DailyLogs[d] = c.scrub(text)
		}
		for _, e := range m.Notes {
			am.Notes = append(am.Notes, protocol.UserNote{Key: e.Key, Value: c.scrub(e.Value), Category: string(e.Category), Updated: e.UpdatedAt})
		}
		out.Memory = append(out.Memory, am)
	}
	return nil
}

func (c *handlers) userExport(w http.ResponseWriter, r *http.Request) {
	u, sums, ok := c.requested(w, r)
	if !ok {
		return
	}
	d, err := c.userData(r.Context(), u, sums, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// userForget removes what is kept of the named user: named by a person's
// own id, every session, own memory and link of all their accounts;
// named by an account linked to a person, that account's own sessions
// and memory, and its link (the person keeps theirs).
func (c *handlers) userForget(w http.ResponseWriter, r *http.Request) {
	u, sums, ok := c.requested(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	named := r.URL.Query().Get("user")
	accounts := c.links.Accounts(u.ID)
	if named != u.ID {
		accounts = []string{named}
	}
	res := protocol.UserForgotten{User: named}
	if err := c.forgetAccounts(ctx, accounts, sums, &res); err != nil {
		writeError(w, kindStatus(err), "forgot "+strconv.Itoa(res.Sessions)+" sessions, then: "+beamclaw.UserMessage(err))
		return
	}
	gone, err := c.links.Unlink(ctx, named)
	if err != nil && !errors.Is(err, people.ErrNotLinked) {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	res.Unlinked = gone
	c.log.Info("user forgotten", "user", named, "sessions", res.Sessions, "agents", len(res.Memory))
	writeJSON(w, http.StatusOK, res)
}

// forgetAccounts deletes the sessions and own memory of accounts.
func (c *handlers) forgetAccounts(ctx context.Context, accounts []string, sums []session.Summary, res *protocol.UserForgotten) error {
	for _, s := range sums {
		if !slices.Contains(accounts, s.UserID) {
			continue
		}
		if err := c.sessions.Delete(ctx, s.ID); err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
			return err
		}
		res.Sessions++
	}
	for _, a := range accounts {
		agents, err := c.memory.ForgetMemory(ctx, a)
		if err != nil {
			return err
		}
		for _, ag := range agents {
			if !slices.Contains(res.Memory, ag) {
				res.Memory = append(res.Memory, ag)
			}
		}
	}
	return nil
}

func (c *handlers) userLinkCode(w http.ResponseWriter, r *http.Request) {
	var req protocol.LinkRequest
	if !c.usersReady(w) || !decodeBody(w, r, &req) {
		return
	}
	code, exp, err := c.links.Issue(r.Context(), req.Account)
	if err != nil {
		writeError(w, linkStatus(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, protocol.LinkCode{Account: req.Account, Code: code, Expires: exp})
}

func (c *handlers) userLink(w http.ResponseWriter, r *http.Request) {
	var req protocol.LinkRequest
	if !c.usersReady(w) || !decodeBody(w, r, &req) {
		return
	}
	person, err := c.links.Redeem(r.Context(), req.Account, req.Code)
	if err != nil {
		writeError(w, linkStatus(err), err.Error())
		return
	}
	c.log.Info("accounts linked", "account", req.Account, "user", person)
	writeJSON(w, http.StatusOK, protocol.UserDetail{User: protocol.UserInfo{ID: person, Accounts: c.links.Accounts(person)[1:]}})
}

func (c *handlers) userUnlink(w http.ResponseWriter, r *http.Request) {
	var req protocol.LinkRequest
	if !c.usersReady(w) || !decodeBody(w, r, &req) {
		return
	}
	gone, err := c.links.Unlink(r.Context(), req.Account)
	if err != nil {
		writeError(w, linkStatus(err), err.Error())
		return
	}
	c.log.Info("accounts unlinked", "accounts", gone)
	writeJSON(w, http.StatusOK, protocol.Unlinked{Accounts: gone})
}

// linkStatus maps a people error to its status.
func linkStatus(err error) int {
	switch {
	case errors.Is(err, people.ErrBadCode), errors.Is(err, people.ErrSameAccount), errors.Is(err, people.ErrNoAccount):
		return http.StatusBadRequest
	case errors.Is(err, people.ErrTooManyTries):
		return http.StatusTooManyRequests
	case errors.Is(err, people.ErrNotLinked):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}
