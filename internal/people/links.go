// Package people joins the accounts of one person across channels: a
// user id is a channel and an account ("tg:42", "ws:erin", "local:ana");
// Links maps each linked account to the person it belongs to, so that
// sessions, memory and approvals follow the person. A link is made only
// when the person proves both ends: a code shown on one account is typed
// on the other, as pairing does.
package people

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Errors callers tell apart with errors.Is.
var (
	// ErrBadCode: no valid link code like that (unknown, expired, used).
	ErrBadCode = errors.New("that link code is not valid (wrong, used or expired); ask for a new one with /link on your other account")
	// ErrSameAccount: the code was typed on the account that asked for it.
	ErrSameAccount = errors.New("type the code on your other account, not on the one that showed it")
	// ErrTooManyTries: too many wrong codes lately (from anyone).
	ErrTooManyTries = errors.New("too many wrong link codes were tried lately; wait a few minutes")
	// ErrNotLinked: the account is linked to no other.
	ErrNotLinked = errors.New("that account is not linked to another")
	// ErrNoAccount: an empty account id.
	ErrNoAccount = errors.New("no account given")
)

const (
	// CodeTTL is how long a link code stays valid.
	CodeTTL = 10 * time.Minute
	// maxCodes bounds the codes waiting to be typed (one per account).
	maxCodes = 1024
	// maxFailures wrong codes within CodeTTL, from any accounts (names
	// are cheap to change), stop every redeem until the window moves on:
	// with 31^8 codes a guess cannot win in a lifetime.
	maxFailures = 20
)

var (
	bucketLinks = []byte("people_links")      // account -> person
	bucketCodes = []byte("people_link_codes") // code -> pendingCode (JSON)
)

type pendingCode struct {
	Account string    `json:"account"`
	Expires time.Time `json:"expires"`
}

// Links is the link table, kept in bbolt and mirrored in memory so that
// resolving an account costs a map lookup. Safe for concurrent use.
type Links struct {
	area  *store.Area // "people": in cluster mode the cluster's (ADR-045)
	clock clock.Clock
	rand  io.Reader

	wmu     sync.Mutex // one Redeem or Unlink at a time
	mu      sync.RWMutex
	person  map[string]string // account -> person (only linked accounts)
	guesses pairing.Guesses   // wrong codes within the last CodeTTL
}

// Open loads the link table of db. clk and rnd may be nil (the system's).
func Open(db *store.DB, clk clock.Clock, rnd io.Reader) (*Links, error) {
	area, err := db.Area("people", string(bucketLinks), string(bucketCodes))
	if err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	l := &Links{area: area, clock: clock.Or(clk), rand: rnd, person: map[string]string{},
		guesses: pairing.Guesses{Max: maxFailures, Window: CodeTTL}}
	area.OnChange(func() { _ = l.load() }) // links made on other nodes
	if err := l.load(); err != nil {
		return nil, err
	}
	return l, nil
}

