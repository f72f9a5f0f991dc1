package gateway

import (
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// liveResponse turns a run's events into the response's output items as
// they form, and, for a stream, into the Responses API's semantic events
// (emit). The items it builds are those itemsOf renders from the stored
// run: the same ids, the same order.
type liveResponse struct {
	id       string
	items    []outputItem
	text     int            // index of the message item taking text; -1: none
	texts    int            // message items so far
	lastText string         // the text of the last message item closed
	tools    map[string]int // the agent's calls in progress: call id -> item index
	asked    bool           // a call needed an approval nobody here could give
	emit     func(ev *streamEvent) error
	part0    int        // the content index of every text (one part per message)
	logprobs []struct{} // none, but present: the SDKs expect the member
}

func newLiveResponse(id string, emit func(ev *streamEvent) error) *liveResponse {
	if emit == nil {
		emit = func(*streamEvent) error { return nil }
	}
	return &liveResponse{id: id, text: -1, tools: map[string]int{}, emit: emit, logprobs: []struct{}{}}
}

// streamEvent is one event of a streamed response; its type is also the
// SSE event's name.
type streamEvent struct {
	Type         string          `json:"type"`
	Seq          int             `json:"sequence_number"`
	Response     *responseObject `json:"response,omitempty"`
	OutputIndex  *int            `json:"output_index,omitempty"`
	ItemID       string          `json:"item_id,omitempty"`
	ContentIndex *int            `json:"content_index,omitempty"`
	Item         *outputItem     `json:"item,omitempty"`
	Part         *outputPart     `json:"part,omitempty"`
	Delta        *string         `json:"delta,omitempty"`
	Text         *string         `json:"text,omitempty"`
	Arguments    *string         `json:"arguments,omitempty"`
	Name         string          `json:"name,omitempty"`
	Logprobs     *[]struct{}     `json:"logprobs,omitempty"`
	Code         string          `json:"code,omitempty"`
	Message      string          `json:"message,omitempty"`
}

// itemEvent is an event about item i.
func (lr *liveResponse) itemEvent(typ string, i int) *streamEvent {
	it := lr.items[i]
	return &streamEvent{Type: typ, OutputIndex: &i, Item: &it}
}

// handle follows one event of the run; the terminal ones end the output
// (final) or are the caller's (error).
func (lr *liveResponse) handle(ev beamclaw.RunEvent) error {
	switch ev.Type {
	case beamclaw.EvChunk:
		return lr.chunk(ev.Text)
	case beamclaw.EvToolStart:
		if ev.Tool == nil || lr.nested(ev.Tool.ID) {
			return nil
		}
		return lr.toolStart(*ev.Tool)
	case beamclaw.EvToolResult:
		if ev.Tool == nil || ev.Result == nil || lr.nested(ev.Tool.ID) {
			return nil
		}
		if _, started := lr.tools[ev.Tool.ID]; !started { // refused before it ran (an unknown tool, the policy)
			if err := lr.toolStart(*ev.Tool); err != nil {
				return err
			}
		}
		return lr.toolDone(ev.Tool.ID, ev.Result.Content)
	case beamclaw.EvNeedsApproval:
		if ev.Tool == nil || lr.nested(ev.Tool.ID) {
			return nil
		}
		lr.asked = true
		if err := lr.toolStart(*ev.Tool); err != nil {
			return err
		}
		return lr.toolDone(ev.Tool.ID, ev.Text)
	case beamclaw.EvFinal:
		return lr.final(ev)
	}
	return nil
}

// nested reports whether callID is a call a running tool made itself
// (loop.nestedCaller: "<parent>_<n>"): inside its parent's item, not in
// the history, so not an item of its own.
func (lr *liveResponse) nested(callID string) bool {
	for parent := range lr.tools {
		if strings.HasPrefix(callID, parent+"_") {
			return true
		}
	}
	return false
}

// chunk adds streamed answer text, opening a message item when none is.
func (lr *liveResponse) chunk(s string) error {
	if s == "" {
		return nil
	}
	if lr.text < 0 {
		it := messageItem(lr.id, lr.texts, "", "in_progress")
		it.Content = nil
		lr.items, lr.text = append(lr.items, it), len(lr.items)
		lr.texts++
		if err := lr.emit(lr.itemEvent("response.output_item.added", lr.text)); err != nil {
			return err
		}
		part := outputPart{Type: "output_text", Annotations: []struct{}{}, Logprobs: []struct{}{}}
		lr.items[lr.text].Content = []outputPart{part}
		if err := lr.emit(&streamEvent{Type: "response.content_part.added", OutputIndex: &lr.text, ItemID: it.ID,
			ContentIndex: &lr.part0, Part: &part}); err != nil {
			return err
		}
	}
	it := &lr.items[lr.text]
	it.Content[0].Text += s
	return lr.emit(&streamEvent{Type: "response.output_text.delta", OutputIndex: &lr.text, ItemID: it.ID, ContentIndex: &lr.part0,
		Delta: &s, Logprobs: &lr.logprobs})
}

// closeText ends the message item taking text.
func (lr *liveResponse) closeText() error {
	i := lr.text
	if i < 0 {
		return nil
	}
	lr.text = -1
	it := &lr.items[i]
	it.Status = "completed"
	part := it.Content[0]
	lr.lastText = part.Text
	if err := lr.emit(&streamEvent{Type: "response.output_text.done", OutputIndex: &i, ItemID: it.ID, ContentIndex: &lr.part0,
		Text: &part.Text, Logprobs: &lr.logprobs}); err != nil {
		return err
	}
	if err := lr.emit(&streamEvent{Type: "response.content_part.done", OutputIndex: &i, ItemID: it.ID, ContentIndex: &lr.part0,
		Part: &part}); err != nil {
		return err
	}
	return lr.emit(lr.itemEvent("response.output_item.done", i))
}

// toolStart opens the item of a call of one of the agent's tools.
func (lr *liveResponse) toolStart(c beamclaw.ToolCall) error {
	if err := lr.closeText(); err != nil {
		return err
	}
	lr.items = append(lr.items, toolItem(c, nil))
	lr.tools[c.ID] = len(lr.items) - 1
	return lr.emit(lr.itemEvent("response.output_item.added", len(lr.items)-1))
}

// toolDone completes a call's item with its (scrubbed) result.
func (lr *liveResponse) toolDone(callID, output string) error {
	i, ok := lr.tools[callID]
	if !ok {
		return nil
	}
	delete(lr.tools, callID)
	lr.items[i].Output, lr.items[i].Status = &output, "completed"
	return lr.emit(lr.itemEvent("response.output_item.done", i))
}

// final ends the output: what the client has not seen of the answer, then
// the calls of the client's functions the run stopped at.
func (lr *liveResponse) final(ev beamclaw.RunEvent) error {
	switch {
	case lr.text >= 0:
		if err := lr.chunk(unstreamed(lr.items[lr.text].Content[0].Text, ev.Text)); err != nil {
			return err
		}
	case ev.Text != "" && (len(ev.Calls) == 0 || ev.Text != lr.lastText):
		if err := lr.chunk(ev.Text); err != nil {
			return err
		}
	}
	if err := lr.closeText(); err != nil {
		return err
	}
	for _, c := range ev.Calls {
		it := functionItem(c, "in_progress")
		empty := ""
		it.Arguments = &empty
		lr.items = append(lr.items, it)
		i := len(lr.items) - 1
		if err := lr.emit(lr.itemEvent("response.output_item.added", i)); err != nil {
			return err
		}
		args := string(c.Args)
		if err := lr.emit(&streamEvent{Type: "response.function_call_arguments.delta", OutputIndex: &i, ItemID: it.ID, Delta: &args}); err != nil {
			return err
		}
		if err := lr.emit(&streamEvent{Type: "response.function_call_arguments.done", OutputIndex: &i, ItemID: it.ID,
			Arguments: &args, Name: c.Name}); err != nil {
			return err
		}
		lr.items[i].Arguments, lr.items[i].Status = &args, "completed"
		if err := lr.emit(lr.itemEvent("response.output_item.done", i)); err != nil {
			return err
		}
	}
	return nil
}

// status is how the run ended, for the response object.
func (lr *liveResponse) status() (status, reason string) {
	if lr.asked {
		return session.StatusIncomplete, session.ReasonApproval
	}
	return session.StatusCompleted, ""
}
