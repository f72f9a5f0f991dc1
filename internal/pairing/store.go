package pairing

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Errors callers tell apart with errors.Is.
var (
	ErrUnknownCode    = errors.New("no pending pairing request with that code")
	ErrExpired        = errors.New("pairing code expired")
	ErrTooManyPending = errors.New("too many pending pairing requests")
	ErrNotPaired      = errors.New("not paired")
	ErrInvalid        = errors.New("invalid pairing argument")
)

// Defaults.
const (
	DefaultTTL        = time.Hour
	DefaultMaxPending = 3
)

var (
	bucketPairing  = []byte("pairing") // owned by this package: one sub-bucket per channel
	bucketPending  = []byte("pending")
	bucketApproved = []byte("approved")
)

// Options configures a Store. Zero values take the defaults.
type Options struct {
	// TTL is how long a code stays valid (1 h).
	TTL time.Duration
	// MaxPending caps unexpired requests per channel (3). When the cap is
	// reached a new stranger is refused (ErrTooManyPending) rather than an
	// older request evicted, so a flood of strangers cannot push out the
	// code the owner is about to approve.
	MaxPending int
	// Clock defaults to clock.System.
	Clock clock.Clock
	// Rand is the randomness source of codes (crypto/rand.Reader).
	Rand io.Reader
}

// Pending is a stranger's request waiting for the owner.
type Pending struct {
	Channel   string    `json:"channel"`
	UserID    string    `json:"user_id"` // the channel's own id, e.g. "12345"
	Name      string    `json:"name,omitempty"`
	Code      string    `json:"code"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// LogValue keeps the code out of logs.
func (p Pending) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("channel", p.Channel),
		slog.String("user_id", p.UserID),
		slog.Time("expires_at", p.ExpiresAt),
	)
}

// Peer is an approved user of a channel.
type Peer struct {
	Channel    string    `json:"channel"`
	UserID     string    `json:"user_id"`
	Name       string    `json:"name,omitempty"`
	Agent      string    `json:"agent,omitempty"` // "" = the channel's default agent
	ApprovedAt time.Time `json:"approved_at"`
}

// Store keeps pairing state in bbolt: the area "pairing", in cluster mode
// the cluster's (ADR-045). It is safe for concurrent use.
type Store struct {
	db   *store.DB
	opts Options
}

// area is the store's area, opened on first use (the same for every
// Store of one DB).
func (s *Store) area() (*store.Area, error) {
	return s.db.Area("pairing", string(bucketPairing))
}

func (s *Store) update(fn func(*store.Tx) error) error {
	a, err := s.area()
	if err != nil {
		return err
	}
	return a.Update(fn)
}

func (s *Store) view(fn func(*store.Tx) error) error {
	a, err := s.area()
	if err != nil {
		return err
	}
	return a.View(fn)
}

// New returns a Store over db.
func New(db *store.DB, opts Options) *Store {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	opts.Clock = clock.Or(opts.Clock)
	return &Store{db: db, opts: opts}
}

// channelBuckets returns the pending and approved buckets of channel,
// creating them when create is set (nil, nil when absent and !create).
func channelBuckets(tx *store.Tx, channel string, create bool) (pending, approved *store.Bucket, err error) {
	root := tx.Bucket(bucketPairing)
	if !create {
		if root == nil {
			return nil, nil, nil
		}
		ch := root.Bucket([]byte(channel))
		if ch == nil {
			return nil, nil, nil
		}
		return ch.Bucket(bucketPending), ch.Bucket(bucketApproved), nil
	}
	if root, err = tx.CreateBucketIfNotExists(bucketPairing); err != nil {
		return nil, nil, fmt.Errorf("pairing bucket: %w", err)
	}
	ch, err := root.CreateBucketIfNotExists([]byte(channel))
	if err != nil {
		return nil, nil, fmt.Errorf("pairing bucket %s: %w", channel, err)
	}
	if pending, err = ch.CreateBucketIfNotExists(bucketPending); err != nil {
		return nil, nil, fmt.Errorf("pending bucket: %w", err)
	}
	if approved, err = ch.CreateBucketIfNotExists(bucketApproved); err != nil {
		return nil, nil, fmt.Errorf("approved bucket: %w", err)
	}
	return pending, approved, nil
}

func validArgs(channel, userID string) error {
	if channel == "" || userID == "" {
		return fmt.Errorf("%w: channel and user id are required", ErrInvalid)
	}
	return nil
}

// prune deletes expired requests from b and returns the live ones.
func (s *Store) prune(b *store.Bucket, now time.Time) ([]Pending, error) {
	var live []Pending
	var dead [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var p Pending
		if err := store.Decode(v, &p); err != nil || !now.Before(p.ExpiresAt) {
			dead = append(dead, append([]byte(nil), k...))
			return nil
		}
		live = append(live, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range dead {
		if err := b.Delete(k); err != nil {
			return nil, err
		}
	}
	return live, nil
}

func put(b *store.Bucket, key string, v any) error {
	data, err := store.Encode(v)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), data)
}
