package workspace

import (
	"crypto/sha256"
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// What this node and the area last agreed on (a tree's base) is kept in
// this node's own database (a LocalArea), so the three-way sync holds
// across a restart too: a file edited by hand while the daemon was
// stopped is this node's change, pushed at start, and a unit deleted
// elsewhere meanwhile goes here rather than coming back from here.

// agreedArea is the node's record of a tree's base.
func agreedArea(db *store.DB, name string) (*store.Area, error) {
	bucket := "workspace_agreed_" + name
	a, err := db.LocalArea(bucket, bucket)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return a, nil
}

// loadBase reads what the node last agreed on before it stopped.
func (t *tree) loadBase() error {
	return t.kept.View(func(tx *store.Tx) error {
		return tx.Bucket([]byte(t.keptBucket())).ForEach(func(k, v []byte) error {
			if len(v) == sha256.Size {
				t.base[string(k)] = [sha256.Size]byte(v)
			}
			return nil
		})
	})
}

func (t *tree) keptBucket() string { return "workspace_agreed_" + t.bucket }

// setBase and dropBase change the base; saveBase writes the changes.
func (t *tree) setBase(p string, sum [sha256.Size]byte) {
	if old, ok := t.base[p]; ok && old == sum {
		return
	}
	t.base[p] = sum
	t.unsaved[p] = true
}

func (t *tree) dropBase(p string) {
	if _, ok := t.base[p]; !ok {
		return
	}
	delete(t.base, p)
	t.unsaved[p] = true
}

// saveBase writes the base's changes since the last save (one commit);
// on an error they stay to be written with the next.
func (t *tree) saveBase() error {
	if len(t.unsaved) == 0 {
		return nil
	}
	err := t.kept.Update(func(tx *store.Tx) error {
		b := tx.Bucket([]byte(t.keptBucket()))
		for p := range t.unsaved {
			var err error
			if sum, ok := t.base[p]; ok {
				err = b.Put([]byte(p), sum[:])
			} else {
				err = b.Delete([]byte(p))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("workspace: keep what %s agreed on: %w", t.bucket, err)
	}
	clear(t.unsaved)
	return nil
}
