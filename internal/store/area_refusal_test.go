package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
)

// deafLog is a node's log that pings no one: its replica hears of the
// other nodes' writes only when it writes (or polls).
type deafLog struct{ Log }

func (deafLog) Watch(ctx context.Context, _ string, _ func()) error {
	<-ctx.Done()
	return nil
}

// TestUpdateDecidesARefusalOnTheNewestState: fn refusing on a replica
// behind the log is run again once the replica caught up, so another
// node's write a moment ago counts; a refusal on the newest state stands.
func TestUpdateDecidesARefusalOnTheNewestState(t *testing.T) {
	nodes := clustertest.Start(t, 2, 1)
	behind := openAt(t, filepath.Join(t.TempDir(), "n1.db"))
	behind.Replicate(deafLog{nodes[0].State()}, nil)
	ahead := replicas(t, nodes[1:])[0]
	var areas []*Area
	for _, db := range []*DB{behind, ahead} {
		a, err := db.Area("sched", "jobs")
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the replica caught up once", func() bool { return a.View(func(*Tx) error { return nil }) == nil })
		areas = append(areas, a)
	}
	errNone := errors.New("no job counted yet")
	onlyAfterOne := func(tx *Tx) error {
		if counter(tx) == 0 {
			return errNone
		}
		return increment(tx)
	}
	if err := areas[0].Update(onlyAfterOne); !errors.Is(err, errNone) {
		t.Fatalf("a refusal on the newest state: %v; want it to stand", err)
	}
	if err := areas[1].Update(increment); err != nil { // the other node counts one
		t.Fatal(err)
	}
	if err := areas[0].Update(onlyAfterOne); err != nil {
		t.Fatalf("refused on a replica behind the other node's write: %v", err)
	}
	var n uint64
	if err := areas[0].View(func(tx *Tx) error { n = counter(tx); return nil }); err != nil || n != 2 {
		t.Fatalf("count %d (%v), want 2", n, err)
	}
}
