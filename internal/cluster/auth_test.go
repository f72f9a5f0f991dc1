package cluster

import (
	"testing"

	"github.com/nats-io/nats.go"
)

// The client port takes only cluster.token: an operator's tool connects
// with it, anything else is refused.
func TestClientPortWantsTheToken(t *testing.T) {
	cfgs := testConfigs(t, 1, 1)
	cfgs[0].Routes = nil // a cluster of one
	startNode(t, cfgs[0], t.TempDir())
	url := "nats://" + cfgs[0].ClientListen
	for _, opts := range [][]nats.Option{nil, {nats.Token("not-the-token")}} {
		if nc, err := nats.Connect(url, opts...); err == nil {
			nc.Close()
			t.Fatal("the client port let in a client without the token")
		}
	}
	nc, err := nats.Connect(url, nats.Token(testToken))
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	nc.Close()
}
