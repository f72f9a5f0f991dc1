package initgc

import (
	"os"
	"runtime/debug"
	"testing"
)

// offAtInit is the percentage in force when the tests start, before any
// Resume: what every binary importing the package runs its inits under.
var offAtInit int

func TestMain(m *testing.M) {
	offAtInit = debug.SetGCPercent(100)
	os.Exit(m.Run())
}

func TestTheCollectorIsOffWhilePackagesInitialise(t *testing.T) {
	if offAtInit != -1 {
		t.Fatalf("GC percent at the end of package init = %d, want -1 (off)", offAtInit)
	}
}

func TestResumeGivesBackWhatGOGCAsks(t *testing.T) {
	defer debug.SetGCPercent(100)
	for _, c := range []struct {
		gogc string
		want int
	}{{"", 100}, {"50", 50}, {"400", 400}, {"off", -1}, {"nonsense", 100}} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(-1)
		Resume()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: percent after Resume = %d, want %d", c.gogc, got, c.want)
		}
	}
}
