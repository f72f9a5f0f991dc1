package gateway

import (
	"encoding/json"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// wsRoute is the reply route of one message sent over a connection. Events
// that arrive before the message's ack is queued wait here (bounded by the
// send queue's size) so that a client always sees ack before the run's
// frames. Deliver never blocks on the network.
type wsRoute struct {
	c *wsConn

	mu      sync.Mutex
	ready   bool
	pending []protocol.ServerFrame
}

var _ beamclaw.Route = (*wsRoute)(nil)

// Deliver implements beamclaw.Route.
func (r *wsRoute) Deliver(ev beamclaw.RunEvent) {
	f, ok := wsRunFrame(ev)
	if !ok {
		return
	}
	if ev.Type == beamclaw.EvElicitation && ev.Elicit != nil {
		r.c.asked(ev.Elicit.ID) // it may be answered on this connection only
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ready {
		r.c.enqueue(f)
		return
	}
	if n := len(r.pending); n > 0 && r.c.merge(&r.pending[n-1], f) { // as enqueue merges a burst
		return
	}
	if len(r.pending) >= r.c.w.opts.SendQueue {
		r.c.slow()
		return
	}
	r.pending = append(r.pending, f)
}

// acked releases the frames that waited for the ack.
func (r *wsRoute) acked() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.pending {
		r.c.enqueue(f)
	}
	r.pending, r.ready = nil, true
}

// wsRunFrame turns a run event into its frame; state changes and approval
// results are not part of the wire protocol.
func wsRunFrame(ev beamclaw.RunEvent) (protocol.ServerFrame, bool) {
	f := protocol.ServerFrame{RunID: ev.RunID}
	switch ev.Type {
	case beamclaw.EvChunk:
		f.Type, f.Text = protocol.FrameChunk, ev.Text
	case beamclaw.EvToolStart:
		f.Type = protocol.FrameToolStart
		if ev.Tool != nil {
			f.Tool, f.ToolCallID, f.Args = ev.Tool.Name, ev.Tool.ID, wsRawJSON(ev.Tool.Args)
		}
	case beamclaw.EvToolResult:
		f.Type = protocol.FrameToolResult
		if ev.Result != nil {
			f.Tool, f.ToolCallID, f.Result, f.IsError = ev.Result.Name, ev.Result.ToolCallID, ev.Result.Content, ev.Result.IsError
		}
	case beamclaw.EvWaiting:
		f.Type, f.Text = protocol.FrameWaiting, ev.Text
	case beamclaw.EvApprovalRequest:
		if ev.Approval == nil {
			return f, false
		}
		a := *ev.Approval
		f.Type = protocol.FrameApprovalRequest
		f.Approval = &protocol.WSApproval{ID: a.ID, ToolName: a.ToolName, Args: a.Args, Risk: a.Risk, Prompt: a.Prompt}
	case beamclaw.EvElicitation:
		if ev.Elicit == nil {
			return f, false
		}
		e := *ev.Elicit
		f.Type = protocol.FrameElicitation
		f.Elicitation = &protocol.WSElicitation{ID: e.ID, Source: e.Source, Tool: e.Tool, Message: e.Message,
			Schema: wsRawJSON(e.Schema), URL: e.URL}
	case beamclaw.EvFinal:
		f.Type, f.Text = protocol.FrameFinal, ev.Text
		if ev.Usage != nil {
			u := *ev.Usage
			f.Usage = &protocol.WSUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		}
	case beamclaw.EvError:
		f.Type, f.Code, f.Message = protocol.FrameError, protocol.CodeRunFailed, ev.Text
		if f.Message == "" {
			f.Message = "the run failed"
		}
	default:
		return f, false
	}
	return f, true
}

// wsRawJSON keeps valid JSON arguments as they are and wraps anything else
// (a model's broken JSON) in a string, so that the frame always encodes.
func wsRawJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}

// WireHistory is a history as the wire carries it (/ws frames, the
// control routes of beamclaw sessions).
func WireHistory(hist []beamclaw.Message) []protocol.WSMessage {
	out := make([]protocol.WSMessage, 0, len(hist))
	for _, m := range hist {
		w := protocol.WSMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID,
			Name: m.Name, Time: m.Time}
		for _, tc := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, protocol.WSToolCall{ID: tc.ID, Name: tc.Name, Args: wsRawJSON(tc.Args)})
		}
		out = append(out, w)
	}
	return out
}

func wsAttachments(in []protocol.WSAttachment) []beamclaw.Attachment {
	if len(in) == 0 {
		return nil
	}
	out := make([]beamclaw.Attachment, len(in))
	for i, a := range in {
		out[i] = beamclaw.Attachment{MIME: a.MIME, Data: a.Data, Name: a.Name}
	}
	return out
}

// messageDigest is what a message's id is compared by when it comes
// again: a digest of its content and attachments.
func messageDigest(f protocol.ClientFrame) string {
	b, _ := json.Marshal(struct { // strings and bytes always encode
		Content     string                  `json:"content"`
		Attachments []protocol.WSAttachment `json:"attachments"`
	}{f.Content, f.Attachments})
	return bodyDigest(b)
}
