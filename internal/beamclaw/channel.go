package beamclaw

// Channel names the surface a message came in through. It decides the
// session id (with core.session_sharing: per_channel), the autonomy
// ceiling (core.channel_autonomy) and whether the run is remote.
type Channel string

// The channels of beamclaw.
const (
	// ChannelTUI is the terminal UI, and any client speaking the WebSocket
	// protocol over the control socket (mode 0600: the daemon's own user).
	ChannelTUI Channel = "tui"
	// ChannelTelegram is a Telegram chat with the bot.
	ChannelTelegram Channel = "telegram"
	// ChannelHTTP is the OpenAI-compatible POST /v1/chat/completions.
	ChannelHTTP Channel = "http"
	// ChannelWS is GET /ws over TCP.
	ChannelWS Channel = "ws"
	// ChannelA2A is an A2A peer calling /a2a.
	ChannelA2A Channel = "a2a"
	// ChannelScheduler is a scheduled job or heartbeat.
	ChannelScheduler Channel = "sched"
)

// Channels lists every channel, for validation and docs.
var Channels = []Channel{ChannelTUI, ChannelTelegram, ChannelHTTP, ChannelWS, ChannelA2A, ChannelScheduler}

// Remote reports whether the channel reaches the agent from outside the
// daemon's own user: Telegram, HTTP, A2A and /ws over TCP (anyone who can
// reach the port, token or not, is somebody else). Only the control
// socket's clients (the TUI) and the scheduler, which runs what the
// owner set up, are local. Remote runs follow the stricter per-surface
// defaults (tools.remote_high_risk).
func (c Channel) Remote() bool {
	switch c {
	case ChannelTUI, ChannelScheduler:
		return false
	}
	return true
}

// Valid reports whether c is one of Channels.
func (c Channel) Valid() bool {
	for _, k := range Channels {
		if c == k {
			return true
		}
	}
	return false
}
