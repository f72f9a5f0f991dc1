package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A stream asked of another node yields its messages in order and its
// error at the end; an asker that stops listening stops the answer there,
// and so does one that vanished without a word; asking a node that
// serves nothing is known at once.
func TestStreamBetweenNodes(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 2, 1))
	ctx, cancel := context.WithCancel(context.Background())
	stopped := map[string]chan struct{}{"forever": make(chan struct{}), "vanish": make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = nodes[1].ServeStream(ctx, "test.stream.n2", func(ctx context.Context, data []byte, send func([]byte) bool) error {
			if ch, ok := stopped[string(data)]; ok {
				for i := 0; send([]byte(fmt.Sprint(i))); i++ {
					time.Sleep(10 * time.Millisecond)
				}
				close(ch)
				return nil
			}
			for i := range 100 {
				if !send(fmt.Appendf(nil, "%s %d", data, i)) {
					return nil
				}
			}
			return errors.New("no more")
		})
	})
	defer func() { cancel(); wg.Wait() }()

	var got []string
	var end error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) { // until n2 serves
		got, end = nil, nil
		for data, err := range nodes[0].Stream(ctx, "test.stream.n2", []byte("count")) {
			if err != nil {
				end = err
				break
			}
			got = append(got, string(data))
		}
		if !errors.Is(end, ErrNodeGone) || time.Now().After(deadline) {
			break
		}
	}
	if len(got) != 100 || got[0] != "count 0" || got[99] != "count 99" || end == nil || end.Error() != "no more" {
		t.Fatalf("%d messages (%v ... ), end %v", len(got), got[:min(3, len(got))], end)
	}
	for i, m := range got {
		if m != fmt.Sprintf("count %d", i) {
			t.Fatalf("message %d is %q: out of order", i, m)
		}
	}

	n := 0
	for _, err := range nodes[0].Stream(ctx, "test.stream.n2", []byte("forever")) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 5 {
			break // the asker stops listening
		}
	}
	select {
	case <-stopped["forever"]:
	case <-time.After(10 * time.Second):
		t.Fatal("the answering node went on after its asker stopped listening")
	}
	inbox := nats.NewInbox() // an asker that vanishes: no stop is ever sent
	sub, err := nodes[0].nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	if err := nodes[0].nc.PublishRequest("test.stream.n2", inbox, []byte("vanish")); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.NextMsg(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	_ = sub.Unsubscribe()
	select {
	case <-stopped["vanish"]:
	case <-time.After(10 * time.Second):
		t.Fatal("the answering node went on after its asker vanished")
	}

	start := time.Now()
	for _, err := range nodes[0].Stream(ctx, "test.stream.nobody", nil) {
		if !errors.Is(err, ErrNodeGone) || time.Since(start) > streamSilence/2 {
			t.Fatalf("asking nobody: %v after %v", err, time.Since(start))
		}
	}
}
