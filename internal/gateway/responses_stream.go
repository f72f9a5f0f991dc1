package gateway

import (
	"context"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// streamResponse answers a stream: true response with the semantic
// events: response.created and response.in_progress, then its output
// items as they form (text deltas, the agent's tool calls, the client's
// function calls), and response.completed, response.incomplete or
// response.failed, then "data: [DONE]". Every event's SSE name is its
// type; sequence_number counts from 0.
func (o *OpenAI) streamResponse(ctx context.Context, w http.ResponseWriter, call *respCall) {
	sw := o.newSSEWriter(w)
	defer sw.release()
	rs := &respStream{call: call, sw: sw}
	rs.live = newLiveResponse(call.id, rs.event)
	if err := rs.begin(); err != nil { // the id at once: the client can cancel
		o.gone(ctx, err)
		return
	}
	o.serveSSE(ctx, sw, call.route, rs)
}

// respStream is the state of one streamed response.
type respStream struct {
	call  *respCall
	sw    *sseWriter
	live  *liveResponse
	seq   int
	begun bool
}

// event writes one event: "event: <type>" and its JSON.
func (rs *respStream) event(ev *streamEvent) error {
	ev.Seq = rs.seq
	rs.seq++
	sw := rs.sw
	sw.buf.Reset()
	sw.buf.WriteString("event: ")
	sw.buf.WriteString(ev.Type)
	sw.buf.WriteString("\ndata: ")
	if err := sw.enc.Encode(ev); err != nil {
		return err
	}
	sw.buf.WriteByte('\n')
	return sw.write(sw.buf.Bytes())
}

// begin writes the 200 and response.created, response.in_progress, once,
// before the run's first event: a run failing later ends the stream with
// response.failed.
func (rs *respStream) begin() error {
	if rs.begun {
		return nil
	}
	rs.begun = true
	h := rs.sw.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	rs.sw.w.WriteHeader(http.StatusOK)
	obj := rs.call.echo.object(rs.call.id, rs.call.created, "in_progress", nil)
	if err := rs.event(&streamEvent{Type: "response.created", Response: obj}); err != nil {
		return err
	}
	return rs.event(&streamEvent{Type: "response.in_progress", Response: obj})
}

// handle writes what ev means for the client; done is true after [DONE].
// An error's event says why, in words fit for the client (cause is for
// statuses, which a begun stream no longer has).
func (rs *respStream) handle(ev beamclaw.RunEvent, _ error) (bool, error) {
	switch ev.Type {
	case beamclaw.EvError:
		return true, rs.end("response.failed", rs.failed(ev))
	case beamclaw.EvFinal:
		if err := rs.live.handle(ev); err != nil {
			return false, err
		}
		status, reason := rs.live.status()
		obj := rs.call.echo.object(rs.call.id, rs.call.created, "", rs.live.items)
		obj.finish(status, reason, ev.Usage)
		name := "response.completed"
		if status == session.StatusIncomplete {
			name = "response.incomplete"
		}
		return true, rs.end(name, obj)
	}
	return false, rs.live.handle(ev)
}

// failed is the response of a run that ended in an error (or was
// cancelled).
func (rs *respStream) failed(ev beamclaw.RunEvent) *responseObject {
	_ = rs.live.closeText()
	obj := rs.call.echo.object(rs.call.id, rs.call.created, "", rs.live.items)
	if ev.Text == session.MsgCanceled {
		obj.finish(session.StatusCancelled, "", nil)
	} else {
		obj.finish(session.StatusFailed, ev.Text, nil)
		switch ev.Kind {
		case beamclaw.KindRateLimited:
			obj.Error.Code = "rate_limit_exceeded"
		case beamclaw.KindBudget:
			obj.Error.Code = "budget_exceeded"
		}
	}
	return obj
}

// end writes the last event with the whole response, then [DONE].
func (rs *respStream) end(name string, obj *responseObject) error {
	if err := rs.event(&streamEvent{Type: name, Response: obj}); err != nil {
		return err
	}
	return rs.sw.write(sseDone)
}
