package session

import (
	"bytes"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// Buckets, owned by this package: session records by id, history
// messages by id + 8-byte big-endian sequence, and messages acknowledged
// while a run was busy, waiting for their turn.
const (
	nameSessions = "sessions"
	nameHistory  = "history"
	namePending  = "session_pending"
	nameSeen     = "session_msgids"      // id + 0 + channel message id -> seenID
	nameThreads  = "session_threads"     // threadKey -> thread name (thread.go)
	nameMaint    = "session_maintenance" // id -> maintMark; nightKey -> date of the last nightly pass (maintain.go)
	// nameResponses holds Responses API records: response id -> the
	// session's id (idLen bytes, so removing a session finds its
	// responses without decoding them) and the Response's JSON.
	nameResponses = "session_responses"
	// nameOutputs holds the tool outputs sessions kept whole: id + 0 +
	// handle -> meta, a line break, the content (output.go).
	nameOutputs = "session_outputs"
)

// nightKey holds the date of the last nightly pass among the session ids
// of the maintenance bucket (an id never starts with a zero byte).
const nightKey = "\x00last_night"

var (
	bucketSessions  = []byte(nameSessions)
	bucketHistory   = []byte(nameHistory)
	bucketPending   = []byte(namePending)
	bucketSeen      = []byte(nameSeen)
	bucketThreads   = []byte(nameThreads)
	bucketMaint     = []byte(nameMaint)
	bucketResponses = []byte(nameResponses)
	bucketOutputs   = []byte(nameOutputs)
)

// boltBackend stores sessions in bbolt.
type boltBackend struct {
	db     *store.DB
	num    atomic.Int64  // stored sessions
	ledger *usage.Ledger // nil: no usage ledger
}

func newBoltBackend(db *store.DB) (*boltBackend, error) {
	b := &boltBackend{db: db}
	if err := db.Buckets(nameSessions, nameHistory, namePending, nameSeen, nameThreads, nameMaint, nameResponses, nameOutputs); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	err := db.View(func(tx *bolt.Tx) error {
		b.num.Store(int64(tx.Bucket(bucketSessions).Stats().KeyN))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return b, nil
}

func key(id string, seq uint64) []byte {
	k := make([]byte, 0, len(id)+8)
	return append(append(k, id...), store.Seq(seq)...)
}

func (b *boltBackend) load(id string) (stored, bool, error) {
	var s stored
	if len(id) != idLen {
		return s, false, nil // not an id of ours; never prefix-scan it
	}
	found := false
	err := b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketSessions).Get([]byte(id))
		if v == nil {
			return nil
		}
		found = true
		if err := store.Decode(v, &s.rec); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		s.history = make([]beamclaw.Message, 0, s.rec.Messages)
		if _, err := scan(tx.Bucket(bucketHistory), id, func(_ uint64, m beamclaw.Message) {
			s.history = append(s.history, m)
		}); err != nil {
			return err
		}
		if _, err := scan(tx.Bucket(bucketPending), id, func(seq uint64, m beamclaw.Message) {
			s.pending = append(s.pending, m)
			s.seqs = append(s.seqs, seq)
		}); err != nil {
			return err
		}
		return loadSeen(tx.Bucket(bucketSeen), id, &s)
	})
	if err != nil {
		return stored{}, false, fmt.Errorf("load session %s: %w", id, err)
	}
	return s, found, nil
}

// scan walks the messages of one session in key order.
func scan(bk *bolt.Bucket, id string, fn func(seq uint64, m beamclaw.Message)) (int, error) {
	prefix := []byte(id)
	c := bk.Cursor()
	n := 0
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var m beamclaw.Message
		if err := store.Decode(v, &m); err != nil {
			return n, fmt.Errorf("message %x: %w", k, err)
		}
		fn(store.SeqOf(k[len(prefix):]), m)
		n++
	}
	return n, nil
}

func (b *boltBackend) writable() bool {
	ok, _ := b.db.Writable()
	return ok
}

func (b *boltBackend) thread(key string) (thread string, ok bool, err error) {
	err = b.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketThreads).Get([]byte(key)); v != nil {
			thread, ok = string(v), true
		}
		return nil
	})
	return thread, ok, err
}

func (b *boltBackend) threaded(prefix string) (ok bool, err error) {
	err = b.db.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketThreads).Cursor().Seek([]byte(prefix))
		ok = k != nil && bytes.HasPrefix(k, []byte(prefix))
		return nil
	})
	return ok, err
}

func deletePrefix(bk *bolt.Bucket, id string) error {
	prefix := []byte(id)
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

func (b *boltBackend) remove(ids []string) error {
	var n int64
	err := b.db.Update(func(tx *bolt.Tx) error {
		n = 0
		sb := tx.Bucket(bucketSessions)
		for _, id := range ids {
			if sb.Get([]byte(id)) != nil {
				n++
			}
			for _, bk := range []*bolt.Bucket{tx.Bucket(bucketHistory), tx.Bucket(bucketPending), tx.Bucket(bucketSeen), tx.Bucket(bucketOutputs)} {
				if err := deletePrefix(bk, id); err != nil {
					return err
				}
			}
			if err := sb.Delete([]byte(id)); err != nil {
				return err
			}
			if err := tx.Bucket(bucketMaint).Delete([]byte(id)); err != nil {
				return err
			}
		}
		return deleteResponsesOf(tx.Bucket(bucketResponses), ids)
	})
	if err != nil {
		return fmt.Errorf("delete sessions: %w", err)
	}
	b.num.Add(-n)
	return nil
}

func (b *boltBackend) summaries() ([]Summary, error) {
	var out []Summary
	err := b.db.View(func(tx *bolt.Tx) error {
		hist := tx.Bucket(bucketHistory).Cursor()
		return tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
			var rec record
			if err := store.Decode(v, &rec); err != nil {
				return fmt.Errorf("record %s: %w", k, err)
			}
			out = append(out, summaryOf(string(k), rec, firstUserStored(hist, k)))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("scan sessions: %w", err)
	}
	return out, nil
}

func (b *boltBackend) summary(id string) (sum Summary, found bool, err error) {
	err = b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketSessions).Get([]byte(id))
		if v == nil {
			return nil
		}
		var rec record
		if err := store.Decode(v, &rec); err != nil {
			return fmt.Errorf("record %s: %w", id, err)
		}
		sum, found = summaryOf(id, rec, firstUserStored(tx.Bucket(bucketHistory).Cursor(), []byte(id))), true
		return nil
	})
	if err != nil {
		return Summary{}, false, fmt.Errorf("read session: %w", err)
	}
	return sum, found, nil
}

