package admin

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/usage"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Usage reports the usage ledger by a grouping since a time (zero: all),
// through the running daemon or, without one, from the store.
func (a *Admin) Usage(ctx context.Context, by string, since time.Time) (protocol.UsageReport, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.UsageReport{}, err
	}
	q := url.Values{}
	if by != "" {
		q.Set("by", by)
	}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339))
	}
	path := protocol.ControlUsage
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out protocol.UsageReport
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, path, nil, &out); ok || err != nil {
		return out, err
	}
	err = withStore(paths, func(db *store.DB) error {
		l, err := usage.New(db, nil, nil)
		if err != nil {
			return err
		}
		out, err = control.UsageReport(l, by, since)
		return err
	})
	return out, err
}

// withStore opens the database for fn when no daemon holds it.
func withStore(paths config.Paths, fn func(*store.DB) error) error {
	db, err := store.Open(paths.DB, store.Options{PIDFile: paths.PIDFile})
	if err != nil {
		return err
	}
	err = fn(db)
	if cerr := db.Close(); cerr != nil && err == nil {
		return cerr
	}
	return err
}
