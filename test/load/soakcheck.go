package load

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// turnLog remembers every turn a soak sent, by user: whether it was
// acknowledged (answered 200) or not (it may or may not be stored).
type turnLog struct {
	mu    sync.Mutex
	users map[string]map[string]bool // user -> content -> acknowledged
	n     int
}

func newTurnLog() *turnLog { return &turnLog{users: map[string]map[string]bool{}} }

func (t *turnLog) sent(user, content string, acked bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.users[user] == nil {
		t.users[user] = map[string]bool{}
	}
	t.users[user][content] = acked
	if acked {
		t.n++
	}
}

func (t *turnLog) acked() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// check starts the daemon once more after the last kill -9 (timed like
// the others) and reads every soak user's history over the control
// socket: an acknowledged turn must be there once, any other at most once.
func (s *soakRun) check(ctx context.Context, res *SoakResult) error {
	if err := s.evict(); err != nil {
		return err
	}
	p, d, err := s.start(ctx, "check")
	if err != nil {
		return err
	}
	defer p.stop()
	s.ready = append(s.ready, d)
	s.logs = append(s.logs, p.out.Name())
	c := client.NewUnix(filepath.Join(s.cfg.Home, "run", "beamclaw.sock"))
	defer c.Close()
	s.turns.mu.Lock()
	defer s.turns.mu.Unlock()
	res.Acked = s.turns.n
	ids, err := sessionsByUser(ctx, c)
	if err != nil {
		return err
	}
	for user, turns := range s.turns.users {
		counts, err := userMessages(ctx, c, ids[apiUser(user)])
		if err != nil {
			return err
		}
		for content, acked := range turns {
			switch n := counts[content]; {
			case n > 1:
				res.Doubled++
				fmt.Fprintf(s.cfg.Progress, "doubled: %s %q %d times\n", user, content, n)
			case n == 0 && acked:
				res.Lost++
				fmt.Fprintf(s.cfg.Progress, "lost: %s %q\n", user, content)
			}
		}
	}
	return nil
}

// apiUser is the user id the daemon stores for the user field of an
// OpenAI-compatible request.
func apiUser(user string) string { return "api:" + user }

// sessionsByUser lists every stored session once (a list filtered by user
// reads them all too) and returns their ids by user.
func sessionsByUser(ctx context.Context, c *client.Client) (map[string][]string, error) {
	var list protocol.SessionList
	if err := c.Do(ctx, "GET", protocol.ControlSessions, nil, &list); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := map[string][]string{}
	for _, si := range list.Sessions {
		out[si.User] = append(out[si.User], si.ID)
	}
	return out, nil
}

// userMessages counts the user messages of the sessions given, by content.
func userMessages(ctx context.Context, c *client.Client, ids []string) (map[string]int, error) {
	counts := map[string]int{}
	for _, id := range ids {
		var det protocol.SessionDetail
		if err := c.Do(ctx, "GET", protocol.ControlSession+"/"+url.PathEscape(id), nil, &det); err != nil {
			return nil, fmt.Errorf("show session %s: %w", id, err)
		}
		for _, m := range det.Messages {
			if m.Role == "user" {
				counts[m.Content]++
			}
		}
	}
	return counts, nil
}

// phaseLine matches the daemon's debug line of one start-up phase.
var phaseLine = regexp.MustCompile(`msg="start-up phase" phase=(\S+) ms=([0-9.]+)`)

// phaseSummaries reads the start-up phases of the daemon logs given.
func phaseSummaries(logs []string) map[string]Summary {
	samples := map[string][]time.Duration{}
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			m := phaseLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			v, _ := strconv.ParseFloat(m[2], 64)
			samples[m[1]] = append(samples[m[1]], time.Duration(v*float64(time.Millisecond)))
		}
		_ = f.Close()
	}
	out := map[string]Summary{}
	for name, d := range samples {
		slices.Sort(d)
		out[name] = Summarize(d)
	}
	return out
}
