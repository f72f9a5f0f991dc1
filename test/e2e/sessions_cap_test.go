package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// metric reads one unlabelled gauge or counter from /metrics.
func metric(t *testing.T, addr, name string) float64 {
	t.Helper()
	_, body := get(t, "http://"+addr+"/metrics")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in /metrics", name)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestLiveSessionsStayUnderTheCap: 20 times more distinct users than
// core.max_live_sessions never hold more than the cap in memory, and the
// sessions waiting for their next message hold no goroutines. CI runs
// 5,000 users against a cap of 250; BEAMCLAW_E2E_SESSIONS=20000 runs the
// issue's figure (a cap of 1,000), about two minutes on two cores.
func TestLiveSessionsStayUnderTheCap(t *testing.T) {
	users, workers := 5000, 16
	if n, err := strconv.Atoi(os.Getenv("BEAMCLAW_E2E_SESSIONS")); err == nil && n > 0 {
		users = n
	}
	cap := users / 20
	r := newChatRig(t, rigOptions{core: fmt.Sprintf("  max_live_sessions: %d\n  session_persistence: false\n", cap),
		gateway: "  rate_limit: {enabled: false}\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	var next atomic.Int64
	var maxLive atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(users) {
					return
				}
				if code, body := r.post(fmt.Sprint("user-", i), "hi"); code != 200 {
					t.Errorf("user %d: %d %s", i, code, body)
					return
				}
				if i%1000 == 0 {
					if live := int64(metric(t, r.addr, "beamclaw_sessions_live")); live > maxLive.Load() {
						maxLive.Store(live)
					}
				}
			}
		}()
	}
	wg.Wait()
	live := metric(t, r.addr, "beamclaw_sessions_live")
	goroutines := metric(t, r.addr, "beamclaw_go_goroutines")
	rss := metric(t, r.addr, "beamclaw_process_resident_memory_bytes")
	t.Logf("%d users: %v live at the end (max seen %d), %v goroutines, RSS %.0f MB", users, live, maxLive.Load(), goroutines, rss/1e6)
	if live > float64(cap) || maxLive.Load() > int64(cap+workers) {
		t.Errorf("%v sessions live at the end (max seen %d), cap %d", live, maxLive.Load(), cap)
	}
	if goroutines > 200 {
		t.Errorf("%v goroutines with %v idle sessions: idle sessions hold goroutines", goroutines, live)
	}
}
