package store

import (
	"errors"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Tx is a transaction over an Area's buckets: bbolt's, with its writes
// also recorded when the area is replicated by the cluster, so that every
// node replays the same changes in the same order (area.go).
type Tx struct {
	tx  *bolt.Tx
	rec *recorder // nil: nothing is recorded
}

// recorder collects a transaction's writes, in order.
type recorder struct{ ops []op }

// add records one write (copies of its bytes: bbolt's are the
// transaction's); nothing without a recorder.
func (r *recorder) add(kind opKind, path [][]byte, key, value []byte, seq uint64) {
	if r != nil {
		r.ops = append(r.ops, op{kind: kind, path: path, key: clone(key), value: clone(value), seq: seq})
	}
}

// Writable reports whether the transaction may write.
func (t *Tx) Writable() bool { return t.tx.Writable() }

// Bucket returns the top-level bucket name, or nil.
func (t *Tx) Bucket(name []byte) *Bucket {
	return wrapBucket(t.tx.Bucket(name), nil, name, t.rec)
}

// CreateBucketIfNotExists returns the top-level bucket name, creating it.
func (t *Tx) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	t.rec.add(opCreateBucket, nil, name, nil, 0)
	return wrapBucket(b, nil, name, t.rec), nil
}

// DeleteBucket deletes the top-level bucket name.
func (t *Tx) DeleteBucket(name []byte) error {
	if err := t.tx.DeleteBucket(name); err != nil {
		return err
	}
	t.rec.add(opDeleteBucket, nil, name, nil, 0)
	return nil
}

// Bucket is a bucket of a Tx.
type Bucket struct {
	b    *bolt.Bucket
	path [][]byte // from the top-level bucket down (recorded areas only)
	rec  *recorder
}

func wrapBucket(b *bolt.Bucket, parent [][]byte, name []byte, rec *recorder) *Bucket {
	if b == nil {
		return nil
	}
	w := &Bucket{b: b, rec: rec}
	if rec != nil {
		w.path = append(parent[:len(parent):len(parent)], clone(name))
	}
	return w
}

// Get returns key's value (nil: none, or a nested bucket), valid for the
// transaction's life.
func (b *Bucket) Get(key []byte) []byte { return b.b.Get(key) }

// Put sets key to value.
func (b *Bucket) Put(key, value []byte) error {
	if err := b.b.Put(key, value); err != nil {
		return err
	}
	b.rec.add(opPut, b.path, key, value, 0)
	return nil
}

// Delete removes key (none: nothing to do).
func (b *Bucket) Delete(key []byte) error {
	if err := b.b.Delete(key); err != nil {
		return err
	}
	b.rec.add(opDelete, b.path, key, nil, 0)
	return nil
}

// ForEach calls fn for every key in order (v nil: a nested bucket).
func (b *Bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }

// ForEachBucket calls fn with the name of every nested bucket.
func (b *Bucket) ForEachBucket(fn func(k []byte) error) error { return b.b.ForEachBucket(fn) }

// Bucket returns the nested bucket name, or nil.
func (b *Bucket) Bucket(name []byte) *Bucket {
	return wrapBucket(b.b.Bucket(name), b.path, name, b.rec)
}

// CreateBucketIfNotExists returns the nested bucket name, creating it.
func (b *Bucket) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	nb, err := b.b.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	b.rec.add(opCreateBucket, b.path, name, nil, 0)
	return wrapBucket(nb, b.path, name, b.rec), nil
}

// DeleteBucket deletes the nested bucket name.
func (b *Bucket) DeleteBucket(name []byte) error {
	if err := b.b.DeleteBucket(name); err != nil {
		return err
	}
	b.rec.add(opDeleteBucket, b.path, name, nil, 0)
	return nil
}

// Sequence is the bucket's sequence number.
func (b *Bucket) Sequence() uint64 { return b.b.Sequence() }

// NextSequence increments the bucket's sequence number and returns it.
func (b *Bucket) NextSequence() (uint64, error) {
	n, err := b.b.NextSequence()
	if err != nil {
		return 0, err
	}
	b.rec.add(opSequence, b.path, nil, nil, n)
	return n, nil
}

// SetSequence sets the bucket's sequence number.
func (b *Bucket) SetSequence(n uint64) error {
	if err := b.b.SetSequence(n); err != nil {
		return err
	}
	b.rec.add(opSequence, b.path, nil, nil, n)
	return nil
}

// KeyN is the number of keys in the bucket.
func (b *Bucket) KeyN() int { return b.b.Stats().KeyN }

// Cursor returns a cursor over the bucket.
func (b *Bucket) Cursor() *Cursor { return &Cursor{c: b.b.Cursor(), b: b} }

// Cursor walks a Bucket in key order.
type Cursor struct {
	c   *bolt.Cursor
	b   *Bucket
	key []byte // where it stands (what Delete deletes)
}

func (c *Cursor) at(k, v []byte) ([]byte, []byte) {
	c.key = k
	return k, v
}

// First moves to the first key.
func (c *Cursor) First() ([]byte, []byte) { return c.at(c.c.First()) }

// Last moves to the last key.
func (c *Cursor) Last() ([]byte, []byte) { return c.at(c.c.Last()) }

// Next moves to the next key.
func (c *Cursor) Next() ([]byte, []byte) { return c.at(c.c.Next()) }

// Prev moves to the previous key.
func (c *Cursor) Prev() ([]byte, []byte) { return c.at(c.c.Prev()) }

// Seek moves to key, or the next one after it.
func (c *Cursor) Seek(key []byte) ([]byte, []byte) { return c.at(c.c.Seek(key)) }

// Delete removes the key the cursor stands on.
func (c *Cursor) Delete() error {
	if err := c.c.Delete(); err != nil {
		return err
	}
	c.b.rec.add(opDelete, c.b.path, c.key, nil, 0)
	return nil
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// missing reports whether err is bbolt's "no such bucket".
func missing(err error) bool { return errors.Is(err, berrors.ErrBucketNotFound) }
