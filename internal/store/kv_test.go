package store

import (
	"path/filepath"
	"testing"
)

// PutIfAbsent writes once and keeps the first value; Each walks in key
// order, and both survive a reopen.
func TestKVPutIfAbsentAndEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	db := openAt(t, path)
	kv, err := NewKV(db, "kv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k, v string
		put  bool
	}{{"b", "1", true}, {"a", "2", true}, {"b", "3", false}} {
		put, err := kv.PutIfAbsent(c.k, c.v)
		if err != nil || put != c.put {
			t.Fatalf("PutIfAbsent(%s, %s) = %v, %v; want %v", c.k, c.v, put, err, c.put)
		}
	}
	db = reopen(t, db, path)
	if kv, err = NewKV(db, "kv"); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := kv.Each(func(k, v string) error { got = append(got, k+"="+v); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "a=2" || got[1] != "b=1" {
		t.Fatalf("Each = %v, want [a=2 b=1]", got)
	}
}
