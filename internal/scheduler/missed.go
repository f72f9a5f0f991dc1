package scheduler

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// bucketMissed keeps the answers delivered to tui or ws while none of the
// user's connections was open: nobody watching is not a failed delivery.
// Keys are "<kind>\x00<user>\x00<sequence>", so that a user's answers of
// one kind are one range, oldest first.
var bucketMissed = []byte("sched_missed")

// maxMissed is how many missed answers a user keeps per kind; older ones
// give way.
const maxMissed = 20

// Missed is an answer kept for a user's next connection.
type Missed struct {
	Agent string    `json:"agent"`
	JobID string    `json:"job_id"`
	Text  string    `json:"text"`
	At    time.Time `json:"at"`
}

func missedPrefix(kind DeliveryKind, userID string) []byte {
	return []byte(string(kind) + "\x00" + userID + "\x00")
}

// KeepMissed stores m for userID's next connection of kind (tui or ws),
// keeping the newest maxMissed.
func (s *Scheduler) KeepMissed(kind DeliveryKind, userID string, m Missed) error {
	v, err := store.Encode(m)
	if err != nil {
		return err
	}
	prefix := missedPrefix(kind, userID)
	return s.area.Update(func(tx *store.Tx) error {
		b := tx.Bucket(bucketMissed)
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		if err := b.Put(binary.BigEndian.AppendUint64(bytes.Clone(prefix), seq), v); err != nil {
			return err
		}
		var keys [][]byte
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys[:max(len(keys)-maxMissed, 0)] {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// TakeMissed returns and forgets the answers kept for userID's connections
// of kind, oldest first.
func (s *Scheduler) TakeMissed(kind DeliveryKind, userID string) ([]Missed, error) {
	prefix := missedPrefix(kind, userID)
	var out []Missed
	err := s.area.Update(func(tx *store.Tx) error {
		out = out[:0]
		b := tx.Bucket(bucketMissed)
		c := b.Cursor()
		var keys [][]byte
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var m Missed
			if err := store.Decode(v, &m); err != nil {
				return fmt.Errorf("missed answer %x: %w", k, err)
			}
			out = append(out, m)
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// HasMissed reports whether any answer waits for userID's connections of
// kind (a read: no commit when nothing waits).
func (s *Scheduler) HasMissed(kind DeliveryKind, userID string) bool {
	prefix := missedPrefix(kind, userID)
	found := false
	_ = s.area.View(func(tx *store.Tx) error {
		k, _ := tx.Bucket(bucketMissed).Cursor().Seek(prefix)
		found = k != nil && bytes.HasPrefix(k, prefix)
		return nil
	})
	return found
}
