package scheduler

import (
	"fmt"
	"testing"
)

// Answers kept for a user come back once, oldest first, per kind and
// user; a user keeps the newest maxMissed.
func TestMissedKeptAndTakenOnce(t *testing.T) {
	e := newEnv(t, nil)
	s := e.s
	for i := range maxMissed + 5 {
		if err := s.KeepMissed(DeliverTUI, "local:ana", Missed{JobID: fmt.Sprint("j", i), Text: fmt.Sprint("answer ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.KeepMissed(DeliverWS, "local:ana", Missed{Text: "for her ws"}); err != nil {
		t.Fatal(err)
	}
	if s.HasMissed(DeliverTUI, "local:bo") {
		t.Error("bo has answers he was never sent")
	}
	got, err := s.TakeMissed(DeliverTUI, "local:ana")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxMissed || got[0].Text != "answer 5" || got[len(got)-1].Text != fmt.Sprint("answer ", maxMissed+4) {
		t.Fatalf("kept %d, first %q, last %q; want the newest %d in order", len(got), got[0].Text, got[len(got)-1].Text, maxMissed)
	}
	if again, _ := s.TakeMissed(DeliverTUI, "local:ana"); len(again) != 0 || s.HasMissed(DeliverTUI, "local:ana") {
		t.Errorf("taken twice: %+v", again)
	}
	if ws, _ := s.TakeMissed(DeliverWS, "local:ana"); len(ws) != 1 || ws[0].Text != "for her ws" {
		t.Errorf("the ws answer: %+v", ws)
	}
}
