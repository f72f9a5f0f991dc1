package initgc

import (
	"runtime/debug"
	"testing"

	"go.uber.org/goleak"
)

// offAtInit is the percentage in force when the tests start, before any
// Resume: what every binary importing the package runs its inits under.
var offAtInit int

func TestMain(m *testing.M) {
	offAtInit = debug.SetGCPercent(100)
	goleak.VerifyTestMain(m)
}

func TestTheCollectorIsOffWhilePackagesInitialise(t *testing.T) {
	if offAtInit != -1 {
		t.Fatalf("GC percent at the end of package init = %d, want -1 (off)", offAtInit)
	}
}

// The cases are what the runtime itself makes of GOGC at start (checked
// against `GOGC=v` and debug.SetGCPercent in a plain binary, Go 1.26).
func TestResumeGivesBackWhatGOGCAsks(t *testing.T) {
	defer debug.SetGCPercent(100)
	for _, c := range []struct {
		gogc string
		want int
	}{{"", 100}, {"50", 50}, {"400", 400}, {"+80", 80}, {"off", -1}, {"nonsense", 100},
		{"2147483647", 2147483647}, {"3000000000", 100}, {"-1", -1}, {"-5", -1}, {"007", 7}} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(-1)
		Resume()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: percent after Resume = %d, want %d", c.gogc, got, c.want)
		}
	}
}