// load mirrors the link table as this replica holds it now.
func (l *Links) load() error {
	person := map[string]string{}
	err := l.area.Peek(func(tx *store.Tx) error {
		return tx.Bucket(bucketLinks).ForEach(func(k, v []byte) error {
			person[string(k)] = string(v)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("people: load links: %w", err)
	}
	l.mu.Lock()
	l.person = person
	l.mu.Unlock()
	return nil
}

// Resolve returns the person account belongs to: the account it is linked
// to, or account itself.
func (l *Links) Resolve(account string) string {
	l.mu.RLock()
	p, ok := l.person[account]
	l.mu.RUnlock()
	if ok {
		return p
	}
	return account
}

// Accounts returns every account of the person account belongs to, the
// person's own first.
func (l *Links) Accounts(account string) []string {
	out := l.members(l.Resolve(account))
	slices.Sort(out[1:])
	return out
}

// All returns every linked account and its person.
func (l *Links) All() map[string]string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make(map[string]string, len(l.person))
	for a, p := range l.person {
		out[a] = p
	}
	return out
}

// Issue makes a link code for account, valid for CodeTTL, replacing any
// code it had. The code is shown only to that account.
func (l *Links) Issue(ctx context.Context, account string) (code string, expires time.Time, err error) {
	if account == "" {
		return "", time.Time{}, ErrNoAccount
	}
	if code, err = pairing.NewCode(l.rand); err != nil {
		return "", time.Time{}, err
	}
	now := l.clock.Now()
	expires = now.Add(CodeTTL)
	v, err := json.Marshal(pendingCode{Account: account, Expires: expires})
	if err != nil {
		return "", time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return "", time.Time{}, err
	}
	err = l.area.Update(func(tx *store.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketCodes)
		if err != nil {
			return err
		}
		var stale [][]byte
		n := 0
		if err := b.ForEach(func(k, v []byte) error {
			var p pendingCode
			if json.Unmarshal(v, &p) != nil || p.Account == account || !now.Before(p.Expires) {
				stale = append(stale, slices.Clone(k))
			} else {
				n++
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		if n >= maxCodes {
			return errors.New("too many link codes are waiting; try again in a few minutes")
		}
		return b.Put([]byte(code), v)
	})
	if err != nil {
		return "", time.Time{}, fmt.Errorf("people: issue link code: %w", err)
	}
	return code, expires, nil
}

// Redeem links account to the person of the account that was shown code;
// it returns that person. The code is used up. The accounts linked to
// account so far move with it. Wrong codes count against account.
func (l *Links) Redeem(ctx context.Context, account, code string) (string, error) {
	if account == "" {
		return "", ErrNoAccount
	}
	code = pairing.NormalizeCode(code)
	l.wmu.Lock()
	defer l.wmu.Unlock()
	now := l.clock.Now()
	if l.guesses.LockedOut(now) {
		return "", ErrTooManyTries
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !l.known(code, now) { // a wrong code costs a read, not a write
		l.guesses.Wrong(now)
		return "", ErrBadCode
	}
	var person string
	var moved []string
	err := l.area.Update(func(tx *store.Tx) error {
		codes := tx.Bucket(bucketCodes)
		var p pendingCode
		if codes == nil || json.Unmarshal(codes.Get([]byte(code)), &p) != nil || !now.Before(p.Expires) {
			return ErrBadCode
		}
		if p.Account == account {
			return ErrSameAccount
		}
		if err := codes.Delete([]byte(code)); err != nil {
			return err
		}
		links, err := tx.CreateBucketIfNotExists(bucketLinks)
		if err != nil {
			return err
		}
		// From the table itself, not the mirror: in a cluster another
		// node may have linked since.
		person = resolveIn(links, p.Account)
		moved = membersIn(links, resolveIn(links, account))
		for _, a := range moved {
			if a == person {
				if err := links.Delete([]byte(a)); err != nil {
					return err
				}
				continue
			}
			if err := links.Put([]byte(a), []byte(person)); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrBadCode) {
		l.guesses.Wrong(now)
	}
	if err != nil {
		return "", err
	}
	l.mu.Lock()
	for _, a := range moved {
		if a == person {
			delete(l.person, a)
		} else {
			l.person[a] = person
		}
	}
	l.mu.Unlock()
	return person, nil
}

// resolveIn is Resolve on the link table b.
func resolveIn(b *store.Bucket, account string) string {
	if p := b.Get([]byte(account)); p != nil {
		return string(p)
	}
	return account
}

// membersIn is members on the link table b.
func membersIn(b *store.Bucket, p string) []string {
	out := []string{p}
	_ = b.ForEach(func(k, v []byte) error {
		if string(v) == p && string(k) != p {
			out = append(out, string(k))
		}
		return nil
	})
	return out
}

// members are the accounts of person p: p and those linked to it.
func (l *Links) members(p string) []string {
	out := []string{p}
	l.mu.RLock()
	for a, q := range l.person {
		if q == p && a != p {
			out = append(out, a)
		}
	}
	l.mu.RUnlock()
	return out
}

// Unlink separates account from the others of its person: a linked
// account becomes a person of its own again; the person's own account
// unlinks every account linked to it. It returns the accounts separated.
func (l *Links) Unlink(ctx context.Context, account string) ([]string, error) {
	if account == "" {
		return nil, ErrNoAccount
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	var gone []string
	if p := l.Resolve(account); p != account {
		gone = []string{account}
	} else {
		gone = l.members(account)[1:]
	}
	if len(gone) == 0 {
		return nil, ErrNotLinked
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	err := l.area.Update(func(tx *store.Tx) error {
		b := tx.Bucket(bucketLinks)
		if b == nil {
			return nil
		}
		for _, a := range gone {
			if err := b.Delete([]byte(a)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("people: unlink %s: %w", account, err)
	}
	l.mu.Lock()
	for _, a := range gone {
		delete(l.person, a)
	}
	l.mu.Unlock()
	slices.Sort(gone)
	return gone, nil
}

// known reports whether code waits to be typed.
func (l *Links) known(code string, now time.Time) bool {
	found := false
	_ = l.area.ViewLatest(func(tx *store.Tx) error {
		var p pendingCode
		if b := tx.Bucket(bucketCodes); b != nil && json.Unmarshal(b.Get([]byte(code)), &p) == nil {
			found = now.Before(p.Expires)
		}
		return nil
	})
	return found
}
