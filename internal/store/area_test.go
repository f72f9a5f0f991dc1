package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
)

// replicas opens one file per node, each a replica of the nodes' log.
func replicas(t *testing.T, nodes []*cluster.Node) []*DB {
	t.Helper()
	var dbs []*DB
	for i, n := range nodes {
		db := openAt(t, filepath.Join(t.TempDir(), fmt.Sprintf("n%d.db", i)))
		db.Replicate(n.State(), nil)
		dbs = append(dbs, db)
	}
	return dbs
}

func counter(tx *Tx) uint64 {
	if v := tx.Bucket([]byte("jobs")).Get([]byte("n")); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// increment is a read-modify-write: a lost update shows in the count.
func increment(tx *Tx) error {
	b := tx.Bucket([]byte("jobs"))
	runs, err := b.CreateBucketIfNotExists([]byte("runs"))
	if err != nil {
		return err
	}
	seq, err := runs.NextSequence()
	if err != nil {
		return err
	}
	if err := runs.Put(binary.BigEndian.AppendUint64(nil, seq), []byte("run")); err != nil {
		return err
	}
	return b.Put([]byte("n"), binary.BigEndian.AppendUint64(nil, counter(tx)+1))
}

// contents is everything the area holds, as a snapshot.
func contents(t *testing.T, a *Area) []byte {
	t.Helper()
	r, err := a.dump()
	if err != nil {
		t.Fatal(err)
	}
	return encodeRecord(r)
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 15 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAreaIsOneStateAcrossNodes: three nodes write one area at once,
// each a read-modify-write; none is lost, every replica ends equal, each
// hears of the others' writes, and a replica made later reads it all.
func TestAreaIsOneStateAcrossNodes(t *testing.T) {
	nodes := clustertest.Start(t, 3, 3)
	dbs := replicas(t, nodes)
	var areas []*Area
	var heard atomic.Int64
	for _, db := range dbs {
		a, err := db.Area("sched", "jobs")
		if err != nil {
			t.Fatal(err)
		}
		a.OnChange(func() { heard.Add(1) })
		areas = append(areas, a)
	}
	for i, a := range areas { // each replica's first catch-up, which a loaded machine can take past logTimeout
		eventually(t, fmt.Sprintf("replica %d caught up once", i), func() bool { return a.View(func(*Tx) error { return nil }) == nil })
	}
	var wg sync.WaitGroup
	for _, a := range areas {
		wg.Go(func() {
			for range 20 {
				if err := a.Update(increment); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i, a := range areas {
		eventually(t, fmt.Sprintf("replica %d holds 60", i), func() bool {
			var n uint64
			_ = a.View(func(tx *Tx) error { n = counter(tx); return nil })
			return n == 60
		})
	}
	want := contents(t, areas[0])
	for i, a := range areas[1:] {
		if got := contents(t, a); !bytes.Equal(got, want) {
			t.Errorf("replica %d differs from replica 0", i+1)
		}
	}
	if heard.Load() == 0 {
		t.Error("no node heard of another's writes")
	}
	eventually(t, "each change heard is counted (Changes)", func() bool {
		var changes uint64
		for _, a := range areas {
			changes += a.Changes()
		}
		return changes == uint64(heard.Load())
	})
	late := openAt(t, filepath.Join(t.TempDir(), "late.db"))
	late.Replicate(nodes[1].State(), nil)
	la, err := late.Area("sched", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	if err := la.View(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, la); !bytes.Equal(got, want) {
		t.Error("a replica made later does not hold what the others hold")
	}
}

// TestAreaSnapshotTrimsTheLog: past snapshotEvery writes the log is one
// snapshot and what follows it; a replica made then holds the same.
func TestAreaSnapshotTrimsTheLog(t *testing.T) {
	nodes := clustertest.Start(t, 1, 1)
	dbs := replicas(t, nodes)
	a, err := dbs[0].Area("pairs", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	for range snapshotEvery + 3 {
		if err := a.Update(increment); err != nil {
			t.Fatal(err)
		}
	}
	var kept int
	var first entry
	for after := uint64(0); ; kept++ {
		seq, data, ok, err := nodes[0].State().Next(context.Background(), "pairs", after)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if kept == 0 {
			if first, err = decodeRecord(data); err != nil {
				t.Fatal(err)
			}
		}
		after = seq
	}
	if !first.snapshot || kept != 4 {
		t.Fatalf("the log holds %d records, the first a snapshot: %v; want 4, true", kept, first.snapshot)
	}
	fresh := openAt(t, filepath.Join(t.TempDir(), "fresh.db"))
	fresh.Replicate(nodes[0].State(), nil)
	fa, err := fresh.Area("pairs", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	if err := fa.View(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(contents(t, fa), contents(t, a)) {
		t.Error("a replica made after the snapshot differs")
	}
}

// TestAreaSeedsAnEmptyLog: a node that ran alone brings its area into an
// empty log; another node's own former content gives way to it.
func TestAreaSeedsAnEmptyLog(t *testing.T) {
	nodes := clustertest.Start(t, 2, 1)
	var dbs []*DB
	for i, content := range []string{"first", "second"} {
		db := openAt(t, filepath.Join(t.TempDir(), fmt.Sprintf("n%d.db", i)))
		if err := db.Buckets("jobs"); err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("jobs")).Put([]byte(content), []byte("x"))
		}); err != nil {
			t.Fatal(err)
		}
		db.Replicate(nodes[i].State(), nil)
		dbs = append(dbs, db)
	}
	a0, err := dbs[0].Area("seeded", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	if err := a0.View(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	a1, err := dbs[1].Area("seeded", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	if err := a1.View(func(tx *Tx) error {
		return tx.Bucket([]byte("jobs")).ForEach(func(k, _ []byte) error { keys = append(keys, string(k)); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys) != "[first]" {
		t.Fatalf("the second node holds %v; want the first node's [first]", keys)
	}
}

// TestAreaAloneRecordsNothing: on a single node an area is its buckets,
// written and read as the DB's own.
func TestAreaAloneRecordsNothing(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "alone.db"))
	a, err := db.Area("sched", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := a.Update(increment); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	if err := a.Update(func(tx *Tx) error {
		if err := increment(tx); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("a failing transaction: %v", err)
	}
	var n uint64
	if err := a.View(func(tx *Tx) error { n = counter(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("count %d; want 3 (the failed transaction rolled back)", n)
	}
}

// TestRecordRoundTrip: every kind of write survives encoding, and a
// cursor's delete is recorded as the key it stood on.
func TestRecordRoundTrip(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "rt.db"))
	if err := db.Buckets("jobs"); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	err := db.dry(func(btx *bolt.Tx) error {
		tx := &Tx{tx: btx, rec: &rec}
		if err := increment(tx); err != nil {
			return err
		}
		b := tx.Bucket([]byte("jobs"))
		if err := b.Put([]byte("gone"), []byte{}); err != nil {
			return err
		}
		c := b.Cursor()
		if k, _ := c.Seek([]byte("gone")); string(k) != "gone" {
			return fmt.Errorf("seek: %q", k)
		}
		if err := c.Delete(); err != nil {
			return err
		}
		return b.DeleteBucket([]byte("runs"))
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeRecord(encodeRecord(entry{ops: rec.ops}))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.ops) != fmt.Sprint(rec.ops) || len(r.ops) != 7 {
		t.Fatalf("round trip:\n got %v\nwant %v", r.ops, rec.ops)
	}
	if last := r.ops[5]; last.kind != opDelete || string(last.key) != "gone" {
		t.Fatalf("the cursor's delete was recorded as %v", last)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(entry{ops: []op{{kind: opPut, path: [][]byte{[]byte("a")}, key: []byte("k"), value: []byte("v")}}}))
	f.Add(encodeRecord(entry{snapshot: true, ops: []op{{kind: opSequence, path: [][]byte{[]byte("a"), []byte("b")}, seq: 9}}}))
	f.Add([]byte{recordVersion, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRecord(data)
		if err != nil {
			return
		}
		if again, err := decodeRecord(encodeRecord(r)); err != nil || fmt.Sprint(again) != fmt.Sprint(r) {
			t.Fatalf("a decoded record does not survive encoding again: %v", err)
		}
	})
}

// TestAreaOfAClusterIsReadOnlyOffline: opened without the cluster (the
// CLI with no daemon), a former replica reads but refuses writes, which
// would reach no other node; a daemon alone takes the area back.
func TestAreaOfAClusterIsReadOnlyOffline(t *testing.T) {
	nodes := clustertest.Start(t, 1, 1)
	path := filepath.Join(t.TempDir(), "n.db")
	db := openAt(t, path)
	db.Replicate(nodes[0].State(), nil)
	a, err := db.Area("sched", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Update(increment); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	offline := openAt(t, path)
	oa, err := offline.Area("sched", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	if err := oa.View(func(tx *Tx) error { n = counter(tx); return nil }); err != nil || n != 1 {
		t.Fatalf("offline read: %d, %v", n, err)
	}
	if err := oa.Update(increment); !errors.Is(err, ErrClusterArea) {
		t.Fatalf("an offline write: %v; want ErrClusterArea", err)
	}
	if again, _ := offline.Area("sched", "jobs"); again != oa {
		t.Fatal("a second Area of one name is another area")
	}
	if err := offline.Close(); err != nil {
		t.Fatal(err)
	}
	alone := openAt(t, path)
	alone.Alone()
	la, err := alone.Area("sched", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	if err := la.Update(increment); err != nil {
		t.Fatalf("a daemon alone: %v", err)
	}
}

// TestSealedIsTheClusters: a token sealed on one node opens on another
// that has the same key file; a node with another key cannot open it and
// says why.
func TestSealedIsTheClusters(t *testing.T) {
	nodes := clustertest.Start(t, 3, 3)
	dbs := replicas(t, nodes)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	var sealed []*Sealed
	for i, db := range dbs {
		kf := key
		if i == 2 {
			kf = filepath.Join(dir, "other")
		}
		s, err := NewSealed(db, "mcp_tokens", kf)
		if err != nil {
			t.Fatal(err)
		}
		sealed = append(sealed, s)
	}
	if err := sealed[0].Put("github", []byte("token-1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the token on the second node", func() bool {
		v, ok, err := sealed[1].Get("github")
		return err == nil && ok && string(v) == "token-1"
	})
	eventually(t, "the third node's refusal", func() bool {
		_, _, err := sealed[2].Get("github")
		return err != nil && strings.Contains(err.Error(), "cannot open it with this key")
	})
}

// TestAreaNameIsOneArea: a name is one area: asked again with other
// buckets, or (in cluster mode) once as the cluster's and once as the
// node's, it is refused rather than handed over half-made.
func TestAreaNameIsOneArea(t *testing.T) {
	alone := openAt(t, filepath.Join(t.TempDir(), "alone.db"))
	if _, err := alone.Area("people", "links"); err != nil {
		t.Fatal(err)
	}
	if _, err := alone.Area("people", "files"); err == nil {
		t.Error("an area asked again with other buckets was handed over")
	}
	if _, err := alone.LocalArea("people", "links"); err != nil {
		t.Errorf("alone, a local and a shared area of one name are one: %v", err)
	}
	nodes := clustertest.Start(t, 1, 1)
	db := replicas(t, nodes)[0]
	if _, err := db.Area("inbox", "queue"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.LocalArea("inbox", "queue"); err == nil {
		t.Error("in cluster mode the cluster's area was handed over as the node's own")
	}
}

// stalledLog is a cluster's log without a quorum: a read waits until
// released (after it said it began, reading).
type stalledLog struct{ reading, release chan struct{} }

func (l *stalledLog) Next(context.Context, string, uint64) (uint64, []byte, bool, error) {
	select {
	case l.reading <- struct{}{}:
	default:
	}
	<-l.release
	return 0, nil, false, errors.New("no quorum")
}

func (l *stalledLog) Append(context.Context, string, uint64, []byte) (uint64, bool, error) {
	<-l.release
	return 0, false, errors.New("no quorum")
}

func (l *stalledLog) Trim(context.Context, string, uint64) error { return nil }

func (l *stalledLog) Watch(ctx context.Context, _ string, _ func()) error {
	<-ctx.Done()
	return nil
}

// TestOnChangeDoesNotWaitForTheLog: a package registering its callback
// while the replica waits for a log without a quorum (a cluster's first
// node starting alone) is not held up by that wait: the daemon's start
// once stalled 10 s at each such registration.
func TestOnChangeDoesNotWaitForTheLog(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "stalled.db"))
	log := &stalledLog{reading: make(chan struct{}, 1), release: make(chan struct{})}
	t.Cleanup(func() { close(log.release) }) // before the store closes
	db.Replicate(log, nil)
	a, err := db.Area("usage", "ledger")
	if err != nil {
		t.Fatal(err)
	}
	<-log.reading // the replica's catch-up is under way, and stalls
	done := make(chan struct{})
	go func() {
		a.OnChange(func() {})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("OnChange waits for the stalled log")
	}
}
