package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// tokenStore keeps MCP OAuth records as JSON in a sealed bucket (AES-GCM
// under the key file, never in the clear in the database) and hands every
// secret it reads or writes to seen (the daemon's scrubber), so a token
// can be removed from anything that would show it. A key file that cannot
// be used (damaged, readable by others) turns the logins off, not the
// store's owner: every call fails with oauth.ErrLoginRequired and the key's
// problem, and the key is tried again at the next call (once it is moved
// aside, a login makes a new one).
type tokenStore struct {
	db      *store.DB
	keyFile string
	seen    func(secrets ...string)

	mu     sync.Mutex
	sealed *store.Sealed // nil until the key loads
}

var _ oauth.Store = (*tokenStore)(nil)

// MCPTokenStore opens the sealed store of MCP OAuth records. seen, when
// not nil, receives every secret read or written. Only the database's
// errors fail it; the key file's make the logins unavailable
// (MCPKeyProblem says why).
func MCPTokenStore(db *store.DB, keyFile string, seen func(secrets ...string)) (oauth.Store, error) {
	if err := db.Buckets(oauth.Bucket); err != nil {
		return nil, fmt.Errorf("mcp token store: %w", err)
	}
	if seen == nil {
		seen = func(...string) {}
	}
	t := &tokenStore{db: db, keyFile: keyFile, seen: seen}
	_, _ = t.open() // a key problem is reported by every call
	return t, nil
}

// MCPKeyProblem is why the key file sealing the MCP logins cannot be
// used (nil when it can, or when there is none yet).
func MCPKeyProblem(keyFile string) error {
	if _, err := os.Stat(keyFile); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	_, err := store.LoadKey(keyFile)
	return err
}

// MCPKeyFix is what to do about an MCPKeyProblem.
func MCPKeyFix(keyFile string) string {
	return "move " + keyFile + " aside (the stored MCP logins are lost with it), then `beamclaw mcp login NAME` for each server that needs one"
}

func (t *tokenStore) open() (*store.Sealed, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sealed != nil {
		return t.sealed, nil
	}
	s, err := store.NewSealed(t.db, oauth.Bucket, t.keyFile)
	if err != nil {
		return nil, fmt.Errorf("the MCP logins are unavailable (%w): %w", err, oauth.ErrLoginRequired)
	}
	t.sealed = s
	return s, nil
}

func (t *tokenStore) Load(ctx context.Context, server string) (oauth.Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return oauth.Record{}, false, err
	}
	sealed, err := t.open()
	if err != nil {
		return oauth.Record{}, false, err
	}
	raw, ok, err := sealed.Get(server)
	if err != nil || !ok {
		return oauth.Record{}, false, err
	}
	var r oauth.Record
	if err := json.Unmarshal(raw, &r); err != nil {
		return oauth.Record{}, false, fmt.Errorf("decode the login of %s: %w", server, err)
	}
	t.seen(r.Secrets()...)
	return r, true, nil
}

func (t *tokenStore) Save(ctx context.Context, r oauth.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.seen(r.Secrets()...)
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	sealed, err := t.open()
	if err != nil {
		return err
	}
	return sealed.Put(r.Server, raw)
}

func (t *tokenStore) Delete(ctx context.Context, server string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sealed, err := t.open()
	if err != nil {
		return err
	}
	return sealed.Delete(server)
}
