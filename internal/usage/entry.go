package usage

import (
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Origins of a model call.
const (
	OriginInteractive = "interactive" // a user's turn on a channel
	OriginHeartbeat   = "heartbeat"
	OriginJob         = "job" // a scheduled job's turn
	OriginA2A         = "a2a" // another agent's call
	OriginMaintenance = "maintenance"
)

// Origins are the origins, for reports.
var Origins = []string{OriginInteractive, OriginHeartbeat, OriginJob, OriginA2A, OriginMaintenance}

// Entry is one model call in the ledger.
type Entry struct {
	At        time.Time `json:"at"`
	Node      string    `json:"node,omitempty"` // the node that made the call (cluster mode)
	Session   string    `json:"session,omitempty"`
	User      string    `json:"user,omitempty"`
	Agent     string    `json:"agent"`
	Channel   string    `json:"channel,omitempty"`
	Origin    string    `json:"origin"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	In        int       `json:"in"`
	Out       int       `json:"out"`
	Cached    int       `json:"cached,omitempty"`
	Estimated bool      `json:"estimated,omitempty"` // the provider gave no usage: bytes / 4
	MicroUSD  int64     `json:"micro_usd,omitempty"` // the cost, millionths of a dollar
	Priced    bool      `json:"priced,omitempty"`    // the rate sheet has the model
}

// Attribution is whose calls a run made.
type Attribution struct {
	Session, User, Agent string
	Channel              beamclaw.Channel
	Origin               string
}

// OriginOf is the origin of a run on channel: maintenance when it is
// session maintenance, a2a for A2A, heartbeat or job for the scheduler
// (thread "heartbeat:..." is a heartbeat's), interactive otherwise.
func OriginOf(channel beamclaw.Channel, thread string, maintenance bool) string {
	switch {
	case maintenance:
		return OriginMaintenance
	case channel == beamclaw.ChannelA2A:
		return OriginA2A
	case channel == beamclaw.ChannelScheduler && strings.HasPrefix(thread, beamclaw.HeartbeatThreadPrefix):
		return OriginHeartbeat
	case channel == beamclaw.ChannelScheduler:
		return OriginJob
	}
	return OriginInteractive
}
