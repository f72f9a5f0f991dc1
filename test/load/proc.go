package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// RSS returns the resident set size of process pid in bytes, read from
// VmRSS in /proc/PID/status (Linux only).
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read process status: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // "12345 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse VmRSS: %w", err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// Gauge reads one unlabelled sample, e.g. beamclaw_go_goroutines, from a
// Prometheus text endpoint.
func Gauge(ctx context.Context, hc *http.Client, metricsURL, name string) (float64, error) {
	b, err := get(ctx, hc, metricsURL)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name+" ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s: %w", name, err)
		}
		return v, nil
	}
	return 0, fmt.Errorf("no sample %s at %s", name, metricsURL)
}

// Health reads GET /health of a daemon at base (http://HOST:PORT).
func Health(ctx context.Context, hc *http.Client, base string) (protocol.Health, error) {
	b, err := get(ctx, hc, strings.TrimSuffix(base, "/")+"/health")
	if err != nil {
		return protocol.Health{}, err
	}
	var h protocol.Health
	if err := json.Unmarshal(b, &h); err != nil {
		return protocol.Health{}, fmt.Errorf("decode health: %w", err)
	}
	return h, nil
}

func get(ctx context.Context, hc *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("new request: %w", err)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get %s: status %d", url, res.StatusCode)
	}
	return b, nil
}

// Snapshot is a daemon's memory, goroutine count and CPU time used so far
// at one moment.
type Snapshot struct {
	RSS        int64   `json:"rss_bytes"`
	Goroutines float64 `json:"goroutines"` // -1 when the process has no beamclaw /metrics
	CPU        float64 `json:"cpu_seconds"`
}

// Snap reads the RSS and CPU time of pid and beamclaw_go_goroutines from
// the daemon at base (http://HOST:PORT); a process without beamclaw's
// /metrics (the floor proxy) gets Goroutines -1.
func Snap(ctx context.Context, hc *http.Client, pid int, base string) (Snapshot, error) {
	rss, err := RSS(pid)
	if err != nil {
		return Snapshot{}, err
	}
	cpu, err := CPUTime(pid)
	if err != nil {
		return Snapshot{}, err
	}
	g, err := Gauge(ctx, hc, strings.TrimSuffix(base, "/")+"/metrics", "beamclaw_go_goroutines")
	if err != nil {
		g = -1
	}
	return Snapshot{RSS: rss, Goroutines: g, CPU: cpu}, nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on every
// Linux architecture Go supports).
const clockTicks = 100

// CPUTime returns the user plus system CPU seconds process pid has used,
// from /proc/PID/stat (Linux only).
func CPUTime(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read process stat: %w", err)
	}
	// The command name may hold spaces: the fields follow its closing ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64) // field 14 of stat
	stime, err2 := strconv.ParseFloat(f[12], 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat times", pid)
	}
	return (utime + stime) / clockTicks, nil
}
