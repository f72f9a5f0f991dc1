package session

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Summary describes a stored session for listings.
type Summary = beamclaw.SessionSummary

// Filter selects sessions; zero fields select everything active.
type Filter struct {
	UserID   string
	AgentID  string
	Archived bool   // archived sessions too
	Text     string // only sessions whose history holds this (case-insensitive)
}

func (f Filter) keep(s Summary) bool {
	return (f.UserID == "" || s.UserID == f.UserID) && (f.AgentID == "" || s.AgentID == f.AgentID) &&
		(f.Archived || s.Archived.IsZero())
}

// titleLen bounds a summary's title.
const titleLen = 60

func summaryOf(id string, rec record, firstUser string) Summary {
	title := strings.Join(strings.Fields(firstUser), " ")
	if r := []rune(title); len(r) > titleLen {
		title = string(r[:titleLen-1]) + "…"
	}
	return Summary{ID: id, UserID: rec.UserID, AgentID: rec.AgentID, Channel: rec.Channel, Thread: rec.Thread,
		Title: title, Messages: rec.Messages, Created: rec.Created, Updated: rec.Updated, Archived: rec.Archived}
}

// matches reports whether history holds text (lower case).
func matches(history []beamclaw.Message, text string) bool {
	for _, m := range history {
		if strings.Contains(strings.ToLower(m.Content), text) {
			return true
		}
	}
	return false
}

// Catalog reads and deletes the sessions of a database no daemon holds
// (the CLI without a running daemon). A running daemon's Manager offers
// the same through its own methods.
type Catalog struct{ b *boltBackend }

// OpenCatalog returns the sessions stored in db.
func OpenCatalog(db *store.DB) (*Catalog, error) {
	b, err := newBoltBackend(db)
	if err != nil {
		return nil, err
	}
	return &Catalog{b: b}, nil
}

// List returns the sessions f selects, most recently active first.
func (c *Catalog) List(f Filter) ([]Summary, error) { return list(c.b, f, nil) }

// Show returns one session and its history.
func (c *Catalog) Show(id string) (Summary, []beamclaw.Message, error) { return show(c.b, id) }

// Delete removes sessions with their history.
func (c *Catalog) Delete(ids ...string) error { return deleteStored(c.b, ids) }

// liveState is what a live lane adds to its stored summary.
type liveState struct {
	rec              record
	waiting, working bool
}

