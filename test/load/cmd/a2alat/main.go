// Command a2alat measures the latency an A2A SendMessage adds over the
// same turn through POST /v1/chat/completions, against a running beamclaw
// on loopback (with the fake provider, gateway.rate_limit off and a
// gateway token). It alternates the two, one at a time, in pairs — each
// pair sends the same text through both, in alternating order, to two
// sessions that grow alike — and prints the percentiles of each, the
// difference of their medians, and the median of the per-pair
// differences.
//
// Usage:
//
//	a2alat -addr 127.0.0.1:18800 -token-env BEAMCLAW_GATEWAY_TOKEN [-n 500] [-warmup 50] [-pid PID] [-json]
//
// See docs/performance.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/test/load"
)

func main() { load.Main("a2alat", run) }

type result struct {
	N          int          `json:"n"`
	Chat       load.Summary `json:"chat_completions"`
	A2A        load.Summary `json:"a2a_send_message"`
	AddedP50   string       `json:"added_p50"`
	PairMedian string       `json:"per_pair_median_difference"`
	// With -pid: the daemon's CPU time per turn, measured over a batch of
	// each kind after the paired run (less sensitive to a busy machine).
	ChatCPU string `json:"chat_cpu_per_turn,omitempty"`
	A2ACPU  string `json:"a2a_cpu_per_turn,omitempty"`
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("a2alat", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:18800", "beamclaw host:port")
	tokenEnv := fs.String("token-env", "BEAMCLAW_GATEWAY_TOKEN", "environment variable holding the gateway token")
	n := fs.Int("n", 500, "measured pairs")
	warmup := fs.Int("warmup", 50, "unmeasured pairs first")
	asJSON := fs.Bool("json", false, "print JSON")
	pid := fs.Int("pid", 0, "daemon pid: also measure its CPU time per turn of each kind")
	if err := fs.Parse(args); err != nil {
		return err
	}
	token := os.Getenv(*tokenEnv)
	if token == "" {
		return fmt.Errorf("%s is not set", *tokenEnv)
	}
	c := &client{hc: load.NewClient(1), base: "http://" + strings.TrimPrefix(*addr, "http://"), token: token,
		user: fmt.Sprintf("a2alat-%d", time.Now().UnixNano())}
	defer c.hc.CloseIdleConnections()
	var chat, a2a, diff []time.Duration
	for i := range *warmup + *n {
		text := fmt.Sprintf("ping %d", i)
		first, second := c.chat, c.a2a
		if i%2 == 1 {
			first, second = c.a2a, c.chat
		}
		d1, err := first(ctx, text)
		if err != nil {
			return fmt.Errorf("pair %d: %w", i, err)
		}
		d2, err := second(ctx, text)
		if err != nil {
			return fmt.Errorf("pair %d: %w", i, err)
		}
		if i < *warmup {
			continue
		}
		dc, da := d1, d2
		if i%2 == 1 {
			dc, da = d2, d1
		}
		chat, a2a, diff = append(chat, dc), append(a2a, da), append(diff, da-dc)
	}
	slices.Sort(diff)
	r := result{N: *n, Chat: load.Summarize(chat), A2A: load.Summarize(a2a)}
	r.AddedP50 = (r.A2A.P50 - r.Chat.P50).String()
	r.PairMedian = load.Percentile(diff, 50).String()
	if *pid != 0 {
		for _, k := range []struct {
			send func(context.Context, string) (time.Duration, error)
			out  *string
		}{{c.chat, &r.ChatCPU}, {c.a2a, &r.A2ACPU}} {
			cpu, err := cpuPerTurn(ctx, *pid, *n, k.send)
			if err != nil {
				return err
			}
			*k.out = cpu.String()
		}
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Fprintf(out, "pairs %d\nchat completions  %s\na2a SendMessage   %s\nadded p50 %s, per-pair median difference %s\n",
		r.N, r.Chat, r.A2A, r.AddedP50, r.PairMedian)
	if r.ChatCPU != "" {
		fmt.Fprintf(out, "daemon CPU per turn: chat completions %s, a2a SendMessage %s\n", r.ChatCPU, r.A2ACPU)
	}
	return nil
}

// cpuPerTurn sends n turns of one kind and divides the daemon's CPU time
// (user + system, /proc/PID/stat) by n.
func cpuPerTurn(ctx context.Context, pid, n int, send func(context.Context, string) (time.Duration, error)) (time.Duration, error) {
	before, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	for i := range n {
		if _, err := send(ctx, fmt.Sprintf("cpu %d", i)); err != nil {
			return 0, err
		}
	}
	after, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	return (after - before) / time.Duration(n), nil
}

// cpuTime is a process's user + system CPU time (Linux; 100 ticks/s).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

type client struct {
	hc                *http.Client
	base, token, user string
}

// chat is one persisted turn through the OpenAI-compatible API.
func (c *client) chat(ctx context.Context, text string) (time.Duration, error) {
	body, _ := json.Marshal(map[string]any{"model": "default", "user": c.user,
		"messages": []map[string]string{{"role": "user", "content": text}}})
	return c.post(ctx, "/v1/chat/completions", body, `"content":"echo: `+text)
}

// a2a is the same turn as a blocking A2A SendMessage.
func (c *client) a2a(ctx context.Context, text string) (time.Duration, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
		"params": map[string]any{"message": map[string]any{"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()),
			"role": "ROLE_USER", "parts": []map[string]string{{"text": text}}}}})
	return c.post(ctx, "/a2a", body, `"TASK_STATE_COMPLETED"`)
}

func (c *client) post(ctx context.Context, path string, body []byte, want string) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(want)) {
		return 0, fmt.Errorf("%s: %d %v %.300s", path, resp.StatusCode, err, b)
	}
	return d, nil
}
