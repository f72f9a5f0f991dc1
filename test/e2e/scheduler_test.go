package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// hookSink is a loopback webhook that keeps what it was sent.
type hookSink struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []hookBody
}

type hookBody struct {
	JobID     string `json:"job_id"`
	Agent     string `json:"agent"`
	Text      string `json:"text"`
	Heartbeat bool   `json:"heartbeat"`
}

func newHookSink(t *testing.T) *hookSink {
	t.Helper()
	h := &hookSink{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" { // a receiver that is down (failURL)
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		var b hookBody
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Errorf("webhook body is not JSON: %s", raw)
		}
		h.mu.Lock()
		h.seen = append(h.seen, b)
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookSink) url() string { return h.srv.URL + "/hook" }

// failURL answers every delivery with 500.
func (h *hookSink) failURL() string { return h.srv.URL + "/fail" }
func (h *hookSink) host() string    { return strings.TrimPrefix(h.srv.URL, "http://") }

func (h *hookSink) bodies() []hookBody {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookBody(nil), h.seen...)
}

// withText counts the deliveries whose text holds s.
func (h *hookSink) withText(s string) int {
	n := 0
	for _, b := range h.bodies() {
		if strings.Contains(b.Text, s) {
			n++
		}
	}
	return n
}

// schedRig is a daemon with the scheduler on, delivering to sink, with
// a JSON log at debug level (checked by checkLogKeys).
func schedRig(t *testing.T, sink *hookSink, more string, o rigOptions) *chatRig {
	t.Helper()
	o.jsonLog = true
	o.extra += fmt.Sprintf("scheduler:\n  enabled: true\n  webhook_allow_hosts: [%q]\n%s", sink.host(), more)
	r := newChatRig(t, o)
	r.llm.SetDefault(fakellm.Rules)
	return r
}

func (r *chatRig) schedJob(args ...string) protocol.SchedJob {
	r.t.Helper()
	var j protocol.SchedJob
	out := r.h.must(append([]string{"scheduler", "add", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out.stdout), &j); err != nil {
		r.t.Fatalf("scheduler add --json: %v\n%s", err, out.stdout)
	}
	return j
}

func (r *chatRig) schedRuns(id string) []protocol.SchedRun {
	r.t.Helper()
	var l protocol.SchedRunList
	out := r.h.must("scheduler", "runs", id, "--json")
	if err := json.Unmarshal([]byte(out.stdout), &l); err != nil {
		r.t.Fatalf("scheduler runs --json: %v\n%s", err, out.stdout)
	}
	return l.Runs
}

func (r *chatRig) schedList() []protocol.SchedJob {
	r.t.Helper()
	var l protocol.SchedJobList
	out := r.h.must("scheduler", "list", "--all", "--json")
	if err := json.Unmarshal([]byte(out.stdout), &l); err != nil {
		r.t.Fatalf("scheduler list --json: %v\n%s", err, out.stdout)
	}
	return l.Jobs
}

// TestSchedulerAddDeliversToAWebhook: `beamclaw scheduler add` of a
// one-shot job runs an agent turn when it is due and posts the answer to
// a loopback webhook (allowed by scheduler.webhook_allow_hosts); the run
// is recorded and the job is done.
func TestSchedulerAddDeliversToAWebhook(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "", rigOptions{})
	r.start()
	j := r.schedJob("--schedule", "in 1s", "--prompt", "remind me of the dentist", "--deliver", "webhook:"+sink.url())
	if j.State != "active" || j.NextRunAt.IsZero() {
		t.Fatalf("new job: %+v", j)
	}
	pollUntil(t, 30*time.Second, "the answer at the webhook", func() bool { return sink.withText("dentist") > 0 })
	if b := sink.bodies()[0]; b.JobID != j.ID || b.Agent != "default" || !strings.HasPrefix(b.Text, "echo: ") {
		t.Errorf("webhook body: %+v", b)
	}
	pollUntil(t, 10*time.Second, "the job done", func() bool {
		for _, x := range r.schedList() {
			if x.ID == j.ID {
				return x.State == "done" && x.FireCount == 1
			}
		}
		return false
	})
	if runs := r.schedRuns(j.ID); len(runs) != 1 || runs[0].Outcome != "ok" {
		t.Errorf("runs: %+v", runs)
	}
	if _, metrics := get(t, "http://"+r.addr+"/metrics"); !strings.Contains(metrics, `beamclaw_sched_runs_total{outcome="fired"} 1`) ||
		!strings.Contains(metrics, `beamclaw_sched_jobs{state="done"} 1`) {
		t.Errorf("scheduler metrics missing:\n%s", grepLines(metrics, "beamclaw_sched"))
	}
	if k := r.h.run("scheduler", "pause", "job-nope"); k.code == 0 || !strings.Contains(k.stderr, "job-nope") {
		t.Errorf("pause of an unknown job: exit %d, %s", k.code, k.stderr)
	}
}

