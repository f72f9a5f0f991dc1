package loop

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// core.agentic_loop's defaults are the ones the loop applies to zero
// values.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	filled, err := Options{Providers: func(string) (beamclaw.Provider, string, error) { return nil, "", nil }}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	settingtest.DefaultsAgree(t, DefaultConfig().Options(), filled)
}
