package sandbox

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The sandbox section's defaults are the ones New applies to zero values.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	settingtest.DefaultsAgree(t, DefaultConfig().Options(), Options{}.withDefaults())
}
