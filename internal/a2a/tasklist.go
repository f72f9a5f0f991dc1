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
	return s.collect(indexPrefix(sc.caller, sc.agent), func(owner, agent string, e indexEntry) bool {
		return owner == sc.caller && agent == sc.agent &&
			(req.ContextID == "" || e.Context == req.ContextID) &&
			(req.Status == a2a.TaskStateUnspecified || e.State == req.Status) &&
			(req.StatusTimestampAfter == nil || e.StatusAt == nil || !e.StatusAt.Before(*req.StatusTimestampAfter))
	})
}

// collect lists the tasks keep accepts, newest first: those in memory and
// those on disk whose index key starts with prefix (nil: all).
func (s *TaskStore) collect(prefix []byte, keep func(owner, agent string, e indexEntry) bool) ([]listed, error) {
	var out []listed
	inMemory := map[a2a.TaskID]bool{}
	s.mu.Lock()
	for id, rec := range s.hot {
		inMemory[id] = true
		if keep(rec.Owner, rec.Agent, indexEntry{State: rec.State, Context: rec.Context, StatusAt: rec.StatusAt}) {
			out = append(out, listed{id: id, updated: rec.Updated})
		}
	}
	s.mu.Unlock()
	err := s.area.View(func(tx *store.Tx) error {
		c := tx.Bucket([]byte(bucketIndex)).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			owner, rest, _ := bytes.Cut(k, []byte{0})
			agent, _, _ := bytes.Cut(rest, []byte{0})
			updated, id, ok := splitIndexKey(indexPrefix(string(owner), string(agent)), k)
			if !ok || inMemory[id] {
				continue
			}
			var e indexEntry
			if err := store.Decode(v, &e); err != nil {
				return err
			}
			if keep(string(owner), string(agent), e) {
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
