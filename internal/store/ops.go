package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A record of a replicated area is the writes of one transaction, or a
// snapshot of the whole area (every bucket replaced), encoded as
//
//	version(1) flags(1) count(uvarint) op*
//	op: kind(1) depth(uvarint) (len(uvarint) name)* len key len value seq(uvarint)
//
// Every node applies the same records in the same order.

const recordVersion = 1

const flagSnapshot = 1

type opKind byte

const (
	opPut opKind = 1 + iota
	opDelete
	opCreateBucket // key: the bucket's name, path: its parent's
	opDeleteBucket
	opSequence // seq: the bucket's sequence number
)

// op is one write: to the bucket at path (top-level first).
type op struct {
	kind       opKind
	path       [][]byte
	key, value []byte
	seq        uint64
}

// entry is a decoded record.
type entry struct {
	snapshot bool
	ops      []op
}

// maxOps bounds what a record may claim to hold before it is read.
const maxOps = 1 << 24

func encodeRecord(r entry) []byte {
	out := []byte{recordVersion, 0}
	if r.snapshot {
		out[1] = flagSnapshot
	}
	out = binary.AppendUvarint(out, uint64(len(r.ops)))
	for _, o := range r.ops {
		out = append(out, byte(o.kind))
		out = binary.AppendUvarint(out, uint64(len(o.path)))
		for _, p := range o.path {
			out = appendBytes(out, p)
		}
		out = appendBytes(out, o.key)
		out = appendBytes(out, o.value)
		out = binary.AppendUvarint(out, o.seq)
	}
	return out
}

func appendBytes(out, b []byte) []byte {
	out = binary.AppendUvarint(out, uint64(len(b)))
	return append(out, b...)
}

var errRecord = errors.New("store: malformed replicated record")

// decodeRecord reads a record; any malformation is errRecord.
func decodeRecord(data []byte) (entry, error) {
	if len(data) < 2 || data[0] != recordVersion || data[1]&^flagSnapshot != 0 {
		return entry{}, fmt.Errorf("%w: header", errRecord)
	}
	d := decoder{b: data[2:]}
	r := entry{snapshot: data[1]&flagSnapshot != 0}
	n := d.uvarint()
	if n > maxOps || n > uint64(len(d.b)) {
		return entry{}, fmt.Errorf("%w: %d writes", errRecord, n)
	}
	r.ops = make([]op, 0, n)
	for range n {
		o := op{kind: opKind(d.byte())}
		depth := d.uvarint()
		if depth > uint64(len(d.b)) {
			return entry{}, fmt.Errorf("%w: depth %d", errRecord, depth)
		}
		for range depth {
			o.path = append(o.path, d.bytes())
		}
		o.key, o.value, o.seq = d.bytes(), d.bytes(), d.uvarint()
		if d.bad || o.kind < opPut || o.kind > opSequence {
			return entry{}, fmt.Errorf("%w: write %d", errRecord, len(r.ops))
		}
		r.ops = append(r.ops, o)
	}
	if d.bad || len(d.b) != 0 {
		return entry{}, fmt.Errorf("%w: trailing bytes", errRecord)
	}
	return r, nil
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// apply replays a record's writes into tx. A snapshot first empties the
// area's buckets. A write to a bucket that is missing creates it: the
// record is the truth, whatever this replica holds.
func (r entry) apply(tx *bolt.Tx, buckets []string) error {
	if r.snapshot {
		for _, name := range buckets {
			if err := tx.DeleteBucket([]byte(name)); err != nil && !missing(err) {
				return err
			}
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
	}
	for _, o := range r.ops {
		if err := o.apply(tx); err != nil {
			return fmt.Errorf("store: replay %v %q/%q: %w", o.kind, o.path, o.key, err)
		}
	}
	return nil
}

func (o op) apply(tx *bolt.Tx) error {
	if len(o.path) == 0 {
		switch o.kind {
		case opCreateBucket:
			_, err := tx.CreateBucketIfNotExists(o.key)
			return err
		case opDeleteBucket:
			if err := tx.DeleteBucket(o.key); err != nil && !missing(err) {
				return err
			}
			return nil
		}
		return fmt.Errorf("%w: a key outside any bucket", errRecord)
	}
	b, err := tx.CreateBucketIfNotExists(o.path[0])
	for _, name := range o.path[1:] {
		if err != nil {
			return err
		}
		b, err = b.CreateBucketIfNotExists(name)
	}
	if err != nil {
		return err
	}
	switch o.kind {
	case opPut:
		return b.Put(o.key, o.value)
	case opDelete:
		return b.Delete(o.key)
	case opCreateBucket:
		_, err := b.CreateBucketIfNotExists(o.key)
		return err
	case opDeleteBucket:
		if err := b.DeleteBucket(o.key); err != nil && !missing(err) {
			return err
		}
		return nil
	default:
		return b.SetSequence(o.seq)
	}
}

// dump is a snapshot of the area's buckets: the writes that make them
// again from nothing.
func dump(tx *bolt.Tx, buckets []string) entry {
	r := entry{snapshot: true}
	for _, name := range buckets {
		if b := tx.Bucket([]byte(name)); b != nil {
			r.ops = dumpBucket(r.ops, b, [][]byte{[]byte(name)})
		}
	}
	return r
}

func dumpBucket(ops []op, b *bolt.Bucket, path [][]byte) []op {
	if s := b.Sequence(); s != 0 {
		ops = append(ops, op{kind: opSequence, path: path, seq: s})
	}
	_ = b.ForEach(func(k, v []byte) error {
		if v != nil {
			ops = append(ops, op{kind: opPut, path: path, key: clone(k), value: clone(v)})
			return nil
		}
		ops = append(ops, op{kind: opCreateBucket, path: path, key: clone(k)})
		sub := append(path[:len(path):len(path)], clone(k))
		ops = dumpBucket(ops, b.Bucket(k), sub)
		return nil
	})
	return ops
}
