package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// KV is a bucket of string values by string key, for packages whose state
// is a small map (MCP tool pins, say). Writes go through the group commit.
type KV struct {
	db     *DB
	bucket []byte
}

// NewKV returns the KV of the bucket name, creating the bucket.
func NewKV(db *DB, name string) (*KV, error) {
	if err := db.Buckets(name); err != nil {
		return nil, err
	}
	return &KV{db: db, bucket: []byte(name)}, nil
}

// Get returns the value of key and whether it exists.
func (kv *KV) Get(key string) (string, bool, error) {
	var v []byte
	err := kv.db.View(func(tx *bolt.Tx) error {
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
	return kv.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(kv.bucket).Put([]byte(key), []byte(value))
	})
}

// Delete removes key.
func (kv *KV) Delete(key string) error {
	return kv.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(kv.bucket).Delete([]byte(key))
	})
}

// PutIfAbsent sets key to value unless key exists, and reports whether it
// set it; it returns once the value is on disk.
func (kv *KV) PutIfAbsent(key, value string) (bool, error) {
	put := false
	err := kv.db.Update(func(tx *bolt.Tx) error {
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
	return kv.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(kv.bucket).ForEach(func(k, v []byte) error { return fn(string(k), string(v)) })
	})
}
