package session

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// BenchmarkPersistedTurn: one turn through Manager.Send (user message
// committed to bbolt, loop run, answer committed, final delivered) with an
// instant provider, one session, one caller.
func BenchmarkPersistedTurn(b *testing.B) {
	e := newEnv(b, envOpts{lean: true})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := e.send(b, "local:ana", "hi")
		r.wait(b)
	}
}

// BenchmarkPersistedTurnParallel: 64 callers on distinct sessions; commits
// of concurrent turns share fsyncs.
func BenchmarkPersistedTurnParallel(b *testing.B) {
	e := newEnv(b, envOpts{lean: true})
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(32)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		user := fmt.Sprintf("local:u%d", n.Add(1))
		for pb.Next() {
			r, _ := e.send(b, user, "hi")
			r.wait(b)
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "turns/s")
}

func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse
}

// BenchmarkLiveSessionMemory reports heap+stack bytes and goroutines per
// live session (one short exchange in history each).
func BenchmarkLiveSessionMemory(b *testing.B) {
	const n = 2000
	for i := 0; i < b.N; i++ {
		e := newEnv(b, envOpts{lean: true})
		g0, m0 := runtime.NumGoroutine(), heapAfterGC()
		recs := make([]*recorder, n)
		for j := range n {
			recs[j], _ = e.send(b, fmt.Sprintf("local:u%d", j), "hi")
		}
		for _, r := range recs {
			r.wait(b)
		}
		m1, g1 := heapAfterGC(), runtime.NumGoroutine()
		b.ReportMetric(float64(m1-m0)/n, "B/live-session")
		b.ReportMetric(float64(g1-g0)/n, "goroutines/live-session")
		e.stop()
	}
}

// BenchmarkHibernatedSessionMemory reports heap bytes per hibernated
// session (state in bbolt only).
func BenchmarkHibernatedSessionMemory(b *testing.B) {
	const n = 2000
	for i := 0; i < b.N; i++ {
		e := newEnv(b, envOpts{lean: true, session: func(o *Options) { o.IdleHibernate = time.Millisecond }})
		m0 := heapAfterGC()
		recs := make([]*recorder, n)
		for j := range n {
			recs[j], _ = e.send(b, fmt.Sprintf("local:u%d", j), "hi")
		}
		for _, r := range recs {
			r.wait(b)
		}
		recs = nil
		waitUntil(b, "hibernation", func() bool { return e.m.Stats().Live == 0 })
		m1 := heapAfterGC()
		b.ReportMetric((float64(m1)-float64(m0))/n, "B/hibernated-session")
		e.stop()
	}
}

// BenchmarkEphemeralTurn: an ephemeral run (no storage) with an instant
// provider.
func BenchmarkEphemeralTurn(b *testing.B) {
	e := newEnv(b, envOpts{lean: true})
	hist := []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hi"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.m.RunDetached(context.Background(), Detached{Agent: "default", Channel: beamclaw.ChannelHTTP, History: hist}, discard{}); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Deliver(beamclaw.RunEvent) {}

// BenchmarkAPITurn: one stored turn as the OpenAI APIs send it (acknowledged
// with the answer): a chat completion into the user's session, and a
// Responses API turn continuing the previous response (its record written
// with the answer). Their difference is what a Responses turn adds in the
// session.
func BenchmarkAPITurn(b *testing.B) {
	api := func(in *beamclaw.Inbound) {
		in.Channel, in.NoApproval, in.AckOnAnswer, in.Origin = beamclaw.ChannelHTTP, true, true, ""
	}
	b.Run("chat", func(b *testing.B) {
		e := newEnv(b, envOpts{lean: true})
		b.ReportAllocs()
		for b.Loop() {
			r, _ := e.send(b, "api:ana", "hi", api)
			r.wait(b)
		}
	})
	b.Run("responses", func(b *testing.B) {
		e := newEnv(b, envOpts{lean: true})
		var from *beamclaw.Point
		n := 0
		b.ReportAllocs()
		for b.Loop() {
			n++
			id := fmt.Sprintf("resp_%d", n)
			r, _ := e.send(b, "api:ana", "hi", api, func(in *beamclaw.Inbound) {
				in.Response, in.From, in.Thread = &beamclaw.ResponseRef{ID: id, Echo: []byte(`{"model":"default","store":true}`)}, from, "r-"+id
			})
			r.wait(b)
			rec, err := e.m.ResponseHead(context.Background(), "", id)
			if err != nil {
				b.Fatal(err)
			}
			from = &rec.At
		}
	})
}
