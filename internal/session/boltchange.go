package session

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

func (b *boltBackend) apply(id string, c change) error {
	w, err := encodeWrite(id, c)
	if err != nil {
		return err
	}
	w.ledger = b.ledger
	if err := b.db.Update(w.put); err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	if c.created {
		b.num.Add(1)
	}
	return nil
}

// sessionWrite is a change to one session with its values encoded, ready
// for its transaction.
type sessionWrite struct {
	id   string
	c    change
	rec  []byte   // c.rec
	msgs [][]byte // c.msgs
	pend [][]byte // c.pend
	seen []byte   // c.seen, nil without one
	resp []byte   // c.resp's value, nil without one
	outs [][]byte // c.outputs

	ledger *usage.Ledger // writes c.usage (nil: none)
}

func encodeWrite(id string, c change) (*sessionWrite, error) {
	rec, err := store.Encode(c.rec)
	if err != nil {
		return nil, err
	}
	w := &sessionWrite{id: id, c: c, rec: rec, msgs: make([][]byte, len(c.msgs))}
	for i := range c.msgs {
		if w.msgs[i], err = store.Encode(&c.msgs[i]); err != nil {
			return nil, err
		}
	}
	for i := range c.pend {
		v, err := store.Encode(&c.pend[i])
		if err != nil {
			return nil, err
		}
		w.pend = append(w.pend, v)
	}
	if c.resp != nil {
		if w.resp, err = encodeResponse(c.resp); err != nil {
			return nil, err
		}
	}
	if c.seen != nil {
		if w.seen, err = store.Encode(c.seen); err != nil {
			return nil, err
		}
	}
	for _, o := range c.outputs {
		v, err := encodeOutput(o)
		if err != nil {
			return nil, err
		}
		w.outs = append(w.outs, v)
	}
	return w, nil
}

// put writes the change in tx. A bucket is opened only when the change
// touches it (opening one costs a bbolt Bucket and its root node in every
// commit).
func (w *sessionWrite) put(tx *bolt.Tx) error {
	if err := w.putHistory(tx); err != nil {
		return err
	}
	if err := w.putPending(tx); err != nil {
		return err
	}
	if err := w.putSeen(tx); err != nil {
		return err
	}
	if err := w.putThreads(tx); err != nil {
		return err
	}
	if err := w.putOutputs(tx); err != nil {
		return err
	}
	if w.resp != nil {
		if err := tx.Bucket(bucketResponses).Put([]byte(w.c.resp.ID), w.resp); err != nil {
			return err
		}
	}
	if w.ledger != nil {
		if err := w.ledger.Put(tx, w.c.usage); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketSessions).Put([]byte(w.id), w.rec)
}

// putHistory appends the new messages to history, emptied first on a
// reset.
func (w *sessionWrite) putHistory(tx *bolt.Tx) error {
	if !w.c.reset && len(w.msgs) == 0 {
		return nil
	}
	hist := tx.Bucket(bucketHistory)
	if w.c.reset {
		if err := deletePrefix(hist, w.id); err != nil {
			return err
		}
	}
	for i, v := range w.msgs {
		if err := hist.Put(key(w.id, w.c.from+uint64(i)), v); err != nil {
			return err
		}
	}
	return nil
}

// putPending deletes the pending messages that joined history and stores
// the new pending one.
func (w *sessionWrite) putPending(tx *bolt.Tx) error {
	if len(w.c.unpend) == 0 && len(w.pend) == 0 {
		return nil
	}
	pb := tx.Bucket(bucketPending)
	for _, seq := range w.c.unpend {
		if err := pb.Delete(key(w.id, seq)); err != nil {
			return err
		}
	}
	for i, v := range w.pend {
		if err := pb.Put(key(w.id, w.c.pendSeq+uint64(i)), v); err != nil {
			return err
		}
	}
	return nil
}

// putSeen deletes the message ids that left the window and remembers the
// new one.
func (w *sessionWrite) putSeen(tx *bolt.Tx) error {
	if len(w.c.forget) == 0 && w.seen == nil {
		return nil
	}
	sb := tx.Bucket(bucketSeen)
	for _, mid := range w.c.forget {
		if err := sb.Delete(subKey(w.id, mid)); err != nil {
			return err
		}
	}
	if w.seen != nil {
		if err := sb.Put(subKey(w.id, w.c.seen.ID), w.seen); err != nil {
			return err
		}
	}
	return nil
}

// putThreads writes the thread index entries.
func (w *sessionWrite) putThreads(tx *bolt.Tx) error {
	if len(w.c.index) == 0 {
		return nil
	}
	tb := tx.Bucket(bucketThreads)
	for k, thread := range w.c.index {
		if err := tb.Put([]byte(k), []byte(thread)); err != nil {
			return err
		}
	}
	return nil
}