// TestSchedulerToolCreatesAJob: the agent's scheduler tool creates a job
// (the model asks for it in a chat turn); it runs and delivers.
func TestSchedulerToolCreatesAJob(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "", rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.start()
	args := fmt.Sprintf(`{"action":"create","schedule":"in 1s","prompt":"water the plants","delivery":"webhook:%s"}`, sink.url())
	code, body := r.post("ana", "call tool scheduler "+args)
	if code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
	t.Logf("chat answer: %s", body)
	pollUntil(t, 30*time.Second, "the tool's job delivered", func() bool { return sink.withText("water the plants") > 0 })
	jobs := r.schedList()
	var mine []protocol.SchedJob
	for _, j := range jobs {
		if !j.Heartbeat {
			mine = append(mine, j)
		}
	}
	if len(mine) != 1 || mine[0].User != "api:ana" || mine[0].Prompt != "water the plants" {
		t.Errorf("jobs: %+v", mine)
	}
}

// TestSchedulerMisfireAfterADowntime: jobs that fall due while the
// daemon is stopped: run_once runs exactly once at start, skip is
// recorded as skipped and never delivered; a restart does not run either
// again.
func TestSchedulerMisfireAfterADowntime(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "", rigOptions{})
	// Added with no daemon running: straight into the store.
	once := r.schedJob("--schedule", "in 1s", "--prompt", "run me once", "--deliver", "webhook:"+sink.url(), "--misfire", "run_once")
	skip := r.schedJob("--schedule", "in 1s", "--prompt", "skip me", "--deliver", "webhook:"+sink.url(), "--misfire", "skip")
	time.Sleep(2 * time.Second) // both fall due while nothing runs
	r.start()
	pollUntil(t, 30*time.Second, "the run_once job delivered", func() bool { return sink.withText("run me once") > 0 })
	pollUntil(t, 10*time.Second, "the skipped run recorded", func() bool {
		runs := r.schedRuns(skip.ID)
		return len(runs) == 1 && runs[0].Outcome == "skipped"
	})
	r.h.must("stop")
	r.start()
	if runs := r.schedRuns(once.ID); len(runs) != 1 || runs[0].Outcome != "ok" {
		t.Errorf("run_once runs after a restart: %+v", runs)
	}
	if n := sink.withText("run me once"); n != 1 {
		t.Errorf("run_once delivered %d times", n)
	}
	if n := sink.withText("skip me"); n != 0 {
		t.Errorf("a skipped run was delivered %d times", n)
	}
}

