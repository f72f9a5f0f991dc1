package mcp

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The mcp section's defaults are the ones the Manager applies to zero
// values: the restart policy's.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	o, err := DefaultConfig().Options(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	settingtest.DefaultsAgree(t, o.Restart, RestartPolicy{}.withDefaults())
}
