package people

import (
	"context"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

// TestPairingAndLinksAreTheClusters: in cluster mode a pairing asked on
// one node is approved on a second and lets the peer in on the third; a
// link code shown on one node is typed on another and the third resolves
// the linked account to its person. A node whose content was its own
// before it joined takes the cluster's.
func TestPairingAndLinksAreTheClusters(t *testing.T) {
	_, dbs := replicatest.Stores(t, 3, 3)
	var pairs []*pairing.Store
	var links []*Links
	for _, db := range dbs {
		l, err := Open(db, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		pairs, links = append(pairs, pairing.New(db, pairing.Options{})), append(links, l)
	}
	p, created, err := pairs[0].Request("telegram", "tg:42", "erin")
	if err != nil || !created {
		t.Fatalf("request: %v %v", created, err)
	}
	if _, err := pairs[1].Approve("telegram", p.Code, "ana"); err != nil {
		t.Fatalf("approve on another node: %v", err)
	}
	replicatest.Within(t, "the peer let in on the third node", func() bool {
		agent, ok := pairs[2].Allowed("telegram", "tg:42")
		return ok && agent == "ana"
	})
	ctx := context.Background()
	code, _, err := links[0].Issue(ctx, "tg:42")
	if err != nil {
		t.Fatal(err)
	}
	person, err := links[1].Redeem(ctx, "ws:erin", code)
	if err != nil || person != "tg:42" {
		t.Fatalf("redeem on another node: %q %v", person, err)
	}
	replicatest.Within(t, "the link on the third node", func() bool { return links[2].Resolve("ws:erin") == "tg:42" })
	if _, err := links[2].Unlink(ctx, "ws:erin"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "the unlink on the first node", func() bool { return links[0].Resolve("ws:erin") == "ws:erin" })
}
