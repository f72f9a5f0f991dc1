package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// One node holds a lease at a time; a silent holder's lease expires on
// the server's clock and the next holder's epoch is larger.
func TestLeaseIsHeldByOneNode(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 3, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var ls []*Leases
	for _, n := range nodes {
		l, err := n.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	a, err := ls[0].Acquire(ctx, "session.s1")
	if err != nil {
		t.Fatal(err)
	}
	var held *HeldError
	if _, err := ls[1].Acquire(ctx, "session.s1"); !errors.As(err, &held) || held.Node != "n1" || held.Epoch != a.Epoch {
		t.Fatalf("n2 acquired a held lease: %v", err)
	}
	for range 3 { // renewals keep it past its TTL
		time.Sleep(ls[0].TTL() / 2)
		if err := ls[0].Renew(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if h, ok, err := ls[2].Holder(ctx, "session.s1"); err != nil || !ok || h.Node != "n1" || h.Epoch != a.Epoch {
		t.Fatalf("holder = %+v %v %v, want n1 epoch %d", h, ok, err, a.Epoch)
	}
	// n1 falls silent: the lease expires and n2 takes it with a larger epoch.
	var b *Lease
	deadline := time.Now().Add(3 * ls[0].TTL())
	for b == nil {
		if time.Now().After(deadline) {
			t.Fatal("the silent holder's lease never expired")
		}
		if b, err = ls[1].Acquire(ctx, "session.s1"); err != nil && !errors.As(err, &held) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if b.Epoch <= a.Epoch {
		t.Fatalf("epoch %d after %d", b.Epoch, a.Epoch)
	}
	if err := ls[0].Renew(ctx, a); !errors.Is(err, ErrLost) {
		t.Fatalf("the old holder renewed a lost lease: %v", err)
	}
	counts, err := ls[2].Count(ctx, "session.")
	if err != nil || counts["n2"] != 1 || len(counts) != 1 {
		t.Fatalf("counts = %v, %v", counts, err)
	}
	if err := ls[1].Release(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Reads come from any replica: a follower may lag a moment behind.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, ok, _ := ls[0].Holder(ctx, "session.s1"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a released lease is still held")
		}
	}
}

// A holder paused past its lease cannot write once its successor opened
// the key: the stream refuses it (fencing), and nothing it sent is stored.
func TestStaleHolderIsFencedOff(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 3, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	j1, err := nodes[0].Journal(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	j2, err := nodes[1].Journal(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	old := &Lease{Name: "s/1 x", Node: "n1", Epoch: 7}
	w1, recs, err := j1.Open(ctx, "s/1 x", old)
	if err != nil || len(recs) != 0 {
		t.Fatalf("open: %v %v", recs, err)
	}
	for _, s := range []string{"one", "two"} {
		if err := w1.Append(ctx, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	w2, recs, err := j2.Open(ctx, "s/1 x", &Lease{Name: "s/1 x", Node: "n2", Epoch: 9})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || !recs[0].Fence || string(recs[1].Data) != "one" || string(recs[2].Data) != "two" || recs[2].Epoch != 7 {
		t.Fatalf("n2 read %+v", recs)
	}
	if err := w1.Append(ctx, []byte("stale")); !errors.Is(err, ErrFenced) {
		t.Fatalf("the stale holder wrote: %v", err)
	}
	if err := w2.Append(ctx, []byte("three")); err != nil {
		t.Fatal(err)
	}
	recs, err = j1.Read(ctx, "s/1 x")
	if err != nil {
		t.Fatal(err)
	}
	var data []string
	for _, r := range recs {
		if !r.Fence {
			data = append(data, string(r.Data))
		}
	}
	if len(data) != 3 || data[2] != "three" {
		t.Fatalf("stored %q", data)
	}
}

// TestRetriedWriteIsTheWriteStored: a fenced write's attempt again after
// one that was stored but whose acknowledgement was lost (publish tries
// again after a timeout) is answered with the stored record's
// acknowledgement, not refused as another writer's, and stores nothing
// more; another write after the same record is refused.
func TestRetriedWriteIsTheWriteStored(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 3, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	j, err := nodes[1].Journal(ctx, "retry")
	if err != nil {
		t.Fatal(err)
	}
	record := func(data string) *nats.Msg {
		m := nats.NewMsg(j.subject + ".k")
		m.Data = []byte(data)
		m.Header.Set(hdrEpoch, "1")
		m.Header.Set(hdrNode, "n2")
		return m
	}
	first, err := j.publishOnce(ctx, record("one"), 0, "write-1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := j.publishOnce(ctx, record("one"), 0, "write-1") // its acknowledgement lost: the attempt again
	if err != nil || again.Sequence != first.Sequence {
		t.Fatalf("the stored write's retry: %+v, %v; want the acknowledgement of record %d", again, err, first.Sequence)
	}
	if _, err := j.publishOnce(ctx, record("two"), 0, "write-2"); !wrongLast(err) {
		t.Fatalf("another write after the same record: %v; want it refused", err)
	}
	recs, err := j.Read(ctx, "k")
	if err != nil || len(recs) != 1 || string(recs[0].Data) != "one" {
		t.Fatalf("the journal holds %+v (%v); want the one record", recs, err)
	}
}

// A renewal that was stored but whose answer was lost (a timed-out
// attempt is tried again) finds the lease's entry already renewed: the
// lease is kept, not taken for lost, and renews on from that entry.
func TestRenewalStoredUnansweredKeepsTheLease(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 1, 1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ls, err := nodes[0].Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ls.Acquire(ctx, "session.s1")
	if err != nil {
		t.Fatal(err)
	}
	val, _ := json.Marshal(leaseValue{Node: a.Node, Epoch: a.Epoch})
	if _, err := ls.kv.Update(ctx, leaseKey(a.Name), val, a.rev); err != nil { // stored; its answer "lost"
		t.Fatal(err)
	}
	for range 2 {
		if err := ls.Renew(ctx, a); err != nil {
			t.Fatalf("a renewal after one stored unanswered: %v", err)
		}
	}
	if h, ok, err := ls.Holder(ctx, a.Name); err != nil || !ok || h.Node != "n1" || h.Epoch != a.Epoch {
		t.Fatalf("holder = %+v %v %v", h, ok, err)
	}
	// An entry of its own no newer than the last renewal it knows (what a
	// replica that lags shows) is not taken for a renewal.
	a.rev += 5
	if err := ls.Renew(ctx, a); !errors.Is(err, ErrLost) {
		t.Fatalf("a renewal that only found an older entry of its own: %v; want the lease lost", err)
	}
}
