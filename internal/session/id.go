package session

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// ID derives the session id of a user talking to an agent: "session-" and
// the hex SHA-256 of user id and agent id, plus the channel when sessions
// are per channel (core.session_sharing: per_channel).
func ID(userID, agentID string, channel beamclaw.Channel, perChannel bool) string {
	h := sha256.New()
	h.Write([]byte(userID))
	h.Write([]byte{0})
	h.Write([]byte(agentID))
	if perChannel {
		h.Write([]byte{0})
		h.Write([]byte(channel))
	}
	var sum [sha256.Size]byte
	return "session-" + hex.EncodeToString(h.Sum(sum[:0]))
}

// idLen is the length of every id ID returns; history keys rely on it.
const idLen = len("session-") + 2*sha256.Size

// UserID is the user id a channel uses: canonical (BEAMCLAW_USER) when
// set, so one person's sessions follow them across channels; otherwise
// the channel prefix ("local", "tg", "api", "ws", "a2a", with or without
// the colon) and the channel's own id.
func UserID(channelPrefix, id, canonical string) string {
	if canonical != "" {
		return canonical
	}
	if !strings.HasSuffix(channelPrefix, ":") {
		channelPrefix += ":"
	}
	return channelPrefix + id
}
