package leak

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { VerifyTestMain(m) }

// parked is a goroutine of this package's own that a test leaves running.
func parked(stop <-chan struct{}) { <-stop }

func TestOtherGoroutinesStillFail(t *testing.T) {
	stop := make(chan struct{})
	go parked(stop)
	err := goleak.Find(natsShutdownRace...)
	close(stop)
	if err == nil || !strings.Contains(err.Error(), "leak.parked") {
		t.Fatalf("a parked goroutine of our own is not reported: %v", err)
	}
}
