package telegram

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The section's defaults are the ones the channel applies to zero values.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	c := DefaultConfig()
	c.Enabled = true
	o, err := c.Options(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var filled Options
	filled.withDefaults()
	filled.Logger, filled.Clock = nil, nil
	settingtest.DefaultsAgree(t, *o, filled)
}
