package memory

import (
	"context"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

// TestNotesAreTheClusters: a user's notes kept through one node are the
// ones every node recalls, searches, replaces and forgets (ADR-045), also
// through a mirror loaded before the other node wrote.
func TestNotesAreTheClusters(t *testing.T) {
	ctx := context.Background()
	_, dbs := replicatest.Stores(t, 2, 2)
	opts := testOptions(clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)))
	n1, err := OpenBolt(ctx, dbs[0], "", "main@erin", opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := n1.Store(ctx, "pet", "a cat named Miso", CategoryCore); err != nil {
		t.Fatal(err)
	}
	var n2 *Bolt
	replicatest.Within(t, "n2 opens erin's note", func() bool {
		if n2, err = OpenBolt(ctx, dbs[1], "", "main@erin", opts, nil); err != nil {
			t.Fatal(err)
		}
		e, err := n2.Get(ctx, "pet")
		return err == nil && e.Value == "a cat named Miso"
	})

	if err := n1.Store(ctx, "pet", "a dog named Luna", CategoryCore); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "n2's open mirror finds the replaced note", func() bool {
		r, err := n2.Search(ctx, Query{Text: "Luna"})
		old, _ := n2.Recall(ctx, "Miso", 5, All)
		return err == nil && len(r.Hits) == 1 && r.Hits[0].Source == "pet" && len(old) == 0
	})

	if err := n2.Forget(ctx, "pet"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "n1 forgets what n2 forgot", func() bool {
		_, err := n1.Get(ctx, "pet")
		return beamclaw.KindOf(err) == beamclaw.KindNotFound
	})

	if err := n2.Store(ctx, "tea", "green, no sugar", CategoryCore); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "n1 sees n2's new note", func() bool {
		e, err := n1.Get(ctx, "tea")
		return err == nil && e.Value == "green, no sugar"
	})
	if had, err := DropBolt(dbs[0], "", "main@erin"); err != nil || !had {
		t.Fatalf("drop on n1: %v, %v", had, err)
	}
	replicatest.Within(t, "n2 keeps nothing of erin once n1 dropped her notes", func() bool {
		got, err := n2.Recall(ctx, "", 10, All)
		return err == nil && len(got) == 0
	})
}