func list(b backend, f Filter, live func(id string) (liveState, bool)) ([]Summary, error) {
	sums, err := b.summaries()
	if err != nil {
		return nil, beamclaw.E("session.List", beamclaw.KindUnavailable, "could not list the sessions", err)
	}
	text := strings.ToLower(f.Text)
	out := sums[:0]
	for _, s := range sums {
		if live != nil {
			if st, ok := live(s.ID); ok {
				s.Updated, s.Messages, s.Archived, s.Live = st.rec.Updated, st.rec.Messages, st.rec.Archived, true
				s.Waiting, s.Working = st.waiting, st.working
			}
		}
		if !f.keep(s) {
			continue
		}
		if text != "" {
			st, _, err := b.load(s.ID)
			if err != nil || !matches(st.history, text) {
				continue
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, byRecency)
	return out, nil
}

// byRecency is the order of a list: most recently active first, then by
// id (a total order, which the admin API's cursor pages by).
func byRecency(a, b Summary) int {
	return cmp.Or(b.Updated.Compare(a.Updated), strings.Compare(a.ID, b.ID))
}

func show(b backend, id string) (Summary, []beamclaw.Message, error) {
	st, found, err := b.load(id)
	if err != nil {
		return Summary{}, nil, loadError("session.Show", err)
	}
	if !found {
		return Summary{}, nil, notFound("session.Show", id)
	}
	hist := append(st.history, st.pending...)
	return summaryOf(id, st.rec, firstUser(hist)), hist, nil
}

func deleteStored(b backend, ids []string) error {
	for _, id := range ids {
		if _, found, err := b.load(id); err != nil {
			return loadError("session.Delete", err)
		} else if !found {
			return notFound("session.Delete", id)
		}
	}
	if err := b.remove(ids); err != nil {
		return beamclaw.E("session.Delete", beamclaw.KindStorage, "could not delete the session", err)
	}
	return nil
}

func firstUser(hist []beamclaw.Message) string {
	for _, m := range hist {
		if m.Role == beamclaw.RoleUser {
			return m.Content
		}
	}
	return ""
}

// List returns the sessions f selects, most recently active first; live
// sessions show their in-memory state.
func (m *Manager) List(f Filter) ([]Summary, error) {
	m.mu.Lock()
	lanes := maps.Clone(m.live) // one lock for the whole list
	m.mu.Unlock()
	return list(m.store, f, func(id string) (liveState, bool) {
		l := lanes[id]
		if l == nil {
			return liveState{}, false
		}
		return l.state()
	})
}

// state is the lane's record and whether it waits on its person or works
// (false when its record is not stored yet).
func (l *lane) state() (liveState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return liveState{rec: l.rec, waiting: len(l.approvals) > 0, working: l.inflight != nil || len(l.queue) > 0}, l.stored
}

// Show returns one session and its history (live or stored).
func (m *Manager) Show(id string) (Summary, []beamclaw.Message, error) {
	sum, hist, err := show(m.store, id)
	if err != nil {
		return sum, hist, err
	}
	if l := m.liveLane(id); l != nil {
		st, _ := l.state()
		sum.Updated, sum.Messages, sum.Archived, sum.Live = st.rec.Updated, st.rec.Messages, st.rec.Archived, true
		sum.Waiting, sum.Working = st.waiting, st.working
		hist = l.snapshot()
	}
	return sum, hist, nil
}

// Delete removes a session and its history. A session answering now is
// refused (KindConflict): wait for its answer or cancel its run. In
// cluster mode a session live on another node is deleted there, and
// refused there the same way.
func (m *Manager) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	l := m.live[id]
	if l != nil && !m.closeIdle(l, m.clock.Now().UnixNano()+1) {
		m.mu.Unlock()
		return beamclaw.E("session.Delete", beamclaw.KindConflict, msgAnswering, nil)
	}
	g := m.hold(id) // its messages wait for the delete; other sessions' do not
	m.mu.Unlock()
	owner, err := m.deleteHeld(id, l)
	m.unhold(g)
	if owner != nil {
		return m.deleteAtOwner(ctx, owner)
	}
	if err != nil {
		return err
	}
	m.emit(ctx, beamclaw.EventSessionEnd, id, slog.String("reason", "deleted"))
	return nil
}

// deleteHeld deletes session id, held (l: its lane, closed; nil when it
// was not live here). In cluster mode a session not live here is claimed
// first, so no other node writes it while it goes; one another node
// owns is that node's to delete (owner).
func (m *Manager) deleteHeld(id string, l *lane) (*OwnedElsewhereError, error) {
	var cl *claim
	js, _ := m.store.(*jsBackend)
	if l == nil && js != nil {
		if _, ok, err := js.summary(id); err == nil && !ok { // nothing is claimed (nor fenced) for a session that does not exist
			return nil, notFound("session.Delete", id)
		}
		var err error
		if _, _, cl, err = js.claimSession(id); err != nil {
			if owner, ok := errors.AsType[*OwnedElsewhereError](err); ok {
				return owner, nil
			}
			return nil, loadError("session.Delete", err)
		}
	}
	err := deleteStored(m.store, []string{id})
	if err != nil && cl != nil {
		js.unclaim(id, cl)
	}
	if err != nil && l != nil { // closed for nothing: its lease goes, and its next message revives it
		m.unclaim(l)
	}
	return nil, err
}

// UserSessions lists userID's sessions with agentID, archived ones too,
// most recently active first (the terminal UI's /sessions).
func (m *Manager) UserSessions(userID, agentID string) ([]beamclaw.SessionSummary, error) {
	all, err := m.List(Filter{AgentID: agentID, Archived: true})
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, s := range all {
		if s.UserID == userID || m.opts.Person(s.UserID) == userID {
			out = append(out, s)
		}
	}
	return out, nil
}

// ownedBy reports whether the session is person userID's (an account of
// theirs, Options.Person) with agentID.
func (l *lane) ownedBy(userID, agentID string, person func(string) string) bool {
	l.mu.Lock()
	owner, agent := l.rec.UserID, l.rec.AgentID
	l.mu.Unlock()
	return agent == agentID && (owner == userID || person(owner) == userID)
}
