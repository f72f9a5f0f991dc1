package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

var (
	// ErrBadSecret: neither the gateway token nor a valid one-time code.
	ErrBadSecret = errors.New("that is neither the gateway token nor a valid one-time code (codes work once, for 10 minutes: run beamclaw console for a new one)")
	// ErrTooManyTries: too many wrong secrets lately, from anyone.
	ErrTooManyTries = errors.New("too many wrong sign-ins lately; wait a few minutes")
)

const (
	// CodeTTL is how long a one-time code stays valid.
	CodeTTL = 10 * time.Minute
	// maxCodes bounds the codes waiting to be typed.
	maxCodes = 64
	// maxFailures wrong secrets within CodeTTL, from anyone, close the
	// door until the oldest ages out: 31^8 codes cannot be guessed at
	// that rate.
	maxFailures = 20
)

var bucketLogins = []byte("console_logins") // sha256(cookie) hex -> login (JSON)

// login is a signed-in browser. Only the hash of its cookie is stored.
type login struct {
	CSRF    string    `json:"csrf"`
	Expires time.Time `json:"expires"`
	// Token is a fingerprint of the gateway token when it was given: a
	// changed token (rotated after a leak) ends every sign-in.
	Token string `json:"token"`
}

// Logins are the console's signed-in browsers (in bbolt: a restart keeps
// them) and its one-time codes (in memory: a restart voids them).
type Logins struct {
	db    *store.DB
	clock clock.Clock
	rand  io.Reader
	ttl   time.Duration
	token []byte // the gateway token ("": codes only)

	mu      sync.Mutex
	codes   map[string]time.Time // code -> expiry
	guesses pairing.Guesses      // wrong secrets within the last CodeTTL
}

// NewLogins opens the console's logins in db. token is the resolved
// gateway token ("" = none: only one-time codes sign in).
func NewLogins(db *store.DB, clk clock.Clock, rnd io.Reader, token string, ttl time.Duration) (*Logins, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	if err := db.Buckets(string(bucketLogins)); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	return &Logins{db: db, clock: clock.Or(clk), rand: rnd, ttl: ttl, token: []byte(token),
		codes: map[string]time.Time{}, guesses: pairing.Guesses{Max: maxFailures, Window: CodeTTL}}, nil
}

// Code makes a one-time code, valid for CodeTTL.
func (l *Logins) Code() (string, time.Time, error) {
	code, err := pairing.NewCode(l.rand)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("console: %w", err)
	}
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for c, exp := range l.codes {
		if !now.Before(exp) {
			delete(l.codes, c)
		}
	}
	if len(l.codes) >= maxCodes {
		return "", time.Time{}, errors.New("console: too many one-time codes are waiting; use one or wait 10 minutes")
	}
	l.codes[code] = now.Add(CodeTTL)
	return code, now.Add(CodeTTL), nil
}

// SignIn exchanges secret (the gateway token, or a one-time code, used
// up) for a new login: the cookie value and its CSRF token.
func (l *Logins) SignIn(secret string) (cookie, csrf string, err error) {
	if !l.accept(secret) {
		return "", "", l.fail()
	}
	cookie, err = l.random()
	if err != nil {
		return "", "", err
	}
	if csrf, err = l.random(); err != nil {
		return "", "", err
	}
	v, err := json.Marshal(login{CSRF: csrf, Expires: l.clock.Now().Add(l.ttl), Token: l.fingerprint()})
	if err != nil {
		return "", "", fmt.Errorf("console: %w", err)
	}
	err = l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLogins)
		now := l.clock.Now()
		var stale [][]byte // expired logins go as a new one comes
		_ = b.ForEach(func(k, v []byte) error {
			var old login
			if json.Unmarshal(v, &old) != nil || !now.Before(old.Expires) {
				stale = append(stale, k)
			}
			return nil
		})
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return b.Put(key(cookie), v)
	})
	if err != nil {
		return "", "", fmt.Errorf("console: sign in: %w", err)
	}
	return cookie, csrf, nil
}

// accept reports whether secret is the token or a live code (using it
// up). The token is checked before the wrong-guess budget: strangers'
// guesses lock out codes, never the operator who holds the token.
func (l *Logins) accept(secret string) bool {
	if len(l.token) > 0 && subtle.ConstantTimeCompare([]byte(secret), l.token) == 1 {
		return true
	}
	now := l.clock.Now()
	if l.guesses.LockedOut(now) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	code := pairing.NormalizeCode(secret)
	if exp, ok := l.codes[code]; ok {
		delete(l.codes, code)
		return now.Before(exp)
	}
	return false
}

// fail counts a wrong secret and says why it was refused.
func (l *Logins) fail() error {
	now := l.clock.Now()
	if l.guesses.LockedOut(now) {
		return ErrTooManyTries
	}
	l.guesses.Wrong(now)
	return ErrBadSecret
}

// Lookup returns the CSRF token of the live login of cookie.
func (l *Logins) Lookup(cookie string) (csrf string, ok bool) {
	if cookie == "" {
		return "", false
	}
	var in login
	err := l.db.View(func(tx *bolt.Tx) error {
		return json.Unmarshal(tx.Bucket(bucketLogins).Get(key(cookie)), &in)
	})
	if err != nil || !l.clock.Now().Before(in.Expires) || in.Token != l.fingerprint() {
		return "", false
	}
	return in.CSRF, true
}

// SignOut forgets the login of cookie.
func (l *Logins) SignOut(cookie string) error {
	err := l.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketLogins).Delete(key(cookie)) })
	if err != nil {
		return fmt.Errorf("console: sign out: %w", err)
	}
	return nil
}

// fingerprint names the gateway token without revealing it ("" for none).
func (l *Logins) fingerprint() string {
	if len(l.token) == 0 {
		return ""
	}
	sum := sha256.Sum256(append([]byte("beamclaw console login\x00"), l.token...))
	return hex.EncodeToString(sum[:8])
}

func (l *Logins) random() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(l.rand, b); err != nil {
		return "", fmt.Errorf("console: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func key(cookie string) []byte {
	sum := sha256.Sum256([]byte(cookie))
	return []byte(hex.EncodeToString(sum[:]))
}
