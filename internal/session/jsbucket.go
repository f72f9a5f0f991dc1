package session

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// The buckets' side of the cluster backend.

const jsLastNight = "last_night"

func (b *jsBackend) summaries() ([]Summary, error) {
	if err := b.opened(); err != nil {
		return nil, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	var out []Summary
	err := b.sums.Each(ctx, func(id string, v []byte) {
		var s jsSummary
		if json.Unmarshal(v, &s) == nil {
			out = append(out, summaryOf(id, s.Rec, s.First))
		}
	})
	if err == nil {
		b.num.Store(int64(len(out)))
	}
	return out, err
}

func (b *jsBackend) summary(id string) (Summary, bool, error) {
	if err := b.opened(); err != nil {
		return Summary{}, false, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	v, ok, err := b.sums.Get(ctx, id)
	if !ok || err != nil {
		return Summary{}, false, err
	}
	var s jsSummary
	if err := json.Unmarshal(v, &s); err != nil {
		return Summary{}, false, err
	}
	return summaryOf(id, s.Rec, s.First), true, nil
}

// count is the stored sessions as this node last counted them (the last
// list, and the sessions made and removed here since): health and status
// read it, and must answer without the cluster.
func (b *jsBackend) count() int { return int(b.num.Load()) }

// setArchived marks sessions archived (or restores them) in their
// summaries; a claim of the session reads it from there.
func (b *jsBackend) setArchived(ids []string, at time.Time) error {
	if err := b.opened(); err != nil {
		return err
	}
	ctx, cancel := opCtx()
	defer cancel()
	for _, id := range ids {
		v, ok, err := b.sums.Get(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		var s jsSummary
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		s.Rec.Archived = at
		if v, err = json.Marshal(s); err != nil {
			return err
		}
		if err := b.sums.Put(ctx, id, v); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes sessions: their journals, summaries, responses, marks.
func (b *jsBackend) remove(ids []string) error {
	if err := b.opened(); err != nil {
		return err
	}
	ctx, cancel := opCtx()
	defer cancel()
	for _, id := range ids {
		if err := b.journal.Purge(ctx, id); err != nil {
			return err
		}
		for _, bk := range []*cluster.Bucket{b.sums, b.maint} {
			if err := bk.Delete(ctx, id); err != nil {
				return err
			}
		}
		b.mu.Lock()
		cl := b.claims[id]
		b.mu.Unlock()
		b.unclaim(id, cl)
		b.num.Add(-1)
	}
	var gone []string
	err := b.resps.Each(ctx, func(rid string, v []byte) {
		var r ResponseHead
		if json.Unmarshal(v, &r) == nil && slices.Contains(ids, r.At.Session) {
			gone = append(gone, rid)
		}
	})
	if err != nil {
		return err
	}
	for _, rid := range gone {
		if err := b.resps.Delete(ctx, rid); err != nil {
			return err
		}
	}
	return nil
}

func (b *jsBackend) thread(key string) (string, bool, error) {
	if err := b.opened(); err != nil {
		return "", false, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	v, ok, err := b.threads.Get(ctx, key)
	return string(v), ok, err
}

func (b *jsBackend) threaded(prefix string) (bool, error) {
	if err := b.opened(); err != nil {
		return false, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	_, ok, err := b.threads.Get(ctx, prefix)
	return ok, err
}

func (b *jsBackend) response(id string, into any) (bool, error) {
	if err := b.opened(); err != nil {
		return false, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	v, ok, err := b.resps.Get(ctx, id)
	if !ok || err != nil {
		return false, err
	}
	return true, json.Unmarshal(v, into)
}

func (b *jsBackend) deleteResponse(id string) error {
	if err := b.opened(); err != nil {
		return err
	}
	ctx, cancel := opCtx()
	defer cancel()
	return b.resps.Delete(ctx, id)
}

// output and outputs read the session's journal: the outputs ride in its
// records.
func (b *jsBackend) output(id, handle string) (loop.Output, bool, error) {
	outs, err := b.outputs(id)
	for _, o := range outs {
		if o.Handle == handle {
			return o, true, err
		}
	}
	return loop.Output{}, false, err
}

func (b *jsBackend) outputs(id string) ([]loop.Output, error) {
	if err := b.opened(); err != nil {
		return nil, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	recs, err := b.journal.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	mb, _, err := rebuild(id, recs)
	if err != nil {
		return nil, err
	}
	return mb.outputs(id)
}

func (b *jsBackend) maintained() (map[string]maintMark, string, error) {
	if err := b.opened(); err != nil {
		return nil, "", err
	}
	ctx, cancel := opCtx()
	defer cancel()
	marks, night := map[string]maintMark{}, ""
	err := b.maint.Each(ctx, func(k string, v []byte) {
		if k == jsLastNight {
			night = string(v)
			return
		}
		var mk maintMark
		if json.Unmarshal(v, &mk) == nil {
			marks[k] = mk
		}
	})
	return marks, night, err
}

func (b *jsBackend) setMaintained(id string, mk maintMark) error {
	if err := b.opened(); err != nil {
		return err
	}
	ctx, cancel := opCtx()
	defer cancel()
	v, err := json.Marshal(mk)
	if err != nil {
		return err
	}
	return b.maint.Put(ctx, id, v)
}

func (b *jsBackend) setLastNight(date string) error {
	if err := b.opened(); err != nil {
		return err
	}
	ctx, cancel := opCtx()
	defer cancel()
	return b.maint.Put(ctx, jsLastNight, []byte(date))
}
