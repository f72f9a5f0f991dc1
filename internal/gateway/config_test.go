package gateway

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// gateway.ws's defaults are the ones the WebSocket API applies to zero
// values.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	settingtest.DefaultsAgree(t, DefaultConfig().WSOptions(), NewWS(WSOptions{}).opts)
}
