package a2a

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// List paging: the default and largest page, and the history a listed
// task carries unless the request says otherwise.
const (
	defaultPageSize   = 50
	maxPageSize       = 100
	defaultListedHist = 100
)

// listed is one task that matches a ListTasks request.
type listed struct {
	id      a2a.TaskID
	updated time.Time
}

// before reports whether l sorts after the cursor c (newest first, then
// by id descending), i.e. belongs to the page after c.
func (l listed) before(c listed) bool {
	if !l.updated.Equal(c.updated) {
		return l.updated.Before(c.updated)
	}
	return l.id < c.id
}

// List implements taskstore.Store: the caller's tasks of the agent it
// called, newest first, a page at a time.
func (s *TaskStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	sc, ok := scopeFrom(ctx)
	if !ok || sc.caller == "" {
		return nil, a2a.ErrUnauthenticated
	}
	size := req.PageSize
	switch {
	case size == 0:
		size = defaultPageSize
	case size < 1 || size > maxPageSize:
		return nil, fmt.Errorf("pageSize must be between 1 and %d, got %d: %w", maxPageSize, size, a2a.ErrInvalidParams)
	}
	all, err := s.matching(sc, req)
	if err != nil {
		return nil, err
	}
	start := 0
	if req.PageToken != "" {
		c, err := decodePageToken(req.PageToken)
		if err != nil {
			return nil, err
		}
		start, _ = slices.BinarySearchFunc(all, c, func(l, c listed) int {
			if l.before(c) {
				return 1
			}
			return -1
		})
	}
	page := all[start:min(start+size, len(all))]
	resp := &a2a.ListTasksResponse{Tasks: make([]*a2a.Task, 0, len(page)), TotalSize: len(all), PageSize: size}
	if start+size < len(all) {
		resp.NextPageToken = encodePageToken(page[len(page)-1])
	}
	for _, l := range page {
		rec, ok, err := s.current(l.id)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // deleted meanwhile
		}
		t, err := rec.task()
		if err != nil {
			return nil, err
		}
		resp.Tasks = append(resp.Tasks, trimListed(t, req))
	}
	return resp, nil
}

// matching lists the scope's tasks that pass the request's filters, newest
// first: those in memory and those on disk (through the index).
func (s *TaskStore) matching(sc scope, req *a2a.ListTasksRequest) ([]listed, error) {
	keep := func(st a2a.TaskState, ctxID string, at *time.Time) bool {
		return (req.ContextID == "" || ctxID == req.ContextID) &&
			(req.Status == a2a.TaskStateUnspecified || st == req.Status) &&
			(req.StatusTimestampAfter == nil || at == nil || !at.Before(*req.StatusTimestampAfter))
	}
	var out []listed
	inMemory := map[a2a.TaskID]bool{}
	s.mu.Lock()
	for id, rec := range s.hot {
		if rec.Owner != sc.caller || rec.Agent != sc.agent {
			continue
		}
		inMemory[id] = true
		if keep(rec.State, rec.Context, rec.StatusAt) {
			out = append(out, listed{id: id, updated: rec.Updated})
		}
	}
	s.mu.Unlock()
	prefix := indexPrefix(sc.caller, sc.agent)
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte(bucketIndex)).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			updated, id, ok := splitIndexKey(prefix, k)
			if !ok || inMemory[id] {
				continue
			}
			var e indexEntry
			if err := store.Decode(v, &e); err != nil {
				return err
			}
			if keep(e.State, e.Context, e.StatusAt) {
				out = append(out, listed{id: id, updated: updated})
			}
		}
		return nil
	})
	if err != nil {
		return nil, storeErr("list the tasks", err)
	}
	sortNewest(out)
	return out, nil
}

// sortNewest orders tasks newest first, then by id descending.
func sortNewest(out []listed) {
	slices.SortFunc(out, func(a, b listed) int {
		switch {
		case a.before(b):
			return 1
		case b.before(a):
			return -1
		}
		return 0
	})
}

// trimListed applies the request's history length and artifact choice.
func trimListed(t *a2a.Task, req *a2a.ListTasksRequest) *a2a.Task {
	n := defaultListedHist
	if req.HistoryLength != nil {
		n = *req.HistoryLength
	}
	switch {
	case n <= 0:
		t.History = []*a2a.Message{}
	case len(t.History) > n:
		t.History = t.History[len(t.History)-n:]
	}
	if !req.IncludeArtifacts {
		t.Artifacts = nil
	}
	return t
}

func encodePageToken(l listed) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(l.updated.UnixNano(), 10) + ":" + string(l.id)))
}

func decodePageToken(tok string) (listed, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		nanos, id, ok := strings.Cut(string(raw), ":")
		if n, perr := strconv.ParseInt(nanos, 10, 64); ok && perr == nil && id != "" {
			return listed{id: a2a.TaskID(id), updated: time.Unix(0, n)}, nil
		}
	}
	return listed{}, fmt.Errorf("pageToken is not one this server issued: %w", a2a.ErrInvalidParams)
}
