package telegram

import (
	"encoding/json"
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The durable inbox lives under the bucket channel_seen/telegram (the
// package owns channel_seen; other channels may add their own sub-bucket):
//
//	seen   update_id -> insertion seq (de-duplication)
//	order  insertion seq -> update_id (to forget the oldest; its bucket
//	       sequence counts the entries)
//	queue  insertion seq -> raw update JSON, until processed
var (
	bucketChannelSeen = []byte("channel_seen")
	bucketTelegram    = []byte(ChannelName)
	bucketSeen        = []byte("seen")
	bucketOrder       = []byte("order")
	bucketQueue       = []byte("queue")
)

// inbox records updates durably before they are acknowledged or
// processed, and remembers the last window update ids.
type inbox struct {
	area   *store.Area
	window int
}

// inboxArea is the inbox's area: in cluster mode the cluster's when the
// bot long-polls (one node at a time takes the updates and works the
// queue, and the next one carries on), this node's own under a webhook
// (each node works what it received).
func inboxArea(db *store.DB, mode string) (*store.Area, error) {
	if mode == ModeLongPoll {
		return db.Area("telegram", string(bucketChannelSeen))
	}
	return db.LocalArea("telegram", string(bucketChannelSeen))
}

type inboxBuckets struct{ seen, order, queue *store.Bucket }

func inboxOf(tx *store.Tx) (inboxBuckets, error) {
	root := tx.Bucket(bucketChannelSeen)
	if root == nil {
		return inboxBuckets{}, fmt.Errorf("bucket %s missing", bucketChannelSeen)
	}
	var b inboxBuckets
	var err error
	if !tx.Writable() {
		tg := root.Bucket(bucketTelegram)
		if tg == nil {
			return b, nil
		}
		return inboxBuckets{tg.Bucket(bucketSeen), tg.Bucket(bucketOrder), tg.Bucket(bucketQueue)}, nil
	}
	tg, err := root.CreateBucketIfNotExists(bucketTelegram)
	if err != nil {
		return b, err
	}
	for name, dst := range map[string]**store.Bucket{"seen": &b.seen, "order": &b.order, "queue": &b.queue} {
		if *dst, err = tg.CreateBucketIfNotExists([]byte(name)); err != nil {
			return b, err
		}
	}
	return b, nil
}

// record stores raw (the update's JSON) under updateID unless that id was
// already seen. When it returns fresh = true the update is on disk.
func (q *inbox) record(updateID int64, raw json.RawMessage) (fresh bool, err error) {
	key := store.Seq(uint64(updateID))
	err = q.area.Update(func(tx *store.Tx) error {
		fresh = false // Update may run fn more than once
		b, err := inboxOf(tx)
		if err != nil {
			return err
		}
		if b.seen.Get(key) != nil {
			return nil
		}
		seq, err := b.seen.NextSequence()
		if err != nil {
			return err
		}
		if err := b.seen.Put(key, store.Seq(seq)); err != nil {
			return err
		}
		if err := b.order.Put(store.Seq(seq), key); err != nil {
			return err
		}
		if err := b.queue.Put(store.Seq(seq), raw); err != nil {
			return err
		}
		fresh = true
		return q.trim(b)
	})
	if err != nil {
		return false, fmt.Errorf("record update %d: %w", updateID, err)
	}
	return fresh, nil
}

// trim forgets the oldest ids beyond the window.
func (q *inbox) trim(b inboxBuckets) error {
	count := b.order.Sequence() + 1
	c := b.order.Cursor()
	for k, v := c.First(); k != nil && count > uint64(q.window); k, v = c.First() {
		if err := b.seen.Delete(v); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
		count--
	}
	return b.order.SetSequence(count)
}

// next returns the oldest queued update (ok = false when none).
func (q *inbox) next() (seq uint64, raw json.RawMessage, ok bool, err error) {
	err = q.area.View(func(tx *store.Tx) error {
		b, err := inboxOf(tx)
		if err != nil || b.queue == nil {
			return err
		}
		k, v := b.queue.Cursor().First()
		if k == nil {
			return nil
		}
		seq, raw, ok = store.SeqOf(k), append(json.RawMessage(nil), v...), true
		return nil
	})
	if err != nil {
		return 0, nil, false, fmt.Errorf("read inbox: %w", err)
	}
	return seq, raw, ok, nil
}

// done removes a processed update from the queue (its id stays seen).
func (q *inbox) done(seq uint64) error {
	err := q.area.Update(func(tx *store.Tx) error {
		b, err := inboxOf(tx)
		if err != nil {
			return err
		}
		return b.queue.Delete(store.Seq(seq))
	})
	if err != nil {
		return fmt.Errorf("dequeue update: %w", err)
	}
	return nil
}
