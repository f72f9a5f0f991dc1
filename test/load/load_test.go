package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", ms(7), Summary{N: 1, P50: 7e6, P90: 7e6, P99: 7e6, Max: 7e6, Mean: 7e6}},
		{"unsorted ten", ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5), Summary{N: 10, P50: 5e6, P90: 9e6, P99: 10e6, Max: 10e6, Mean: 5500e3}},
		{"hundred", func() []time.Duration {
			v := make([]int, 100)
			for i := range v {
				v[i] = 100 - i
			}
			return ms(v...)
		}(), Summary{N: 100, P50: 50e6, P90: 90e6, P99: 99e6, Max: 100e6, Mean: 50500e3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Summarize(tt.in)); diff != "" {
				t.Errorf("Summarize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarySub(t *testing.T) {
	a := Summary{N: 3, P50: 5, P90: 9, P99: 12, Max: 20, Mean: 6}
	b := Summary{N: 4, P50: 1, P90: 2, P99: 3, Max: 4, Mean: 2}
	want := Summary{N: 3, P50: 4, P90: 7, P99: 9, Max: 16, Mean: 4}
	if diff := cmp.Diff(want, a.Sub(b)); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
}

func TestParseMode(t *testing.T) {
	for _, ok := range []string{"plain", "stream", "ephemeral", "responses"} {
		if m, err := ParseMode(ok); err != nil || string(m) != ok {
			t.Errorf("ParseMode(%q) = %q, %v", ok, m, err)
		}
	}
	if _, err := ParseMode("coldstart"); err == nil {
		t.Error("ParseMode(coldstart) accepted")
	}
}

func TestRunAgainstFake(t *testing.T) {
	srv := fakellm.New(t)
	tests := []struct {
		name     string
		mode     Mode
		wantTTFT int
	}{
		{"plain", ModePlain, 0},
		{"stream", ModeStream, 24},
		{"ephemeral", ModeEphemeral, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := NewClient(4)
			defer hc.CloseIdleConnections()
			res, err := Run(context.Background(), Config{
				BaseURL: srv.URL(), Model: "fake-model", Mode: tt.mode,
				N: 24, C: 4, Users: 6, UserPrefix: "u-", Limit: time.Minute, Client: hc,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Errors != 0 || res.Latency.N != 24 || res.TTFT.N != tt.wantTTFT {
				t.Errorf("errors %d (%s), latencies %d, ttfts %d; want 0, 24, %d",
					res.Errors, res.FirstErr, res.Latency.N, res.TTFT.N, tt.wantTTFT)
			}
		})
	}
	reqs := srv.Requests()
	if len(reqs) != 3*24 {
		t.Errorf("fake received %d chat requests, want %d", len(reqs), 3*24)
	}
	for _, r := range reqs {
		if len(r.Messages) != 1 || !strings.HasPrefix(r.Messages[0].Content, "ping ") {
			t.Fatalf("request messages = %+v", r.Messages)
		}
	}
}

func TestRunCountsFailures(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer hs.Close()
	hc := NewClient(2)
	defer hc.CloseIdleConnections()
	res, err := Run(context.Background(), Config{BaseURL: hs.URL + "/v1", Mode: ModePlain, N: 5, C: 2, Users: 2, Client: hc})
	if err == nil || res.Errors != 5 || !strings.Contains(res.FirstErr, "status 503") {
		t.Errorf("Run = errors %d, first %q, err %v; want 5 failures with status 503", res.Errors, res.FirstErr, err)
	}
	if _, err := Run(context.Background(), Config{BaseURL: hs.URL, N: 1, C: 0, Users: 1}); err == nil {
		t.Error("c=0 accepted")
	}
}

func TestReadStream(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
	}{
		{"content", "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n", ""},
		{"no content", "data: {\"choices\":[{\"delta\":{\"content\":\"\"}}]}\n\ndata: [DONE]\n\n", "without content"},
		{"cut", "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n", "without [DONE]"},
		{"garbage", "data: {nope\n\n", "decode chunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ttft, err := readStream(strings.NewReader(tt.body), time.Now().Add(-time.Millisecond))
			switch {
			case tt.wantErr == "" && (err != nil || ttft <= 0):
				t.Errorf("readStream = %v, %v; want a positive ttft", ttft, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("readStream error = %v; want %q", err, tt.wantErr)
			}
		})
	}
}

func TestProcessReaders(t *testing.T) {
	rss, err := RSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Fatalf("RSS(self) = %d, %v", rss, err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			_, _ = w.Write([]byte("# HELP beamclaw_go_goroutines x\nbeamclaw_go_goroutines_total 1\nbeamclaw_go_goroutines 42\n"))
		case "/health":
			_, _ = w.Write([]byte(`{"status":"ok","ready":true,"subsystems":{"sessions":{"ready":true,"detail":"3 live, 2 hibernated"}}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer hs.Close()
	hc := hs.Client()
	ctx := context.Background()
	s, err := Snap(ctx, hc, os.Getpid(), hs.URL)
	if err != nil || s.Goroutines != 42 || s.RSS <= 0 {
		t.Errorf("Snap = %+v, %v; want 42 goroutines", s, err)
	}
	h, err := Health(ctx, hc, hs.URL)
	if err != nil || !h.Ready || h.Subsystems["sessions"].Detail != "3 live, 2 hibernated" {
		t.Errorf("Health = %+v, %v", h, err)
	}
	if _, err := Gauge(ctx, hc, hs.URL+"/metrics", "go_threads"); err == nil {
		t.Error("missing gauge found")
	}
	if _, err := RSS(-1); err == nil {
		t.Error("RSS of no process succeeded")
	}
}
