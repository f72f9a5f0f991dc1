package session

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The session keys' defaults are the ones the Manager applies to zero
// values (idle hibernation once said 10 minutes here and 300 s in config).
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	filled, err := Options{Engine: &loop.Engine{}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	filled.Engine = nil
	settingtest.DefaultsAgree(t, DefaultConfig().Options(), filled)
}
