package protocol

import "time"

// ControlUsage answers GET with UsageReport; query: by (agent, user, day,
// session, origin, model, provider; default agent), since (RFC 3339; none:
// everything).
const ControlUsage = "/control/usage"

// UsageReport sums the usage ledger's model calls by a grouping.
type UsageReport struct {
	By    string     `json:"by"`
	Since time.Time  `json:"since,omitzero"`
	Rows  []UsageRow `json:"rows"`
	Total UsageRow   `json:"total"`
}

// UsageRow is one group of a UsageReport.
type UsageRow struct {
	Key       string  `json:"key"`
	Calls     int     `json:"calls"`
	In        int64   `json:"in"`
	Out       int64   `json:"out"`
	Cached    int64   `json:"cached"`
	USD       float64 `json:"usd"`
	Estimated int     `json:"estimated,omitempty"` // calls whose tokens are estimated (the provider reported none)
	Unpriced  int     `json:"unpriced,omitempty"`  // calls core.costs.rates has no rate for
}
