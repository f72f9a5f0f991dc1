package pairing

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Request returns the pairing request of a stranger, creating one with a
// fresh code when they have none that is still valid. created reports
// whether this call made it (so the channel answers every DM of a waiting
// stranger with the same code). When the channel already has MaxPending
// live requests from other users it returns ErrTooManyPending.
func (s *Store) Request(channel, userID, name string) (p Pending, created bool, err error) {
	if err := validArgs(channel, userID); err != nil {
		return Pending{}, false, err
	}
	code, err := NewCode(s.opts.Rand)
	if err != nil {
		return Pending{}, false, err
	}
	now := s.opts.Clock.Now()
	err = s.update(func(tx *store.Tx) error {
		p, created = Pending{}, false // fn may run again: from scratch
		pending, _, err := channelBuckets(tx, channel, true)
		if err != nil {
			return err
		}
		live, err := s.prune(pending, now)
		if err != nil {
			return err
		}
		for _, q := range live {
			if q.UserID == userID {
				p = q
				return nil
			}
		}
		if len(live) >= s.opts.MaxPending {
			return fmt.Errorf("channel %s has %d: %w", channel, len(live), ErrTooManyPending)
		}
		p = Pending{Channel: channel, UserID: userID, Name: name, Code: code,
			CreatedAt: now, ExpiresAt: now.Add(s.opts.TTL)}
		created = true
		return put(pending, userID, p)
	})
	if err != nil {
		return Pending{}, false, fmt.Errorf("pairing request: %w", err)
	}
	return p, created, nil
}

// Approve turns the pending request with code into an approved Peer bound
// to agent ("" = the channel's default agent).
func (s *Store) Approve(channel, code, agent string) (Peer, error) {
	code = NormalizeCode(code)
	if channel == "" || code == "" {
		return Peer{}, fmt.Errorf("%w: channel and code are required", ErrInvalid)
	}
	now := s.opts.Clock.Now()
	var peer Peer
	err := s.update(func(tx *store.Tx) error {
		pending, approved, err := channelBuckets(tx, channel, true)
		if err != nil {
			return err
		}
		found, err := findCode(pending, code)
		if err != nil {
			return err
		}
		if found == nil {
			return ErrUnknownCode
		}
		if !now.Before(found.ExpiresAt) {
			return ErrExpired // pruned by the next Request
		}
		peer = Peer{Channel: channel, UserID: found.UserID, Name: found.Name,
			Agent: agent, ApprovedAt: now}
		if err := pending.Delete([]byte(found.UserID)); err != nil {
			return err
		}
		return put(approved, found.UserID, peer)
	})
	if err != nil {
		return Peer{}, fmt.Errorf("approve %s: %w", channel, err)
	}
	return peer, nil
}

func findCode(b *store.Bucket, code string) (*Pending, error) {
	var found *Pending
	err := b.ForEach(func(_, v []byte) error {
		var p Pending
		if err := store.Decode(v, &p); err != nil {
			return nil // an unreadable record never matches
		}
		if p.Code == code {
			found = &p
		}
		return nil
	})
	return found, err
}

// Allowed reports whether userID is an approved peer of channel, and the
// agent it is bound to ("" = the channel's default).
func (s *Store) Allowed(channel, userID string) (agent string, ok bool) {
	_ = s.view(func(tx *store.Tx) error {
		_, approved, err := channelBuckets(tx, channel, false)
		if err != nil || approved == nil {
			return err
		}
		var p Peer
		if v := approved.Get([]byte(userID)); v != nil && store.Decode(v, &p) == nil {
			agent, ok = p.Agent, true
		}
		return nil
	})
	return agent, ok
}

// Revoke removes userID from channel's approved peers (and any pending
// request of theirs). It returns ErrNotPaired when there was neither.
func (s *Store) Revoke(channel, userID string) error {
	if err := validArgs(channel, userID); err != nil {
		return err
	}
	err := s.update(func(tx *store.Tx) error {
		pending, approved, err := channelBuckets(tx, channel, false)
		if err != nil {
			return err
		}
		if approved == nil {
			return ErrNotPaired
		}
		key := []byte(userID)
		had := approved.Get(key) != nil || pending.Get(key) != nil
		if !had {
			return ErrNotPaired
		}
		if err := approved.Delete(key); err != nil {
			return err
		}
		return pending.Delete(key)
	})
	if err != nil {
		return fmt.Errorf("revoke %s %s: %w", channel, userID, err)
	}
	return nil
}

// ListPending returns the unexpired requests of channel ("" = every
// channel), oldest first.
func (s *Store) ListPending(channel string) ([]Pending, error) {
	now := s.opts.Clock.Now()
	var out []Pending
	err := s.each(channel, bucketPending, func(v []byte) {
		var p Pending
		if store.Decode(v, &p) == nil && now.Before(p.ExpiresAt) {
			out = append(out, p)
		}
	})
	slices.SortFunc(out, func(a, b Pending) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, err
}

// ListApproved returns the approved peers of channel ("" = every channel),
// ordered by channel then user id.
func (s *Store) ListApproved(channel string) ([]Peer, error) {
	var out []Peer
	err := s.each(channel, bucketApproved, func(v []byte) {
		var p Peer
		if store.Decode(v, &p) == nil {
			out = append(out, p)
		}
	})
	slices.SortFunc(out, func(a, b Peer) int {
		if c := strings.Compare(a.Channel, b.Channel); c != 0 {
			return c
		}
		return strings.Compare(a.UserID, b.UserID)
	})
	return out, err
}

func (s *Store) each(channel string, sub []byte, fn func(v []byte)) error {
	err := s.view(func(tx *store.Tx) error {
		root := tx.Bucket(bucketPairing)
		if root == nil {
			return nil // nothing paired yet
		}
		return root.ForEachBucket(func(name []byte) error {
			if channel != "" && string(name) != channel {
				return nil
			}
			b := root.Bucket(name).Bucket(sub)
			if b == nil {
				return nil
			}
			return b.ForEach(func(_, v []byte) error { fn(v); return nil })
		})
	})
	if err != nil {
		return fmt.Errorf("list pairing: %w", err)
	}
	return nil
}

// Expiry is the TTL codes get, for messages that tell a stranger how long
// their code lasts.
func (s *Store) Expiry() time.Duration { return s.opts.TTL }