// firstUserStored reads the first user message among a session's first
// few stored messages (its title).
func firstUserStored(c *bolt.Cursor, id []byte) string {
	n := 0
	for k, v := c.Seek(id); k != nil && bytes.HasPrefix(k, id) && n < 4; k, v = c.Next() {
		var m beamclaw.Message
		if store.Decode(v, &m) == nil && m.Role == beamclaw.RoleUser {
			return m.Content
		}
		n++
	}
	return ""
}

func (b *boltBackend) setArchived(ids []string, at time.Time) error {
	err := b.db.Update(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketSessions)
		for _, id := range ids {
			v := sb.Get([]byte(id))
			if v == nil {
				continue
			}
			var rec record
			if err := store.Decode(v, &rec); err != nil {
				return fmt.Errorf("record %s: %w", id, err)
			}
			rec.Archived = at
			enc, err := store.Encode(rec)
			if err != nil {
				return err
			}
			if err := sb.Put([]byte(id), enc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("archive sessions: %w", err)
	}
	return nil
}

func (b *boltBackend) count() int { return int(b.num.Load()) }

func (b *boltBackend) maintained() (map[string]maintMark, string, error) {
	marks := map[string]maintMark{}
	var night string
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMaint).ForEach(func(k, v []byte) error {
			if string(k) == nightKey {
				night = string(v)
				return nil
			}
			var mk maintMark
			if store.Decode(v, &mk) == nil { // an unreadable mark is as good as none: that session is due again
				marks[string(k)] = mk
			}
			return nil
		})
	})
	if err != nil {
		return nil, "", fmt.Errorf("read session maintenance: %w", err)
	}
	return marks, night, nil
}

func (b *boltBackend) setLastNight(date string) error {
	err := b.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMaint).Put([]byte(nightKey), []byte(date)) })
	if err != nil {
		return fmt.Errorf("record the nightly pass: %w", err)
	}
	return nil
}

func (b *boltBackend) setMaintained(id string, mk maintMark) error {
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketMaint)
		if tx.Bucket(bucketSessions).Get([]byte(id)) == nil {
			return nil // deleted meanwhile: nothing to remember
		}
		v, err := store.Encode(mk)
		if err != nil {
			return err
		}
		return bk.Put([]byte(id), v)
	})
	if err != nil {
		return fmt.Errorf("record session maintenance: %w", err)
	}
	return nil
}

// subKey is the key of a session's entry called name (a remembered
// channel message id, a kept output's handle): the session id, a zero
// byte (ids never hold one) and the name.
func subKey(id, name string) []byte {
	k := make([]byte, 0, len(id)+1+len(name))
	return append(append(append(k, id...), 0), name...)
}

// loadSeen reads a session's remembered message ids, oldest first.
func loadSeen(bk *bolt.Bucket, id string, s *stored) error {
	prefix := append([]byte(id), 0)
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var e seenID
		if err := store.Decode(v, &e); err != nil {
			return fmt.Errorf("message id %q: %w", k[len(prefix):], err)
		}
		s.seen = append(s.seen, e)
	}
	slices.SortFunc(s.seen, func(a, b seenID) int { return a.At.Compare(b.At) })
	return nil
}

// encodeResponse is r's value in the responses bucket.
func encodeResponse(r *Response) ([]byte, error) {
	if len(r.At.Session) != idLen {
		return nil, fmt.Errorf("response %s: session id %q is not a session id", r.ID, r.At.Session)
	}
	v, err := store.Encode(r)
	if err != nil {
		return nil, err
	}
	return append([]byte(r.At.Session), v...), nil
}

func (b *boltBackend) response(id string, into any) (ok bool, err error) {
	err = b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketResponses).Get([]byte(id))
		if len(v) < idLen {
			return nil
		}
		ok = true
		return store.Decode(v[idLen:], into)
	})
	if err != nil {
		return false, fmt.Errorf("load response %s: %w", id, err)
	}
	return ok, nil
}

func (b *boltBackend) deleteResponse(id string) error {
	return b.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketResponses).Delete([]byte(id)) })
}

// deleteResponsesOf deletes the responses of the sessions ids.
func deleteResponsesOf(bk *bolt.Bucket, ids []string) error {
	c := bk.Cursor()
	for k, v := c.First(); k != nil; {
		if len(v) >= idLen && slices.Contains(ids, string(v[:idLen])) {
			at := slices.Clone(k)
			if err := c.Delete(); err != nil {
				return err
			}
			k, v = c.Seek(at)
			continue
		}
		k, v = c.Next()
	}
	return nil
}
