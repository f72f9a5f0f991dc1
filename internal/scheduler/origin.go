package scheduler

import "github.com/beamclaw/beamclaw-go/internal/beamclaw"

// Origin is the trust of the conversation that made a job with the
// scheduler tool. The job's runs get no more than it had: its autonomy
// is their ceiling and, when it came from a remote channel (or from a run
// acting for one), they follow that channel's rules (its
// core.channel_autonomy ceiling, tools.remote_high_risk) although they
// run on the local sched channel. A job with no Origin was made by the
// owner (`beamclaw scheduler add`, a heartbeat) or stored before origins
// were recorded, and runs with the scheduler's local trust.
type Origin struct {
	// Channel is the channel whose trust the creating run had
	// (beamclaw.Invocation.Trust).
	Channel beamclaw.Channel `json:"channel"`
	// Remote records whether that channel was remote when the job was
	// made (beamclaw.Channel.Remote).
	Remote bool `json:"remote,omitempty"`
	// Autonomy is the creating run's autonomy: the ceiling of every run
	// of the job ("" = none).
	Autonomy beamclaw.Autonomy `json:"autonomy,omitempty"`
}

// OriginOf is the trust of the run that invoked a tool.
func OriginOf(inv beamclaw.Invocation) *Origin {
	ch := inv.Trust
	if ch == "" {
		ch = inv.Channel
	}
	return &Origin{Channel: ch, Remote: ch.Remote(), Autonomy: inv.Autonomy}
}

// limit lowers t's trust to what the job's creator had.
func (o *Origin) limit(t *Turn) {
	if o == nil {
		return
	}
	if o.Autonomy != "" {
		t.Autonomy = t.Autonomy.Min(o.Autonomy)
	}
	if o.Remote {
		t.Trust = o.Channel
		if !t.Trust.Remote() { // a record that says remote is never run as local
			t.Trust = beamclaw.ChannelHTTP
		}
	}
}
