package session

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Output is a tool's whole output a session kept because the model got
// only its head and tail (tool.View); tool_output reads it by its handle.
// It lives as long as the tool message naming it: with the session, until
// a reset, or a compaction that summarised that message away.
type Output = loop.Output

// Keep implements loop.Lane: out goes with the run's next Commit, under
// the next handle of the session.
func (rl *runLane) Keep(out loop.Output) string {
	rl.l.mu.Lock()
	n := rl.l.rec.NextOutput + uint64(len(rl.kept)) + 1
	rl.l.mu.Unlock()
	out.Handle = "out-" + strconv.FormatUint(n, 10)
	rl.kept = append(rl.kept, out)
	return out.Handle
}

// Keep implements loop.Lane: a detached run keeps nothing.
func (*ephemeralLane) Keep(loop.Output) string { return "" }

// Output returns the content of the output session sessionID kept under
// handle (false: none; another session's handle names none of this one).
func (m *Manager) Output(sessionID, handle string) (string, bool, error) {
	o, ok, err := m.store.output(sessionID, handle)
	if err != nil {
		return "", false, loadError("session.Output", err)
	}
	return o.Content, ok, nil
}

// Outputs returns the outputs session id kept whole, in the order kept
// (its export holds them).
func (m *Manager) Outputs(id string) ([]Output, error) { return outputsOf(m.store, id) }

// Outputs returns the outputs session id kept whole, in the order kept.
func (c *Catalog) Outputs(id string) ([]Output, error) { return outputsOf(c.b, id) }

func outputsOf(b backend, id string) ([]Output, error) {
	outs, err := b.outputs(id)
	if err != nil {
		return nil, loadError("session.Outputs", err)
	}
	return outs, nil
}

// namedIn reports whether a tool message of msgs is the result of call.
func namedIn(msgs []beamclaw.Message, call string) bool {
	return slices.ContainsFunc(msgs, func(m beamclaw.Message) bool { return m.Role == beamclaw.RoleTool && m.ToolCallID == call })
}

func (b *memBackend) output(id, handle string) (loop.Output, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.IndexFunc(b.outs[id], func(o loop.Output) bool { return o.Handle == handle })
	if i < 0 {
		return loop.Output{}, false, nil
	}
	return b.outs[id][i], true, nil
}

func (b *memBackend) outputs(id string) ([]loop.Output, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.outs[id]), nil
}

// outputMeta is what the outputs bucket holds of an output besides its
// content.
type outputMeta struct {
	Handle string `json:"handle"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
}

// encodeOutput is o's value in the outputs bucket: its meta, a line break
// (the meta's JSON holds none) and its content as it is.
func encodeOutput(o loop.Output) ([]byte, error) {
	meta, err := store.Encode(outputMeta{Handle: o.Handle, CallID: o.CallID, Tool: o.Tool})
	if err != nil {
		return nil, err
	}
	v := make([]byte, 0, len(meta)+1+len(o.Content))
	return append(append(append(v, meta...), '\n'), o.Content...), nil
}

// decodeOutput reads a value of the outputs bucket: its meta, and its
// content (copied out of the transaction) when content is true.
func decodeOutput(v []byte, content bool) (loop.Output, error) {
	i := bytes.IndexByte(v, '\n')
	if i < 0 {
		return loop.Output{}, errors.New("kept output: no line after its meta")
	}
	var m outputMeta
	if err := store.Decode(v[:i], &m); err != nil {
		return loop.Output{}, fmt.Errorf("kept output: %w", err)
	}
	o := loop.Output{Handle: m.Handle, CallID: m.CallID, Tool: m.Tool}
	if content {
		o.Content = string(v[i+1:])
	}
	return o, nil
}

func (b *boltBackend) output(id, handle string) (o loop.Output, ok bool, err error) {
	err = b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketOutputs).Get(subKey(id, handle))
		if v == nil {
			return nil
		}
		ok = true
		o, err = decodeOutput(v, true)
		return err
	})
	if err != nil {
		return loop.Output{}, false, fmt.Errorf("read output %q of session %s: %w", handle, id, err)
	}
	return o, ok, nil
}

func (b *boltBackend) outputs(id string) ([]loop.Output, error) {
	var outs []loop.Output
	err := b.db.View(func(tx *bolt.Tx) error {
		prefix := subKey(id, "")
		c := tx.Bucket(bucketOutputs).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			o, err := decodeOutput(v, true)
			if err != nil {
				return fmt.Errorf("%q: %w", k[len(prefix):], err)
			}
			outs = append(outs, o)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the outputs of session %s: %w", id, err)
	}
	// out-9 before out-10
	slices.SortFunc(outs, func(a, b loop.Output) int {
		return cmp.Or(cmp.Compare(len(a.Handle), len(b.Handle)), cmp.Compare(a.Handle, b.Handle))
	})
	return outs, nil
}

// putOutputs writes the change's kept outputs; a reset first drops those
// whose tool message is not in the new history.
func (w *sessionWrite) putOutputs(tx *bolt.Tx) error {
	if !w.c.reset && len(w.outs) == 0 {
		return nil
	}
	bk := tx.Bucket(bucketOutputs)
	if w.c.reset {
		if err := pruneOutputs(bk, w.id, w.c.msgs); err != nil {
			return err
		}
	}
	for i, o := range w.c.outputs {
		if err := bk.Put(subKey(w.id, o.Handle), w.outs[i]); err != nil {
			return err
		}
	}
	return nil
}

// pruneOutputs deletes the outputs of session id no tool message of msgs
// names (and any it cannot read).
func pruneOutputs(bk *bolt.Bucket, id string, msgs []beamclaw.Message) error {
	prefix := subKey(id, "")
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); {
		if o, err := decodeOutput(v, false); err == nil && namedIn(msgs, o.CallID) {
			k, v = c.Next()
			continue
		}
		at := slices.Clone(k)
		if err := c.Delete(); err != nil {
			return err
		}
		k, v = c.Seek(at)
	}
	return nil
}
