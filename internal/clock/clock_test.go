package clock

import (
	"testing"
	"time"
)

func TestFakeFiresInDeadlineOrder(t *testing.T) {
	start := time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)
	f := NewFake(start)
	late := f.After(2 * time.Hour)
	early := f.After(time.Hour)
	now := f.After(0)
	if got := <-now; !got.Equal(start) {
		t.Fatalf("After(0) read %v, want %v", got, start)
	}
	if n := f.Waiters(); n != 2 {
		t.Fatalf("Waiters = %d, want 2", n)
	}
	f.Advance(90 * time.Minute)
	select {
	case got := <-early:
		if want := start.Add(time.Hour); !got.Equal(want) {
			t.Fatalf("early fired with %v, want its deadline %v", got, want)
		}
	default:
		t.Fatal("the waiter due within the advance did not fire")
	}
	select {
	case <-late:
		t.Fatal("a waiter fired before its deadline")
	default:
	}
	f.Set(start) // never backwards
	if got := f.Now(); !got.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("Set moved the clock back to %v", got)
	}
	f.Advance(time.Hour)
	<-late
	if n := f.Waiters(); n != 0 {
		t.Fatalf("Waiters = %d after all fired", n)
	}
}

func TestWaitForWaiters(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	done := make(chan struct{})
	got := make(chan bool, 1)
	go func() { got <- f.WaitForWaiters(1, done) }()
	f.After(time.Second)
	if !<-got {
		t.Fatal("WaitForWaiters did not see the waiter")
	}
	close(done)
	if f.WaitForWaiters(5, done) {
		t.Fatal("WaitForWaiters reported 5 waiters after done")
	}
}

func TestOr(t *testing.T) {
	if Or(nil) != System {
		t.Fatal("Or(nil) is not System")
	}
	f := NewFake(time.Unix(0, 0))
	if Or(f) != Clock(f) {
		t.Fatal("Or(f) is not f")
	}
}
