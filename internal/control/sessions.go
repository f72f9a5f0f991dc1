package control

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

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
	// Outputs are the tool results a session kept whole (its export).
	Outputs(id string) ([]session.Output, error)
	Delete(ctx context.Context, id string) error
	Reset(ctx context.Context, id string) error
	// Pending lists the approvals waiting in the live sessions;
	// DecideLocal answers one asked on the terminal, for the operator.
	Pending() []session.Pending
	DecideLocal(ctx context.Context, sessionID, approvalID string, d beamclaw.Decision) error
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

// OutputsWire is the wire form of the tool results a session kept whole.
func OutputsWire(outs []session.Output) []protocol.ToolOutput {
	var out []protocol.ToolOutput
	for _, o := range outs {
		out = append(out, protocol.ToolOutput{ID: o.Handle, ToolCallID: o.CallID, Tool: o.Tool, Bytes: len(o.Content), Content: o.Content})
	}
	return out
}

func (c *handlers) sessionsList(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	q := r.URL.Query()
	page, err := pageOf(q)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	sums, err := c.sessions.List(session.Filter{AgentID: q.Get("agent"), UserID: q.Get("user"),
		Archived: q.Get("archived") == "1" || q.Get("state") == "archived", Text: q.Get("q")})
	if err != nil {
		writeError(w, http.StatusInternalServerError, beamclaw.UserMessage(err))
		return
	}
	sums = slices.DeleteFunc(sums, func(s session.Summary) bool {
		return (q.Get("channel") != "" && string(s.Channel) != q.Get("channel")) || !inState(s, q.Get("state"))
	})
	// sums come newest first, then by id: the cursor's order (session.List)
	list := protocol.SessionList{}
	sums, list.NextCursor = page.of(sums)
	list.Sessions = SessionsWire(sums)
	writeJSON(w, http.StatusOK, list)
}

// inState reports whether s is in state: "" any, waiting, working, idle
// (SessionSummary.State), active, live (in memory now), archived.
func inState(s session.Summary, state string) bool {
	switch state {
	case "active":
		return s.Archived.IsZero()
	case "live":
		return s.Live
	case "archived":
		return !s.Archived.IsZero()
	case "waiting", "working", "idle":
		return s.State() == state
	}
	return true
}

func (c *handlers) sessionShow(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	d, err := c.detailOf(sessionIDOf(r), false)
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// detailOf is session id as a show answers it: its history and usage;
// for an export (outputs), the tool results it kept whole too.
func (c *handlers) detailOf(id string, outputs bool) (protocol.SessionDetail, error) {
	return c.detailWith(id, outputs, nil)
}

// detailWith is detailOf with the usage of sessions already summed (a
// user's export reads the ledger once for all their sessions); nil sums
// this session's.
func (c *handlers) detailWith(id string, outputs bool, use map[string]*protocol.UsageRow) (protocol.SessionDetail, error) {
	sum, hist, err := c.sessions.Show(id)
	if err != nil {
		return protocol.SessionDetail{}, err
	}
	d := DetailWire(sum, hist)
	if use == nil {
		if use, err = SessionUsage(c.ledger, sum.ID); err != nil {
			return d, err
		}
	}
	d.Usage = use[sum.ID]
	if outputs {
		outs, err := c.sessions.Outputs(id)
		if err != nil {
			return d, err
		}
		d.Outputs = OutputsWire(outs)
	}
	return d, nil
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

// sessionIDOf is the {id} of a /control/sessions/{id}[/...] route.
func sessionIDOf(r *http.Request) string { return idAfter(r, protocol.ControlSession) }

// idAfter is the path segment after prefix + "/" ({id} of prefix/{id}[/...]),
// unescaped.
func idAfter(r *http.Request, prefix string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, prefix+"/"), "/")
	if u, err := url.PathUnescape(id); err == nil {
		return u
	}
	return id
}

// sessionPage is a page of a session list: at most limit (0: all) after
// the cursor (the last session of the page before, most recently active
// first).
type sessionPage struct {
	limit   int
	after   time.Time
	afterID string
}

// pageOf reads limit and cursor; states other than the known are refused.
func pageOf(q url.Values) (sessionPage, error) {
	var p sessionPage
	if st := q.Get("state"); st != "" && !slices.Contains([]string{"active", "live", "archived", "waiting", "working", "idle"}, st) {
		return p, fmt.Errorf("state %q: want active, live, archived, waiting, working or idle", st)
	}
	var err error
	if p.limit, err = limitOf(q); err != nil {
		return p, err
	}
	if c := q.Get("cursor"); c != "" {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		ns, id, ok := strings.Cut(string(raw), "|")
		n, perr := strconv.ParseInt(ns, 10, 64)
		if err != nil || !ok || perr != nil || id == "" {
			return p, fmt.Errorf("cursor %q is not one this API gave", c)
		}
		p.after, p.afterID = time.Unix(0, n), id
	}
	return p, nil
}

// limitOf reads ?limit: 1 to 1000, or 0 when not given (all).
func limitOf(q url.Values) (int, error) {
	l := q.Get("limit")
	if l == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > 1000 {
		return 0, fmt.Errorf("limit %q: want 1 to 1000", l)
	}
	return n, nil
}

// of cuts sums (most recently active first) to the page and says the
// cursor of the next one ("" at the end).
func (p sessionPage) of(sums []session.Summary) ([]session.Summary, string) {
	if p.afterID != "" {
		i := slices.IndexFunc(sums, func(s session.Summary) bool {
			return s.Updated.Before(p.after) || (s.Updated.Equal(p.after) && s.ID > p.afterID)
		})
		if i < 0 {
			return nil, ""
		}
		sums = sums[i:]
	}
	if p.limit == 0 || len(sums) <= p.limit {
		return sums, ""
	}
	last := sums[p.limit-1]
	return sums[:p.limit], base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(last.Updated.UnixNano(), 10) + "|" + last.ID))
}
