package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// leaderless are the answers to a request to a stream that has no leader
// now: its leader died and the others elect one within seconds (ADR-051).
func leaderless() []error { return []error{nats.ErrNoResponders, jetstream.ErrNoStreamResponse} }

// kvWait bounds how long one key-value operation waits for its stream to
// answer (a lost quorum is an error after it, not a wait for ever).
const kvWait = 10 * time.Second

// kvCall calls fn as retryAPI does, and again while its stream elects a
// leader, for kvWait at most: a read or a write of a bucket whose
// leader was killed is answered by the next leader, not refused.
func kvCall[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, kvWait)
	defer cancel()
	return retryAPI(ctx, fn, leaderless()...)
}

// Bucket is a replicated key-value bucket (R = cluster.replicas). A put
// returns once a quorum stored it.
type Bucket struct {
	kv   jetstream.KeyValue
	name string
}

// Bucket opens (creating when missing) the bucket name.
func (n *Node) Bucket(ctx context.Context, name string) (*Bucket, error) {
	kv, err := n.keyValue(ctx, jetstream.KeyValueConfig{Bucket: name, History: 1,
		Replicas: n.cfg.Replicas, Storage: jetstream.FileStorage, MaxValueSize: 8 << 20})
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", name, err)
	}
	return &Bucket{kv: kv, name: name}, nil
}

// keyValue returns the bucket of cfg, creating it when missing, looked
// up first like a stream (Node.stream). A bucket whose TTL changed
// (cluster.lease_ttl) is updated.
func (n *Node) keyValue(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return retryAPI(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		kv, err := n.js.KeyValue(ctx, cfg.Bucket)
		if err == nil {
			st, err := kv.Status(ctx)
			if err != nil || st.TTL() == cfg.TTL {
				return kv, err
			}
			return n.js.CreateOrUpdateKeyValue(ctx, cfg)
		}
		if !errors.Is(err, jetstream.ErrBucketNotFound) {
			return nil, err
		}
		return n.js.CreateKeyValue(ctx, cfg)
	}, jetstream.ErrBucketExists, jetstream.ErrStreamNameAlreadyInUse)
}

// Get reads key (false: none).
func (b *Bucket) Get(ctx context.Context, key string) ([]byte, bool, error) {
	e, err := kvCall(ctx, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return b.kv.Get(ctx, leaseKey(key)) })
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cluster: %s get: %w", b.name, err)
	}
	return e.Value(), true, nil
}

// Put stores val at key.
func (b *Bucket) Put(ctx context.Context, key string, val []byte) error {
	if _, err := kvCall(ctx, func(ctx context.Context) (uint64, error) { return b.kv.Put(ctx, leaseKey(key), val) }); err != nil {
		return fmt.Errorf("cluster: %s put: %w", b.name, err)
	}
	return nil
}

// Delete removes key (none: nothing to do).
func (b *Bucket) Delete(ctx context.Context, key string) error {
	_, err := kvCall(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, b.kv.Delete(ctx, leaseKey(key)) })
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("cluster: %s delete: %w", b.name, err)
	}
	return nil
}

// Each calls fn with every key's value (keys as Put named them when
// they were plain; encoded ones come back encoded).
func (b *Bucket) Each(ctx context.Context, fn func(key string, val []byte)) error {
	w, err := b.watchAll(ctx)
	if err != nil {
		return fmt.Errorf("cluster: %s list: %w", b.name, err)
	}
	defer w.stop()
	for {
		select {
		case e := <-w.Updates():
			if e == nil {
				return nil // the initial values are all delivered
			}
			fn(e.Key(), e.Value())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// watcher is a watch of every key and what stops it.
type watcher struct {
	jetstream.KeyWatcher
	cancel context.CancelFunc
}

func (w watcher) stop() {
	_ = w.Stop()
	w.cancel()
}

// watchAll watches every key until ctx ends. The watch reads through an
// ordered consumer, which JetStream's meta leader creates: a request for
// one while the meta group elects a leader goes unanswered, and nothing
// asks it again. So each attempt is bounded as kvCall bounds one and
// asked again, and a listing made while the meta leader is dead waits
// for the next one (for kvWait at most), not for ctx.
func (b *Bucket) watchAll(ctx context.Context) (watcher, error) {
	return kvCall(ctx, func(attempt context.Context) (watcher, error) {
		wctx, cancel := context.WithCancel(ctx) // the watch outlives the attempt
		stop := context.AfterFunc(attempt, cancel)
		w, err := b.kv.WatchAll(wctx, jetstream.IgnoreDeletes())
		if !stop() { // the attempt ended first
			if err == nil {
				_ = w.Stop()
			}
			return watcher{}, attempt.Err()
		}
		if err != nil {
			cancel()
			return watcher{}, err
		}
		return watcher{KeyWatcher: w, cancel: cancel}, nil
	})
}