// TestSchedulerHeartbeat: with a heartbeat every second, an agent whose
// HEARTBEAT.md has no task makes no model request at all; a task makes
// one per beat; HEARTBEAT_OK is not delivered, anything else is.
func TestSchedulerHeartbeat(t *testing.T) {
	sink := newHookSink(t)
	more := fmt.Sprintf("  heartbeat:\n    default_interval_ms: 1000\n    active_hours: [0, 24]\n    deliver: %q\n", "webhook:"+sink.url())
	r := schedRig(t, sink, more, rigOptions{})
	r.start()
	hb := filepath.Join(r.h.dir, "agents", "default", "HEARTBEAT.md")
	if err := os.WriteFile(hb, []byte("# Heartbeat\n\n<!-- nothing to check yet -->\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var heartbeat protocol.SchedJob
	for _, j := range r.schedList() {
		if j.Heartbeat && j.Agent == "default" {
			heartbeat = j
		}
	}
	if heartbeat.ID == "" {
		t.Fatalf("no heartbeat job for the default agent: %+v", r.schedList())
	}
	pollUntil(t, 30*time.Second, "ten idle heartbeats", func() bool {
		beats := 0
		for _, run := range r.schedRuns(heartbeat.ID) { // idle beats share one entry
			if run.Outcome == "skipped" {
				beats += 1 + run.Missed
			}
		}
		return beats >= 10
	})
	if n := len(r.llm.Requests()); n != 0 {
		t.Fatalf("idle heartbeats made %d model requests", n)
	}

	r.llm.Script(fakellm.Reply{Text: "HEARTBEAT_OK."})
	if err := os.WriteFile(hb, []byte("# Heartbeat\n\n- Check whether the nightly build is red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 30*time.Second, "a suppressed heartbeat", func() bool {
		runs := r.schedRuns(heartbeat.ID)
		return len(runs) > 0 && runs[0].Outcome == "suppressed"
	})
	if got := sink.bodies(); len(got) != 0 {
		t.Errorf("HEARTBEAT_OK was delivered: %+v", got)
	}
	r.llm.Script(fakellm.Reply{Text: "The nightly build is red: 3 tests fail."})
	pollUntil(t, 30*time.Second, "the heartbeat's finding delivered", func() bool { return sink.withText("build is red") > 0 })
	if b := sink.bodies()[0]; !b.Heartbeat || b.JobID != heartbeat.ID {
		t.Errorf("heartbeat delivery: %+v", b)
	}
	if req := r.llm.Requests()[0]; len(req.Messages) > 3 {
		t.Errorf("a heartbeat sent %d messages, not a light context", len(req.Messages))
	}
}

// grepLines keeps the lines of s holding sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestSchedulerDeliversToOpenTerminals: a job delivering to tui reaches
// the user's open terminal connections as a notice frame; with none open
// the answer waits for the user's next terminal (nobody watching is not a
// failure) and comes after its ready frame, once.
func TestSchedulerDeliversToOpenTerminals(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "", rigOptions{})
	r.start()
	conn := r.localConn("ana")
	j := r.schedJob("--schedule", "in 1s", "--prompt", "stand up and stretch", "--deliver", "tui", "--user", "local:ana")
	deadline := time.After(30 * time.Second)
	for {
		select {
		case f := <-conn.Events():
			if f.Type != protocol.FrameNotice {
				continue
			}
			if f.JobID != j.ID || f.Agent != "default" || !strings.Contains(f.Text, "stand up and stretch") {
				t.Errorf("notice: %+v", f)
			}
		case <-deadline:
			t.Fatal("no notice frame on the open terminal")
		}
		break
	}
	lonely := r.schedJob("--schedule", "in 1s", "--prompt", "nobody listens", "--deliver", "tui", "--user", "local:bob")
	pollUntil(t, 30*time.Second, "the run kept for bob", func() bool {
		runs := r.schedRuns(lonely.ID)
		return len(runs) == 1 && runs[0].Outcome != "failed" && runs[0].Outcome != ""
	})
	for round := range 2 {
		bob := r.localConn("bob")
		got := waitNotice(t, bob, 3*time.Second)
		switch {
		case round == 0 && (got == nil || got.JobID != lonely.ID || !strings.Contains(got.Text, "nobody listens")):
			t.Errorf("bob's next terminal did not get the answer kept for him: %+v", got)
		case round == 1 && got != nil:
			t.Errorf("the kept answer came twice: %+v", got)
		}
	}
}

// waitNotice returns the first notice frame on conn within d, or nil.
func waitNotice(t *testing.T, conn *client.Conn, d time.Duration) *protocol.ServerFrame {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case f := <-conn.Events():
			if f.Type == protocol.FrameNotice {
				return &f
			}
		case <-deadline:
			return nil
		}
	}
}

