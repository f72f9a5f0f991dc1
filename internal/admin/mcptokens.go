package admin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// tokenStore keeps MCP OAuth records as JSON in a sealed bucket (AES-GCM
// under the key file, never in the clear in the database) and hands every
// secret it reads or writes to seen (the daemon's scrubber), so a token
// can be removed from anything that would show it.
type tokenStore struct {
	sealed *store.Sealed
	seen   func(secrets ...string)
}

var _ oauth.Store = (*tokenStore)(nil)

// MCPTokenStore opens the sealed store of MCP OAuth records. seen, when
// not nil, receives every secret read or written.
func MCPTokenStore(db *store.DB, keyFile string, seen func(secrets ...string)) (oauth.Store, error) {
	s, err := store.NewSealed(db, oauth.Bucket, keyFile)
	if err != nil {
		return nil, fmt.Errorf("mcp token store: %w", err)
	}
	if seen == nil {
		seen = func(...string) {}
	}
	return &tokenStore{sealed: s, seen: seen}, nil
}

func (t *tokenStore) Load(ctx context.Context, server string) (oauth.Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return oauth.Record{}, false, err
	}
	raw, ok, err := t.sealed.Get(server)
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
	return t.sealed.Put(r.Server, raw)
}

func (t *tokenStore) Delete(ctx context.Context, server string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return t.sealed.Delete(server)
}
