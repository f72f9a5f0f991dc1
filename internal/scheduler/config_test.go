package scheduler

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The scheduler section's defaults are the ones the Scheduler applies to
// zero values.
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	filled, err := Options{DB: &store.DB{}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	filled.DB = nil
	settingtest.DefaultsAgree(t, DefaultConfig().Options(), filled)
}

// A heartbeat target is checked by ParseDelivery, the parser the
// scheduler uses when it delivers (telegram:abc once passed the config's
// own looser copy of the rules; a channel's target is now the channel's
// to check, config.CheckDelivery, e2e TestCheckAndStartAgree).
func TestConfigDeliveryIsParsedOnce(t *testing.T) {
	for deliver, ok := range map[string]bool{
		"tui": true, "telegram:42": true, "telegram:@news_bot": true, "webhook:https://x.example/h": true, "silent": true,
		"telegram:": false, "tui:me": false, "webhook:ftp://x": false, "pager": false,
	} {
		c := DefaultConfig()
		c.Heartbeat.Deliver = deliver
		var p setting.Problems
		c.Validate(p.Under("scheduler"))
		err := p.Err()
		if ok != (err == nil) {
			t.Errorf("deliver %q: err %v, want ok=%v", deliver, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "scheduler.heartbeat.deliver") {
			t.Errorf("deliver %q: the error does not name the key: %v", deliver, err)
		}
	}
}
