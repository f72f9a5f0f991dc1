package control

import (
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/usage"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// UsageReport is the usage ledger's report by a grouping since a time,
// in its wire form.
func UsageReport(l *usage.Ledger, by string, since time.Time) (protocol.UsageReport, error) {
	rows, total, err := l.Report(by, since)
	if err != nil {
		return protocol.UsageReport{}, &UserError{Msg: err.Error(), Err: err}
	}
	if by == "" {
		by = "agent"
	}
	out := protocol.UsageReport{By: by, Since: since, Rows: make([]protocol.UsageRow, 0, len(rows)), Total: usageRow(total)}
	for _, r := range rows {
		out.Rows = append(out.Rows, usageRow(r))
	}
	return out, nil
}

// SessionUsage is the ledger's totals of the sessions ids, by id, read
// in one pass; a session without a recorded call (or without a ledger)
// has none.
func SessionUsage(l *usage.Ledger, ids ...string) (map[string]*protocol.UsageRow, error) {
	if l == nil {
		return nil, nil
	}
	rows, err := l.SessionTotals(ids...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*protocol.UsageRow, len(rows))
	for id, r := range rows {
		row := usageRow(r)
		out[id] = &row
	}
	return out, nil
}

func usageRow(r usage.Row) protocol.UsageRow {
	return protocol.UsageRow{Key: r.Key, Calls: r.Calls, In: r.In, Out: r.Out, Cached: r.Cached,
		USD: float64(r.MicroUSD) / 1e6, Estimated: r.Estimated, Unpriced: r.Unpriced}
}

func (c *handlers) usageGet(w http.ResponseWriter, r *http.Request) {
	if c.ledger == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no usage ledger")
		return
	}
	q := r.URL.Query()
	var since time.Time
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			writeError(w, http.StatusBadRequest, "since must be an RFC 3339 time: "+err.Error())
			return
		}
		since = t
	}
	rep, err := UsageReport(c.ledger, q.Get("by"), since)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
