package cluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// leaseBucket is the KV bucket of every lease. Its entries expire after
// cluster.lease_ttl without an update: the server, not the nodes' clocks,
// decides when a silent holder's claim ends.
const leaseBucket = "beamclaw_leases"

// ErrLost is returned when a lease was taken over or expired: its holder
// must stop acting for it at once.
var ErrLost = errors.New("cluster: lease lost")

// HeldError is returned when another node holds the lease asked for.
type HeldError struct {
	Name  string
	Node  string
	Epoch uint64
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("cluster: %s is held by node %s (epoch %d)", e.Name, e.Node, e.Epoch)
}

// Lease is a node's claim on a name (a session, a singleton). Its epoch
// is the bucket's revision when it was acquired: every later holder's is
// larger, and writes made under the lease carry it (fencing, journal.go).
// The entry an acquisition writes names no epoch (its revision is the
// epoch); renewals write it.
type Lease struct {
	Name  string
	Node  string
	Epoch uint64
	rev   uint64 // the entry's revision after the last acquire or renewal (sync/atomic: renewals and a release may race)
}

type leaseValue struct {
	Node  string `json:"node"`
	Epoch uint64 `json:"epoch,omitempty"`
}

// Leases are the cluster's claims, as one node sees and makes them.
type Leases struct {
	kv   jetstream.KeyValue
	node string
	ttl  time.Duration
}

// Leases opens (creating when missing) the lease bucket, once: later
// calls return the same (opening it is a request to the meta leader).
func (n *Node) Leases(ctx context.Context) (*Leases, error) {
	n.leaseMu.Lock()
	defer n.leaseMu.Unlock()
	if n.leases != nil {
		return n.leases, nil
	}
	kv, err := n.keyValue(ctx, jetstream.KeyValueConfig{Bucket: leaseBucket, History: 1,
		TTL: n.cfg.LeaseTTL, Replicas: n.cfg.Replicas, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("cluster: lease bucket: %w", err)
	}
	n.leases = &Leases{kv: kv, node: n.cfg.NodeID, ttl: n.cfg.LeaseTTL}
	return n.leases, nil
}

// TTL is how long a lease lasts without renewal.
func (l *Leases) TTL() time.Duration { return l.ttl }

// Acquire claims name for this node. A lease held by another node is a
// *HeldError; one this node's earlier life left behind is taken over
// with a new epoch. Each request waits out an election of the bucket's
// leader (kvCall): one whose stored write went unacknowledged is tried
// again, and finds the lease this node's.
func (l *Leases) Acquire(ctx context.Context, name string) (*Lease, error) {
	key := leaseKey(name)
	val, _ := json.Marshal(leaseValue{Node: l.node})
	rev, err := kvCall(ctx, func(ctx context.Context) (uint64, error) { return l.kv.Create(ctx, key, val) })
	if err == nil {
		return &Lease{Name: name, Node: l.node, Epoch: rev, rev: rev}, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, fmt.Errorf("cluster: acquire %s: %w", name, err)
	}
	cur, err := kvCall(ctx, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return l.kv.Get(ctx, key) })
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return l.Acquire(ctx, name) // expired in between
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: acquire %s: %w", name, err)
	}
	h := holderOf(cur)
	if h.Node != l.node {
		return nil, &HeldError{Name: name, Node: h.Node, Epoch: h.Epoch}
	}
	rev, err = kvCall(ctx, func(ctx context.Context) (uint64, error) { return l.kv.Update(ctx, key, val, cur.Revision()) })
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyNotFound) {
		return l.Acquire(ctx, name) // changed in between (or this update stored, its answer lost): read it again
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: acquire %s: %w", name, err)
	}
	return &Lease{Name: name, Node: l.node, Epoch: rev, rev: rev}, nil
}

// Renew extends the lease by another TTL. ErrLost: it expired or another
// node holds it now. A renewal stored whose answer was lost (tried again,
// kvCall) is found as this lease's own entry, not taken for a loss.
func (l *Leases) Renew(ctx context.Context, ls *Lease) error {
	key := leaseKey(ls.Name)
	val, _ := json.Marshal(leaseValue{Node: ls.Node, Epoch: ls.Epoch})
	rev, err := kvCall(ctx, func(ctx context.Context) (uint64, error) {
		return l.kv.Update(ctx, key, val, atomic.LoadUint64(&ls.rev))
	})
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		// Only this lease writes its value; a newer revision of it is
		// this renewal's (a replica that lags shows no newer one).
		cur, gerr := kvCall(ctx, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return l.kv.Get(ctx, key) })
		if gerr == nil && cur.Revision() > atomic.LoadUint64(&ls.rev) && holderOf(cur) == (leaseValue{Node: ls.Node, Epoch: ls.Epoch}) {
			rev, err = cur.Revision(), nil
		}
	}
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("%w: %s", ErrLost, ls.Name)
	}
	if err != nil {
		return fmt.Errorf("cluster: renew %s: %w", ls.Name, err)
	}
	atomic.StoreUint64(&ls.rev, rev)
	return nil
}

// Release gives the lease up, unless it was already lost.
func (l *Leases) Release(ctx context.Context, ls *Lease) error {
	err := l.kv.Delete(ctx, leaseKey(ls.Name), jetstream.LastRevision(atomic.LoadUint64(&ls.rev)))
	if err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return fmt.Errorf("cluster: release %s: %w", ls.Name, err)
	}
	return nil
}

// Holder is who holds name now (false: nobody).
func (l *Leases) Holder(ctx context.Context, name string) (Lease, bool, error) {
	e, err := kvCall(ctx, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return l.kv.Get(ctx, leaseKey(name)) })
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, fmt.Errorf("cluster: holder of %s: %w", name, err)
	}
	h := holderOf(e)
	return Lease{Name: name, Node: h.Node, Epoch: h.Epoch}, true, nil
}

// Count is how many leases under prefix each node holds.
func (l *Leases) Count(ctx context.Context, prefix string) (map[string]int, error) {
	keys, err := l.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list leases: %w", err)
	}
	out := map[string]int{}
	want := leaseKey(prefix)
	for k := range keys.Keys() {
		if !strings.HasPrefix(k, want) {
			continue
		}
		if e, err := l.kv.Get(ctx, k); err == nil {
			out[holderOf(e).Node]++
		}
	}
	return out, nil
}

func holderOf(e jetstream.KeyValueEntry) leaseValue {
	var v leaseValue
	_ = json.Unmarshal(e.Value(), &v)
	if v.Epoch == 0 {
		v.Epoch = e.Revision()
	}
	return v
}

var plainKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$`) })

// leaseKey is name as a KV key: as it is when a key may be, else base64
// after '=' (which no plain key holds).
// A prefix ending in '.' stays a prefix of its names' keys.
func leaseKey(name string) string {
	if plainKey().MatchString(name) {
		return name
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 && plainKey().MatchString(name[:i+1]) {
		return name[:i+1] + "=" + base64.RawURLEncoding.EncodeToString([]byte(name[i+1:]))
	}
	return "=" + base64.RawURLEncoding.EncodeToString([]byte(name))
}
