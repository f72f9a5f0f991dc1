package telegram

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting"
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

// groups.trigger and groups.members take only their values; the error
// names the key and the values it takes.
func TestGroupsEnums(t *testing.T) {
	c := DefaultConfig()
	c.Groups.Trigger, c.Groups.Members = "always", "friends"
	var p setting.Problems
	c.Validate(p.Under("gateway.channels.telegram"))
	err := p.Err()
	for _, want := range []string{
		`gateway.channels.telegram.groups.trigger: "always" is not one of mention, all`,
		`gateway.channels.telegram.groups.members: "friends" is not one of admins, paired, anyone`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v\nwant %s", err, want)
		}
	}
	o := c.Options(func(string) string { return "" }).(Options)
	o.Token, o.Sessions, o.DB = "t", &fakeSessions{}, nil
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "groups.trigger") || !strings.Contains(err.Error(), "groups.members") {
		t.Errorf("New with the same values: %v, want both refused", err)
	}
}
