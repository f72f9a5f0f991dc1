package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A person whose approval was asked on one node reconnects to another:
// the new connection is asked again (the node where the session lives
// relays it), its answer runs the tool once there, and the run's answer
// arrives on the new connection.
func TestClusterApprovalFollowsThePersonAcrossNodes(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	owner, elsewhere := rigs[1], rigs[2]
	owner.llm.SetDefault(fakellm.Rules)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := owner.dial("ana")
	if _, err := first.Send(ctx, `call tool write_file {"path":"rejoined.txt","content":"once"}`); err != nil {
		t.Fatal(err)
	}
	asked := frameOf(t, first, protocol.FrameApprovalRequest)
	_ = first.Close()

	again := elsewhere.dial("ana")
	re := frameOf(t, again, protocol.FrameApprovalRequest)
	if re.Approval == nil || re.Approval.ID != asked.Approval.ID || re.RunID != asked.RunID {
		t.Fatalf("ana reconnected to another node was asked %+v, want the same approval %+v", re.Approval, asked.Approval)
	}
	if err := again.Approve(re.Approval.ID, protocol.DecisionAllow); err != nil {
		t.Fatal(err)
	}
	final := frameOf(t, again, protocol.FrameFinal)
	if final.RunID != asked.RunID || !strings.Contains(final.Text, "write_file") {
		t.Errorf("the final answer on the new node: %+v, want run %s's", final, asked.RunID)
	}
	b, err := os.ReadFile(filepath.Join(owner.h.dir, "agents", "default", "rejoined.txt"))
	if err != nil || strings.TrimSpace(string(b)) != "once" {
		t.Errorf("the approved tool's file where the session lives: %q %v", b, err)
	}
}
