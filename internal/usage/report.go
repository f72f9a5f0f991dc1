package usage

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Groupings of a report (beamclaw usage --by).
var Groupings = []string{"agent", "user", "day", "session", "origin", "model", "provider"}

// Row is one group of a report.
type Row struct {
	Key       string `json:"key"`
	Calls     int    `json:"calls"`
	In        int64  `json:"in"`
	Out       int64  `json:"out"`
	Cached    int64  `json:"cached"`
	MicroUSD  int64  `json:"micro_usd"`
	Estimated int    `json:"estimated,omitempty"` // calls whose tokens are estimated
	Unpriced  int    `json:"unpriced,omitempty"`  // calls the rate sheet has no rate for
}

func (r *Row) add(e Entry) {
	r.Calls++
	r.In += int64(e.In)
	r.Out += int64(e.Out)
	r.Cached += int64(e.Cached)
	r.MicroUSD += e.MicroUSD
	if e.Estimated {
		r.Estimated++
	}
	if !e.Priced {
		r.Unpriced++
	}
}

// Report sums the entries since a time by a grouping, the biggest cost
// first (then the most tokens), with the total.
func (l *Ledger) Report(by string, since time.Time) (rows []Row, total Row, err error) {
	key, err := groupKey(by)
	if err != nil {
		return nil, Row{}, err
	}
	groups := map[string]*Row{}
	total.Key = "total"
	err = l.Scan(since, func(e Entry) bool {
		k := key(e)
		r := groups[k]
		if r == nil {
			r = &Row{Key: k}
			groups[k] = r
		}
		r.add(e)
		total.add(e)
		return true
	})
	if err != nil {
		return nil, Row{}, err
	}
	for _, r := range groups {
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b Row) int {
		if by == "day" {
			return cmp.Compare(a.Key, b.Key)
		}
		return cmp.Or(cmp.Compare(b.MicroUSD, a.MicroUSD), cmp.Compare(b.In+b.Out, a.In+a.Out), cmp.Compare(a.Key, b.Key))
	})
	return rows, total, nil
}

func groupKey(by string) (func(Entry) string, error) {
	switch by {
	case "", "agent":
		return func(e Entry) string { return e.Agent }, nil
	case "user":
		return func(e Entry) string { return orNone(e.User) }, nil
	case "day":
		return func(e Entry) string { return e.At.UTC().Format(time.DateOnly) }, nil
	case "session":
		return func(e Entry) string { return orNone(e.Session) }, nil
	case "origin":
		return func(e Entry) string { return e.Origin }, nil
	case "model":
		return func(e Entry) string { return e.Provider + "/" + e.Model }, nil
	case "provider":
		return func(e Entry) string { return e.Provider }, nil
	}
	return nil, fmt.Errorf("unknown grouping %q: use one of %v", by, Groupings)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// SessionTotals sums the model calls of the sessions ids in one pass
// over the ledger: the tokens in, out and cached, and their cost
// (beamclaw sessions show, users export). A session without a recorded
// call has no row.
func (l *Ledger) SessionTotals(ids ...string) (map[string]Row, error) {
	out := make(map[string]Row, len(ids))
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	err := l.Scan(time.Time{}, func(e Entry) bool {
		if want[e.Session] {
			r := out[e.Session]
			r.Key = e.Session
			r.add(e)
			out[e.Session] = r
		}
		return true
	})
	return out, err
}
