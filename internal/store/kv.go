package store

import (
	"fmt"
)

// KV is a bucket of string values by string key, for packages whose state
// is a small map (MCP tool pins, say). Writes go through the group commit.
// A KV is this node's own in cluster mode (NewKV) or the cluster's
// (NewSharedKV, ADR-045).
type KV struct {
	area   *Area
	bucket []byte
}

// NewKV returns the KV of the bucket name, creating the bucket; in
// cluster mode it stays this node's.
func NewKV(db *DB, name string) (*KV, error) {
	a, err := db.LocalArea("kv."+name, name)
	if err != nil {
		return nil, err
	}
	return &KV{area: a, bucket: []byte(name)}, nil
}

// NewSharedKV is NewKV for a map every node of a cluster shares (a
// Telegram user's chosen agent, whichever node answers them).
func NewSharedKV(db *DB, name string) (*KV, error) {
	a, err := db.Area("kv."+name, name)
	if err != nil {
		return nil, err
	}
	return &KV{area: a, bucket: []byte(name)}, nil
}

// Get returns the value of key and whether it exists.
func (kv *KV) Get(key string) (string, bool, error) {
	var v []byte
	err := kv.area.View(func(tx *Tx) error {
		if b := tx.Bucket(kv.bucket).Get([]byte(key)); b != nil {
			v = append([]byte{}, b...)
		}
		return nil
	})
	if err != nil {
		return "", false, fmt.Errorf("read %s/%s: %w", kv.bucket, key, err)
	}
	return string(v), v != nil, nil
}

// Put sets key to value and returns once it is on disk.
func (kv *KV) Put(key, value string) error {
	return kv.area.Update(func(tx *Tx) error {
		return tx.Bucket(kv.bucket).Put([]byte(key), []byte(value))
	})
}

// Delete removes key.
func (kv *KV) Delete(key string) error {
	return kv.area.Update(func(tx *Tx) error {
		return tx.Bucket(kv.bucket).Delete([]byte(key))
	})
}

// PutIfAbsent sets key to value unless key exists, and reports whether it
// set it; it returns once the value is on disk.
func (kv *KV) PutIfAbsent(key, value string) (bool, error) {
	put := false
	err := kv.area.Update(func(tx *Tx) error {
		put = false // fn may run again: from scratch
		b := tx.Bucket(kv.bucket)
		if b.Get([]byte(key)) != nil {
			return nil
		}
		put = true
		return b.Put([]byte(key), []byte(value))
	})
	return put, err
}

// Each calls fn for every key in key order, in one read transaction; an
// error from fn stops the walk and is returned.
func (kv *KV) Each(fn func(key, value string) error) error {
	return kv.area.View(func(tx *Tx) error {
		return tx.Bucket(kv.bucket).ForEach(func(k, v []byte) error { return fn(string(k), string(v)) })
	})
}
