package cluster

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A stream between nodes: one node asks (Stream) and the node it asks
// answers with messages as they come, then an end (ServeStream), in
// order. A beat every streamBeat while the answer lasts says the
// answering node still lives: the asker gives up after streamSilence
// without a word, and tells the answering node when it stops listening
// first (the reply subject's ".stop").
const (
	streamBeat    = time.Second
	streamSilence = 5 * time.Second
	hdrStream     = "Beamclaw-Stream" // "beat"; "end", its body the answer's error if any; none: a message
)

// StreamFunc answers one question of a stream: send hands the asker a
// message (false: it stopped listening).
type StreamFunc func(ctx context.Context, data []byte, send func([]byte) bool) error

// ServeStream answers the streams other nodes ask on subject with fn,
// each in a goroutine of its own, until ctx ends.
func (n *Node) ServeStream(ctx context.Context, subject string, fn StreamFunc) error {
	var mu sync.Mutex // no answer starts once the wait for them began
	var wg sync.WaitGroup
	stopping := false
	sub, err := n.nc.Subscribe(subject, func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		if m.Reply != "" && !stopping {
			wg.Go(func() { n.answerStream(ctx, m, fn) })
		}
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	<-ctx.Done()
	err = sub.Unsubscribe()
	mu.Lock()
	stopping = true
	mu.Unlock()
	wg.Wait()
	return err
}

func (n *Node) answerStream(ctx context.Context, m *nats.Msg, fn StreamFunc) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop, err := n.nc.Subscribe(m.Reply+".stop", func(*nats.Msg) { cancel() })
	if err != nil {
		return
	}
	defer func() { _ = stop.Unsubscribe() }()
	// Each message names gone as its reply subject: NATS answers there
	// "no responders" once the asker's inbox is gone (it crashed, or its
	// stop was lost), and the answer stops.
	gone := nats.NewInbox()
	lost, err := n.nc.Subscribe(gone, func(r *nats.Msg) {
		if r.Header.Get("Status") == "503" {
			cancel()
		}
	})
	if err != nil {
		return
	}
	defer func() { _ = lost.Unsubscribe() }()
	var mu sync.Mutex // one message at a time: they arrive in the order sent
	publish := func(kind string, data []byte) bool {
		msg := nats.NewMsg(m.Reply)
		msg.Reply = gone
		msg.Data = data
		if kind != "" {
			msg.Header.Set(hdrStream, kind)
		}
		mu.Lock()
		defer mu.Unlock()
		return ctx.Err() == nil && n.nc.PublishMsg(msg) == nil
	}
	done := make(chan struct{})
	var beats sync.WaitGroup
	beats.Go(func() {
		t := time.NewTicker(streamBeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				publish("beat", nil)
			}
		}
	})
	err = fn(ctx, m.Data, func(data []byte) bool { return publish("", data) })
	close(done)
	beats.Wait()
	var end []byte
	if err != nil {
		end = []byte(err.Error())
	}
	publish("end", end)
}

// Stream asks subject (one node's) and yields the messages of its answer
// as they come, until its end: an error when the answering node ended
// with one, ErrNodeGone when nothing answers or it falls silent.
func (n *Node) Stream(ctx context.Context, subject string, data []byte) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		inbox := nats.NewInbox()
		sub, err := n.nc.SubscribeSync(inbox) // its pending limits, not a channel's size, bound a slow reader
		if err != nil {
			yield(nil, fmt.Errorf("cluster: %w", err))
			return
		}
		defer func() { _ = sub.Unsubscribe() }()
		ended := false
		defer func() {
			if !ended { // the answering node stops too
				_ = n.nc.Publish(inbox+".stop", nil)
			}
		}()
		if err := n.nc.PublishRequest(subject, inbox, data); err != nil {
			yield(nil, fmt.Errorf("cluster: %w", err))
			return
		}
		for {
			c, cancel := context.WithTimeout(ctx, streamSilence)
			m, err := sub.NextMsgWithContext(c)
			cancel()
			switch {
			case ctx.Err() != nil:
				yield(nil, ctx.Err())
				return
			case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders):
				ended = true
				yield(nil, ErrNodeGone)
				return
			case err != nil:
				yield(nil, fmt.Errorf("cluster: %w", err))
				return
			}
			switch m.Header.Get(hdrStream) {
			case "beat":
			case "end":
				ended = true
				if len(m.Data) > 0 {
					yield(nil, errors.New(string(m.Data)))
				}
				return
			default:
				if !yield(m.Data, nil) {
					return
				}
			}
		}
	}
}
