package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestEvery(t *testing.T) {
	f := NewFake(time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC))
	stop := errors.New("stop")
	calls := make(chan int)
	done := make(chan error, 1)
	n := 0
	go func() {
		done <- Every(context.Background(), f, time.Minute, func(context.Context) error {
			n++
			calls <- n
			if n == 2 {
				return stop
			}
			return nil
		})
	}()
	for want := 1; want <= 2; want++ {
		if !f.WaitForWaiters(1, nil) {
			t.Fatal("no ticker armed")
		}
		f.Advance(time.Minute)
		if got := <-calls; got != want {
			t.Fatalf("call %d, want %d", got, want)
		}
	}
	if err := <-done; !errors.Is(err, stop) {
		t.Fatalf("Every = %v, want do's error", err)
	}
}

func TestEveryEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Every(ctx, NewFake(time.Time{}), time.Minute, func(context.Context) error {
		t.Error("do called after the context ended")
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Every = %v, want context.Canceled", err)
	}
}
