package telegram

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The section's defaults are the ones the channel applies to zero values.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	c := DefaultConfig()
	c.On = true
	o, ok := c.Options(func(string) string { return "" }).(Options)
	if !ok {
		t.Fatalf("Options returned %T, want Options", c.Options(nil))
	}
	var filled Options
	filled.withDefaults()
	filled.Logger, filled.Clock = nil, nil
	settingtest.DefaultsAgree(t, o, filled)
}
