package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// stream answers a stream: true request with server-sent events: a role
// chunk at once, the answer's text as the run streams it, a closing chunk
// with finish_reason "stop", the usage chunk when asked for, and
// "data: [DONE]". It stops writing when the client goes away.
func (o *OpenAI) stream(ctx context.Context, w http.ResponseWriter, call *chatCall) {
	sw := o.newSSEWriter(w)
	defer sw.release()
	st := &streamState{call: call, sw: sw}
	st.chunk.ID, st.chunk.Object, st.chunk.Created, st.chunk.Model = call.id, "chat.completion.chunk", call.created, call.model
	o.serveSSE(ctx, sw, call.route, st)
}

// sseStream is one stream's writer of events: begin writes its head once
// (before the first event or keep-alive), handle what an event means,
// done after the last.
type sseStream interface {
	begin() error
	handle(ev beamclaw.RunEvent, cause error) (done bool, err error)
}

// newSSEWriter is w as a stream of events.
func (o *OpenAI) newSSEWriter(w http.ResponseWriter) *sseWriter {
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: o.opts.WriteTimeout}
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	return sw
}

// serveSSE hands route's events to st until it is done, with a
// keep-alive comment after each idle KeepAlive. It stops writing when the
// client goes away: the run goes on in the daemon and is persisted.
func (o *OpenAI) serveSSE(ctx context.Context, sw *sseWriter, route *chatRoute, st sseStream) {
	tick := o.opts.Clock.NewTicker(o.opts.KeepAlive)
	defer tick.Stop()
	var buf []beamclaw.RunEvent
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
			if err := st.begin(); err != nil {
				o.gone(ctx, err)
				return
			}
			if err := sw.write([]byte(": keep-alive\n\n")); err != nil {
				o.gone(ctx, err)
				return
			}
		case <-route.wake():
			var cause error
			buf, cause = route.take(buf)
			for _, ev := range buf {
				done, err := st.handle(ev, cause)
				if err != nil {
					o.gone(ctx, err)
					return
				}
				if done {
					return
				}
			}
			tick.Reset(o.opts.KeepAlive)
		}
	}
}

// gone logs a stream the client stopped reading.
func (o *OpenAI) gone(ctx context.Context, err error) {
	o.log.LogAttrs(ctx, slog.LevelDebug, "stream client gone", slog.String("error", err.Error()))
}

// sseWriter writes and flushes events, each under its own write deadline
// (the server has no WriteTimeout).
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     bytes.Buffer
	enc     *json.Encoder
}

