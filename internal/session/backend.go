package session

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// record is a session's stored metadata (the sessions bucket value).
type record struct {
	UserID      string           `json:"user_id"`
	AgentID     string           `json:"agent_id"`
	Channel     beamclaw.Channel `json:"channel,omitempty"`
	Created     time.Time        `json:"created"`
	Updated     time.Time        `json:"updated"`
	NextSeq     uint64           `json:"next_seq"`     // key of the next history message
	NextPending uint64           `json:"next_pending"` // key of the next pending message
	Messages    int              `json:"messages"`
	Thread      string           `json:"thread,omitempty"`      // the thread's name; "" for the default session
	Archived    time.Time        `json:"archived,omitzero"`     // set when its TTL passed; cleared by its next message
	Marks       []mark           `json:"marks,omitempty"`       // a thread's answered turns (thread.go)
	NextOutput  uint64           `json:"next_output,omitempty"` // outputs kept so far: the next one's handle is out-(NextOutput+1) (output.go)
	// Moved is where the end of the history went when a compaction last
	// rewrote it: a response that ended the old history continues from
	// the new one's end (continueFrom).
	Moved *moved `json:"moved,omitempty"`
}

// moved maps the old end of a compacted history to its new end.
type moved struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// change is one atomic write to a session's stored state.
type change struct {
	rec     record             // the metadata after the change
	reset   bool               // delete the whole history first
	from    uint64             // key of msgs[0]
	msgs    []beamclaw.Message // appended to history
	pend    []beamclaw.Message // stored as pending at keys pendSeq, pendSeq+1, ...
	pendSeq uint64
	unpend  []uint64          // pending keys to delete
	created bool              // the record did not exist before
	seen    *seenID           // a channel message id to remember with this change
	forget  []string          // remembered message ids that left the window
	index   map[string]string // thread index entries to write (threadKey -> thread)
	usage   []usage.Entry     // model calls written to the usage ledger in the same transaction
	resp    *Response         // a Responses API record to store (response.go)
	// outputs are tool outputs kept whole, written with the tool messages
	// naming them (output.go). A reset drops the kept outputs whose tool
	// message is not among msgs.
	outputs []loop.Output
}

// seenID is a channel's message id remembered with the run that answers
// it, so that a resend is answered, never run again.
type seenID struct {
	ID    string    `json:"id"`
	RunID string    `json:"run_id"`
	At    time.Time `json:"at"`
	// Digest is the Inbound.MessageDigest the id came with: a resend with
	// another is refused (ErrMessageReused). Ids remembered before it
	// existed have none and are not compared.
	Digest string `json:"digest,omitempty"`
}

// stored is what a backend returns for a session.
type stored struct {
	rec     record
	history []beamclaw.Message
	pending []beamclaw.Message
	seqs    []uint64 // keys of pending
	seen    []seenID // oldest first
}

// backend keeps sessions: bbolt, or memory when persistence is off.
type backend interface {
	load(id string) (stored, bool, error)
	apply(id string, c change) error
	remove(ids []string) error
	summaries() ([]Summary, error)                // every stored session
	summary(id string) (Summary, bool, error)     // one stored session (false: none)
	setArchived(ids []string, at time.Time) error // archive (or, with a zero at, restore) sessions
	count() int
	thread(key string) (string, bool, error)    // the thread of a threadKey
	response(id string, into any) (bool, error) // into: *Response or *ResponseHead
	deleteResponse(id string) error             // removing a session removes its responses
	// output reads one kept output of a session (false: none by that
	// handle); outputs reads them all, in the order they were kept.
	output(id, handle string) (loop.Output, bool, error)
	outputs(id string) ([]loop.Output, error)
	threaded(prefix string) (bool, error) // any thread index entry under prefix
	// maintained is what maintenance did (maintain.go): its marks by
	// session and the date of the last nightly pass.
	maintained() (marks map[string]maintMark, night string, err error)
	// setMaintained stores a session's marks (none for a session no
	// longer stored). Removing a session removes its marks; an unreadable
	// mark reads as none.
	setMaintained(id string, mk maintMark) error
	setLastNight(date string) error // the date of the last nightly pass
	// writable is false while the last write failed for the store's sake
	// (disk full): writes are then not deferred, so they fail at once.
	writable() bool
}

