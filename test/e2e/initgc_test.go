package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestCollectorIsOffBeforeTheHeavyInits: internal/initgc initialises
// before the packages whose init allocates most (GODEBUG=inittrace=1 of
// the real binary), so their garbage is not collected during start-up.
func TestCollectorIsOffBeforeTheHeavyInits(t *testing.T) {
	h := newHome(t, "")
	h.env = append(h.env, "GODEBUG=inittrace=1")
	r := h.must("version")
	order := map[string]int{}
	n := 0
	for _, line := range strings.Split(r.stderr, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = n
			n++
		}
	}
	initgc, ok := order["github.com/beamclaw/beamclaw-go/internal/initgc"]
	if !ok {
		t.Fatalf("internal/initgc did not initialise (%d inits traced):\n%s", n, r.stderr)
	}
	for _, heavy := range []string{"github.com/santhosh-tekuri/jsonschema/v6", "github.com/yuin/goldmark/extension", "github.com/prometheus/client_golang/prometheus"} {
		if i, ok := order[heavy]; !ok {
			t.Errorf("%s is no longer initialised: update this test's list", heavy)
		} else if i < initgc {
			t.Errorf("%s initialises (#%d) before internal/initgc (#%d)", heavy, i, initgc)
		}
	}
}

// TestDaemonCollectsGarbageAsGOGCAsks: the collector, off while the
// binary's packages initialise (internal/initgc), is back on in the
// running daemon, at 100 by default and at what GOGC asks otherwise.
func TestDaemonCollectsGarbageAsGOGCAsks(t *testing.T) {
	for _, c := range []struct {
		gogc string
		want float64
	}{{"", 100}, {"50", 50}} {
		h := newHome(t, "")
		h.env = slices.DeleteFunc(h.env, func(kv string) bool { return strings.HasPrefix(kv, "GOGC=") })
		if c.gogc != "" {
			h.env = append(h.env, "GOGC="+c.gogc)
		}
		s := h.start()
		if got := metric(t, s.HTTPAddr, "beamclaw_go_gc_gogc_percent"); got != c.want {
			t.Errorf("GOGC=%q: the daemon's GC percent is %v, want %v", c.gogc, got, c.want)
		}
		h.must("stop")
	}
}
