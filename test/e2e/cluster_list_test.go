package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// An operator lists the sessions right after JetStream's meta leader was
// killed with -9: another node answers, every session there, once the
// election is over (the listing's watch is asked again while nobody
// makes it, ADR-053), not when the CLI gives up.
func TestClusterListsSessionsWhileTheMetaLeaderIsDead(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	st := startCluster(t, rigs)
	var leader int
	if _, err := fmt.Sscanf(st.MetaLeader, "n%d", &leader); err != nil || leader < 1 || leader > 3 {
		t.Fatalf("meta leader %q", st.MetaLeader)
	}
	dead, asked := rigs[leader-1], rigs[leader%3]
	asked.chat("ana", "hello")
	dead.kill9()
	killed := time.Now()
	var users []string
	for _, s := range asked.h.sessions() {
		users = append(users, s.User)
	}
	t.Logf("listed %s after the meta leader %s was killed", time.Since(killed).Round(time.Millisecond), st.MetaLeader)
	for _, want := range []string{"api:warm", "api:ana"} {
		if !slices.Contains(users, want) {
			t.Errorf("the listing lacks %s: %q", want, users)
		}
	}
	awaitStatus(t, asked.h, "the quorum kept", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == 2 })
}
