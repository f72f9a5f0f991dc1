package runqueue

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func ev(t beamclaw.RunEventType, text string) beamclaw.RunEvent {
	return beamclaw.RunEvent{Type: t, Text: text}
}

func woken(q *Queue) bool {
	select {
	case <-q.Wake():
		return true
	default:
		return false
	}
}

func TestPushTake(t *testing.T) {
	tests := []struct {
		name     string
		limit    int
		push     []beamclaw.RunEvent
		accepted int
		want     []beamclaw.RunEvent
		ended    bool
	}{
		{name: "in order", push: []beamclaw.RunEvent{ev(beamclaw.EvChunk, "a"), ev(beamclaw.EvFinal, "ab")},
			accepted: 2, want: []beamclaw.RunEvent{ev(beamclaw.EvChunk, "a"), ev(beamclaw.EvFinal, "ab")}, ended: true},
		{name: "nothing after the terminal event", push: []beamclaw.RunEvent{ev(beamclaw.EvError, "x"), ev(beamclaw.EvFinal, "y")},
			accepted: 1, want: []beamclaw.RunEvent{ev(beamclaw.EvError, "x")}, ended: true},
		{name: "chunks past the limit dropped, others kept", limit: 1,
			push:     []beamclaw.RunEvent{ev(beamclaw.EvChunk, "a"), ev(beamclaw.EvChunk, "b"), ev(beamclaw.EvFinal, "ab")},
			accepted: 3, want: []beamclaw.RunEvent{ev(beamclaw.EvChunk, "a"), ev(beamclaw.EvFinal, "ab")}, ended: true},
		{name: "no limit", push: []beamclaw.RunEvent{ev(beamclaw.EvChunk, "a"), ev(beamclaw.EvChunk, "b")},
			accepted: 2, want: []beamclaw.RunEvent{ev(beamclaw.EvChunk, "a"), ev(beamclaw.EvChunk, "b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(tt.limit)
			accepted := 0
			for _, e := range tt.push {
				if q.Push(e) {
					accepted++
				}
			}
			if accepted != tt.accepted {
				t.Errorf("accepted %d events, want %d", accepted, tt.accepted)
			}
			if !woken(&q) {
				t.Error("Push did not wake the consumer")
			}
			if diff := cmp.Diff(tt.want, q.Take(nil)); diff != "" {
				t.Errorf("Take (-want +got):\n%s", diff)
			}
			if len(q.Take(nil)) != 0 {
				t.Error("Take left events queued")
			}
			if q.Ended() != tt.ended {
				t.Errorf("Ended() = %v, want %v", q.Ended(), tt.ended)
			}
		})
	}
}

func TestClose(t *testing.T) {
	q := New(0)
	q.Push(ev(beamclaw.EvChunk, "a"))
	<-q.Wake()
	left := q.Close()
	if diff := cmp.Diff([]beamclaw.RunEvent{ev(beamclaw.EvChunk, "a")}, left); diff != "" {
		t.Errorf("Close (-want +got):\n%s", diff)
	}
	if !q.Closed() || !woken(&q) {
		t.Errorf("Closed() = %v, woken: want both", q.Closed())
	}
	if q.Push(ev(beamclaw.EvFinal, "b")) || len(q.Take(nil)) != 0 || q.Ended() {
		t.Error("a closed queue took an event")
	}
}