func (s *sseWriter) write(b []byte) error {
	if err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// data writes v as one "data:" event.
func (s *sseWriter) data(v any) error {
	s.buf.Reset()
	s.buf.WriteString("data: ")
	if err := s.enc.Encode(v); err != nil {
		return err
	}
	s.buf.WriteByte('\n') // Encode ended the line; a blank line ends the event
	return s.write(s.buf.Bytes())
}

// release clears the deadline: the connection may serve the next request.
func (s *sseWriter) release() { _ = s.rc.SetWriteDeadline(time.Time{}) }

var sseDone = []byte("data: [DONE]\n\n")

// streamState turns run events into chunks. Text streamed before a tool
// ran belongs to an earlier model turn; the final answer is reconciled
// with the text of the last turn so the client gets it whole.
type streamState struct {
	call   *chatCall
	sw     *sseWriter
	chunk  chatChunk
	choice [1]chunkChoice
	seg    strings.Builder // text sent since the last tool activity
	sent   bool            // any answer text sent
	newSeg bool            // tool activity since the last chunk
	notes  deniedTools
	all    strings.Builder // every piece of answer text sent: the client's copy
	begun  bool            // the 200 and the role chunk are written
}

// begin writes the stream's head: the 200 with its headers and the role
// chunk. It waits for the run's first event, so that a run failing before
// it said anything gets a real status (429 with Retry-After, 502).
func (st *streamState) begin() error {
	if st.begun {
		return nil
	}
	st.begun = true
	h := st.sw.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // reverse proxies must not buffer the stream
	st.sw.w.WriteHeader(http.StatusOK)
	return st.delta(chunkDelta{Role: "assistant", Content: new("")}, nil)
}

// handle writes what ev means for the client; done is true after [DONE].
func (st *streamState) handle(ev beamclaw.RunEvent, cause error) (done bool, err error) {
	st.notes.observe(ev)
	if ev.Type == beamclaw.EvError && !st.begun {
		if cause != nil {
			writeError(st.sw.w, cause)
		} else {
			writeRunError(st.sw.w, ev)
		}
		return true, nil
	}
	if err := st.begin(); err != nil {
		return false, err
	}
	switch ev.Type {
	case beamclaw.EvChunk:
		return false, st.text(ev.Text)
	case beamclaw.EvToolStart, beamclaw.EvToolResult, beamclaw.EvNeedsApproval: // a tool ran, or was refused: the next text is a new model turn
		st.newSeg = true
		st.seg.Reset()
	case beamclaw.EvFinal:
		return true, st.final(ev)
	case beamclaw.EvError:
		return true, st.fail(ev, cause)
	}
	return false, nil
}

// text sends a piece of the answer.
func (st *streamState) text(s string) error {
	if s == "" {
		return nil
	}
	st.seg.WriteString(s)
	if st.newSeg && st.sent {
		s = "\n\n" + s
	}
	st.newSeg, st.sent = false, true
	st.all.WriteString(s)
	return st.delta(chunkDelta{Content: &s}, nil)
}

// final sends what the client has not seen of the answer, the closing
// chunk, the usage chunk when asked for, and [DONE].
func (st *streamState) final(ev beamclaw.RunEvent) error {
	rest := unstreamed(st.seg.String(), ev.Text)
	if rest == ev.Text && rest != "" && st.sent {
		rest = "\n\n" + rest
	}
	rest += st.notes.note()
	if !st.sent {
		rest = strings.TrimLeft(rest, "\n")
	}
	st.all.WriteString(rest)
	st.call.answered(answered{text: st.all.String(), calls: ev.Calls, sessionID: ev.SessionID, runID: ev.RunID})
	if rest != "" {
		if err := st.delta(chunkDelta{Content: &rest}, nil); err != nil {
			return err
		}
	}
	stop := "stop"
	if len(ev.Calls) > 0 {
		calls := make([]chunkCall, len(ev.Calls))
		for i, c := range wireCalls(ev.Calls) {
			calls[i] = chunkCall{Index: i, toolCall: c}
		}
		if err := st.delta(chunkDelta{ToolCalls: calls}, nil); err != nil {
			return err
		}
		stop = "tool_calls"
	}
	if err := st.delta(chunkDelta{}, &stop); err != nil {
		return err
	}
	if st.call.usage {
		u := usageOf(ev.Usage)
		st.chunk.Choices, st.chunk.Usage = []chunkChoice{}, &u
		if err := st.sw.data(&st.chunk); err != nil {
			return err
		}
	}
	return st.sw.write(sseDone)
}

// unstreamed is the part of final not yet streamed as seg, or all of final
// when seg is not its beginning.
func unstreamed(seg, final string) string {
	if seg == "" {
		return final
	}
	if strings.HasPrefix(final, seg) {
		return final[len(seg):]
	}
	if t := strings.TrimRightFunc(seg, unicode.IsSpace); t != "" && strings.HasPrefix(final, t) {
		return final[len(t):]
	}
	return final
}

// fail sends an error event in OpenAI's shape, then [DONE].
func (st *streamState) fail(ev beamclaw.RunEvent, cause error) error {
	status := runStatus(ev)
	if cause != nil {
		status = statusOf(beamclaw.KindOf(cause))
	}
	body := errorBody(status, ev.Text, "", "")
	if err := st.sw.data(body); err != nil {
		return err
	}
	return st.sw.write(sseDone)
}

// delta sends one chunk.
func (st *streamState) delta(d chunkDelta, finish *string) error {
	st.choice[0] = chunkChoice{Delta: d, FinishReason: finish}
	st.chunk.Choices = st.choice[:]
	return st.sw.data(&st.chunk)
}