// TestHardening2HeartbeatsKeepBeating (issue 23, item 12): with the
// default delivery (tui) and no terminal open, beats are kept for the
// user, not failures: the heartbeat does not pause itself; the next
// terminal gets what it missed. An agent made while the daemon runs gets
// its heartbeat at once, and a deleted agent's heartbeat ends.
func TestHardening2HeartbeatsKeepBeating(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "  max_errors: 2\n  heartbeat:\n    default_interval_ms: 1000\n    active_hours: [0, 24]\n    user: local:ana\n", rigOptions{})
	r.llm.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: "The nightly build is red."} })
	r.start()
	hb := filepath.Join(r.h.dir, "agents", "default", "HEARTBEAT.md")
	if err := os.WriteFile(hb, []byte("# Heartbeat\n\n- Check whether the nightly build is red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 30*time.Second, "four beats nobody watched", func() bool {
		n := 0
		for _, run := range r.schedRuns("hb-default") {
			if run.Outcome != "skipped" {
				n++
			}
		}
		return n >= 4
	})
	for _, j := range r.schedList() {
		if j.ID == "hb-default" && j.State != "active" {
			t.Fatalf("the heartbeat switched itself off with nobody watching: %+v", j)
		}
	}
	for _, run := range r.schedRuns("hb-default") {
		if run.Outcome == "failed" {
			t.Fatalf("a beat nobody watched counted as a failure: %+v", run)
		}
	}
	if got := waitNotice(t, r.localConn("ana"), 5*time.Second); got == nil || !strings.Contains(got.Text, "build is red") {
		t.Errorf("ana's terminal did not get the beats she missed: %+v", got)
	}

	r.h.must("agent", "create", "helper")
	pollUntil(t, 15*time.Second, "the new agent's heartbeat", func() bool {
		for _, j := range r.schedList() {
			if j.ID == "hb-helper" && j.State == "active" {
				return true
			}
		}
		return false
	})
	r.h.must("agent", "delete", "helper", "--yes")
	pollUntil(t, 15*time.Second, "the deleted agent's heartbeat ended", func() bool {
		for _, j := range r.schedList() {
			if j.ID == "hb-helper" {
				return j.State == "done"
			}
		}
		return true
	})
}

// TestHardening2WebhookRefusedAtAdd (issue 23, item 9): a direct webhook
// to a loopback or private host not listed in scheduler.webhook_allow_hosts
// is refused when the job is made (it would fail at every delivery), naming
// the host and the key, never the URL; a listed one is accepted.
func TestHardening2WebhookRefusedAtAdd(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "", rigOptions{})
	r.start()
	for _, target := range []string{"http://127.0.0.1:1/hook?token=s3cret", "http://localhost:9/x", "http://10.1.2.3/x"} {
		k := r.h.run("scheduler", "add", "--schedule", "in 1h", "--prompt", "x", "--deliver", "webhook:"+target)
		out := k.stdout + k.stderr
		if k.code == 0 || !strings.Contains(out, "scheduler.webhook_allow_hosts") || strings.Contains(out, "s3cret") {
			t.Errorf("webhook:%s: exit %d, want refused naming the key, not the URL:\n%s", target, k.code, out)
		}
	}
	r.schedJob("--schedule", "in 1h", "--prompt", "x", "--deliver", "webhook:"+sink.url())
}