// memBackend keeps sessions in memory only (core.session_persistence: false).
type memBackend struct {
	mu       sync.Mutex
	sessions map[string]*stored
	threads  map[string]string
	resps    map[string]Response
	outs     map[string][]loop.Output // by session, in the order kept
}

func newMemBackend() *memBackend {
	return &memBackend{sessions: make(map[string]*stored), threads: make(map[string]string), resps: make(map[string]Response),
		outs: make(map[string][]loop.Output)}
}

func (b *memBackend) response(id string, into any) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.resps[id]
	switch v := into.(type) {
	case *Response:
		*v = r
	case *ResponseHead:
		*v = r.ResponseHead
	}
	return ok, nil
}

func (b *memBackend) deleteResponse(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.resps, id)
	return nil
}

func (b *memBackend) thread(key string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.threads[key]
	return t, ok, nil
}

func (b *memBackend) threaded(prefix string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.threads {
		if strings.HasPrefix(k, prefix) {
			return true, nil
		}
	}
	return false, nil
}

func (b *memBackend) load(id string) (stored, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sessions[id]
	if !ok {
		return stored{}, false, nil
	}
	return stored{rec: s.rec, history: slices.Clone(s.history), pending: slices.Clone(s.pending),
		seqs: slices.Clone(s.seqs), seen: slices.Clone(s.seen)}, true, nil
}

func (b *memBackend) writable() bool { return true }

func (b *memBackend) apply(id string, c change) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sessions[id]
	if !ok {
		s = &stored{}
		b.sessions[id] = s
	}
	s.rec = c.rec
	maps.Copy(b.threads, c.index)
	if c.reset {
		s.history = nil
		b.outs[id] = slices.DeleteFunc(b.outs[id], func(o loop.Output) bool { return !namedIn(c.msgs, o.CallID) })
	}
	s.history = append(s.history, c.msgs...)
	b.outs[id] = append(b.outs[id], c.outputs...)
	for _, seq := range c.unpend {
		if i := slices.Index(s.seqs, seq); i >= 0 {
			s.seqs = slices.Delete(s.seqs, i, i+1)
			s.pending = slices.Delete(s.pending, i, i+1)
		}
	}
	for i, m := range c.pend {
		s.pending = append(s.pending, m)
		s.seqs = append(s.seqs, c.pendSeq+uint64(i))
	}
	if c.resp != nil {
		b.resps[c.resp.ID] = *c.resp
	}
	s.seen = slices.DeleteFunc(s.seen, func(e seenID) bool { return slices.Contains(c.forget, e.ID) })
	if c.seen != nil {
		s.seen = append(s.seen, *c.seen)
	}
	return nil
}

func (b *memBackend) remove(ids []string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		delete(b.sessions, id)
		delete(b.outs, id)
	}
	for k, r := range b.resps {
		if slices.Contains(ids, r.At.Session) {
			delete(b.resps, k)
		}
	}
	return nil
}

func (b *memBackend) summaries() ([]Summary, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Summary, 0, len(b.sessions))
	for id, s := range b.sessions {
		out = append(out, summaryOf(id, s.rec, firstUser(s.history)))
	}
	return out, nil
}

func (b *memBackend) summary(id string) (Summary, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sessions[id]
	if !ok {
		return Summary{}, false, nil
	}
	return summaryOf(id, s.rec, firstUser(s.history)), true, nil
}

func (b *memBackend) setArchived(ids []string, at time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		if s, ok := b.sessions[id]; ok {
			s.rec.Archived = at
		}
	}
	return nil
}

// maintained: without persistence, the maintainer's memory is all there is.
func (b *memBackend) maintained() (map[string]maintMark, string, error) {
	return map[string]maintMark{}, "", nil
}

func (b *memBackend) setMaintained(string, maintMark) error { return nil }

func (b *memBackend) setLastNight(string) error { return nil }

func (b *memBackend) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.sessions)
}
