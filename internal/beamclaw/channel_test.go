package beamclaw

import "testing"

// TCP /ws is as remote as HTTP: only the control socket's TUI and the
// scheduler are local.
func TestChannelRemote(t *testing.T) {
	want := map[Channel]bool{ChannelTelegram: true, ChannelHTTP: true, ChannelA2A: true, ChannelWS: true,
		ChannelTUI: false, ChannelScheduler: false}
	for _, c := range Channels {
		if got := c.Remote(); got != want[c] {
			t.Errorf("%s.Remote() = %v, want %v", c, got, want[c])
		}
	}
	if len(want) != len(Channels) {
		t.Errorf("Channels has %d entries, the test knows %d", len(Channels), len(want))
	}
	if Channel("").Valid() || Channel("smtp").Valid() || !ChannelWS.Valid() {
		t.Error("Valid accepts an unknown channel or refuses a known one")
	}
}
