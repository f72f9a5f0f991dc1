package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHardening2LogHasNoDuplicateKeys (issue 23, item 13): a daemon with
// a JSON log at debug level answers a chat turn with a tool call, runs a
// scheduled job that delivers and one whose delivery fails; no line of
// its log repeats a key (sched_job_fired wrote session_id twice), and the
// failed delivery's error says its prefix once.
func TestHardening2LogHasNoDuplicateKeys(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "", rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.start()
	r.chat("ana", `call tool read_file {"path":"AGENTS.md"}`)
	ok := r.schedJob("--schedule", "in 1s", "--prompt", "deliver me", "--deliver", "webhook:"+sink.url())
	bad := r.schedJob("--schedule", "in 1s", "--prompt", "nobody listens", "--deliver", "webhook:"+sink.failURL())
	pollUntil(t, 30*time.Second, "the webhook job delivered", func() bool { return sink.withText("deliver me") > 0 })
	var failed string
	pollUntil(t, 30*time.Second, "the failing webhook job's failed run", func() bool {
		runs := r.schedRuns(bad.ID)
		if len(runs) > 0 && runs[0].Outcome == "failed" {
			failed = runs[0].Error
			return true
		}
		return false
	})
	if strings.Count(failed, "deliver to webhook") != 1 {
		t.Errorf("the failed delivery's error repeats its prefix: %q", failed)
	}
	r.h.must("stop")
	logs := r.h.logs()
	for _, want := range []string{`"event":"sched_job_fired"`, `"job_id":"` + ok.ID + `"`, `"event":"tool_call_result"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the JSON log has no %s; the check saw too little", want)
		}
	}
	if p := r.h.logKeyProblems(); len(p) > 0 {
		t.Errorf("%d log lines repeat a key:\n%s", len(p), strings.Join(p, "\n"))
	}
}

// schedCreateCall is a chat message that makes the model call the
// scheduler tool to create a job running prompt in a second, delivered to
// sink, in a session of its own.
func schedCreateCall(t *testing.T, sink *hookSink, prompt string) string {
	t.Helper()
	args, err := json.Marshal(map[string]string{"action": "create", "schedule": "in 1s", "prompt": prompt,
		"delivery": "webhook:" + sink.url(), "session": "isolated"})
	if err != nil {
		t.Fatal(err)
	}
	return "call tool scheduler " + string(args)
}

// TestHardening2ScheduledJobKeepsItsCreatorsTrust (issue 23, item 2):
// with http at full, scheduler.default_autonomy full and
// tools.remote_high_risk deny, an HTTP request cannot run bash, and
// neither can a job it schedules, nor a job that job schedules: they run
// on the local sched channel with the HTTP channel's trust. A job the
// owner adds with `beamclaw scheduler add` keeps local trust and runs it.
func TestHardening2ScheduledJobKeepsItsCreatorsTrust(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "  default_autonomy: full\n", rigOptions{autonomy: "full",
		channels: map[string]string{"http": "full"}, extra: "tools:\n  remote_high_risk: deny\n"})
	r.start()
	dir := t.TempDir()
	marker := func(name string) string { return filepath.Join(dir, name) }
	touch := func(name string) string { return bashCall("touch " + marker(name)) }

	if a := r.chat("ana", touch("direct")); !strings.Contains(a, "disabled on remote channels") {
		t.Fatalf("bash over HTTP was not refused: %q", a)
	}
	r.chat("ana", schedCreateCall(t, sink, touch("job")))
	r.chat("ana", schedCreateCall(t, sink, schedCreateCall(t, sink, touch("grandchild"))))
	owners := r.schedJob("--schedule", "in 1s", "--prompt", touch("owner"), "--deliver", "webhook:"+sink.url())

	pollUntil(t, 30*time.Second, "the owner's job ran bash", func() bool { return exists(marker("owner")) })
	pollUntil(t, 30*time.Second, "both remote jobs answered", func() bool { return sink.withText("tool bash said") >= 3 })
	for _, b := range sink.bodies() {
		if strings.Contains(b.Text, "tool bash said") && b.JobID != owners.ID && !strings.Contains(b.Text, "disabled on remote channels") {
			t.Errorf("job %s made over HTTP was not refused bash: %q", b.JobID, b.Text)
		}
	}
	for _, name := range []string{"direct", "job", "grandchild"} {
		if exists(marker(name)) {
			t.Errorf("bash ran for the %s call: %s exists", name, marker(name))
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestHardening2JobQuotaPerCreator (issue 23, item 2): one remote user
// cannot fill an agent's job slots. With scheduler.max_jobs_per_agent 12
// and the default scheduler.max_jobs_per_user (10), an HTTP user's
// eleventh and twelfth jobs are refused naming the per-user limit;
// another user can still schedule, and so can the owner with
// `beamclaw scheduler add`.
func TestHardening2JobQuotaPerCreator(t *testing.T) {
	sink := newHookSink(t)
	r := schedRig(t, sink, "  max_jobs_per_agent: 12\n", rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.start()
	create := `call tool scheduler {"action":"create","schedule":"in 1d","prompt":"later","delivery":"silent"}`
	var refused int
	for i := range 12 {
		a := r.chat("mallory", create)
		switch {
		case strings.Contains(a, "scheduler.max_jobs_per_user"):
			refused++
		case !strings.Contains(a, "Scheduled job"):
			t.Fatalf("create %d: %q", i+1, a)
		}
	}
	if refused != 2 {
		t.Errorf("%d of mallory's 12 jobs refused, want 2 (the per-user limit is 10)", refused)
	}
	if a := r.chat("trudy", create); !strings.Contains(a, "Scheduled job") {
		t.Errorf("another user could not schedule: %q", a)
	}
	if out := r.h.run("scheduler", "add", "--schedule", "in 1d", "--prompt", "mine", "--deliver", "silent"); out.code != 0 {
		t.Fatalf("the owner's scheduler add was refused: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	n := map[string]int{}
	for _, j := range r.schedList() {
		if !j.Heartbeat {
			n[j.User]++
		}
	}
	if n["api:mallory"] != 10 || n["api:trudy"] != 1 {
		t.Errorf("jobs per user: %v", n)
	}
}
