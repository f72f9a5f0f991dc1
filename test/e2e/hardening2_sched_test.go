package e2e

import (
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
	bad := r.schedJob("--schedule", "in 1s", "--prompt", "nobody listens", "--deliver", "ws")
	pollUntil(t, 30*time.Second, "the webhook job delivered", func() bool { return sink.withText("deliver me") > 0 })
	var failed string
	pollUntil(t, 30*time.Second, "the ws job's failed run", func() bool {
		runs := r.schedRuns(bad.ID)
		if len(runs) > 0 && runs[0].Outcome == "failed" {
			failed = runs[0].Error
			return true
		}
		return false
	})
	if strings.Count(failed, "deliver to ws") != 1 {
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
