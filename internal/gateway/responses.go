package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// The Responses API: POST /v1/responses with the conversation kept in a
// beamclaw session; a response id names the point of the session its run
// left (docs/responses.md).

// anonymous is the user of a request that names none: its conversations
// are stored like anyone's.
const anonymous = "anonymous"

// respCall is one accepted POST /v1/responses.
type respCall struct {
	id      string
	created int64
	echo    responseEcho
	route   *chatRoute
}

// createResponse serves POST /v1/responses.
func (o *OpenAI) createResponse(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, err)
		return
	}
	req, err := decodeResponseRequest(body)
	if err != nil {
		writeChatError(w, err)
		return
	}
	// Text is kept unstreamed too: the output's messages are the same
	// items as the stored response's.
	call := &respCall{created: o.opts.Clock.Now().Unix(), echo: echoOf(req), route: newChatRoute(true)}
	defer call.route.close()
	in, err := o.responseInput(r, req, body)
	if err != nil {
		writeChatError(w, err)
		return
	}
	call.id = responseID(in)
	if in.MessageID != "" && req.store && o.answerResent(w, r, req, call.id) {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	wait, err := o.startResponse(ctx, req, in, call)
	defer func() {
		cancel()
		wait()
	}()
	if err != nil {
		writeChatError(w, err)
		return
	}
	if req.Stream {
		o.streamResponse(ctx, w, call)
		return
	}
	o.completeResponse(ctx, w, call)
}

// responseInput resolves a request's agent, user, functions and new
// input: what the run is given, before anything runs.
func (o *OpenAI) responseInput(r *http.Request, req *responseRequest, body []byte) (*beamclaw.Inbound, error) {
	agent, user, err := o.whose(r, req.Model, req.User)
	if err != nil {
		return nil, err
	}
	if err := checkMetadata(req.Metadata); err != nil {
		return nil, err
	}
	if _, err := newItems(req.items); err != nil {
		return nil, err
	}
	for i := range req.items {
		it := &req.items[i] // the client's results, scrubbed as every tool result
		if it.msg.Role == beamclaw.RoleTool {
			it.msg.Content = o.opts.Scrub(it.msg.Content)
		}
		if it.result != nil {
			it.result.Content = o.opts.Scrub(it.result.Content)
		}
	}
	fns, err := functionDefs(req.Tools, o.opts.ToolNames(agent))
	if err != nil {
		return nil, err
	}
	choice, err := toolChoice(req.ToolChoice, fns)
	if err != nil {
		return nil, err
	}
	in := &beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, AgentID: agent, NoApproval: true, AckOnAnswer: true,
		Sampling: withToolChoice(req.sampling, choice), Functions: fns}
	if req.Instructions != nil {
		in.Instructions = *req.Instructions
	}
	if user != "" {
		in.UserID = o.opts.UserID("api", user)
	}
	if in.MessageID, in.MessageDigest, err = idempotency(r, body); err != nil {
		return nil, err
	}
	if !req.store {
		if req.PreviousResponseID != "" {
			return nil, badRequest("previous_response_id needs store: true (a response that is not stored cannot continue one)", "previous_response_id")
		}
		return in, nil
	}
	return in, o.storedInput(r.Context(), req, in)
}

// storedInput sets the new input of a stored response and where it goes:
// on from its previous response, or a conversation of its own.
func (o *OpenAI) storedInput(ctx context.Context, req *responseRequest, in *beamclaw.Inbound) error {
	first, err := newItems(req.items)
	if err != nil {
		return err
	}
	for _, it := range req.items[first:] {
		if it.Type == "function_call_output" {
			in.ToolResults = append(in.ToolResults, beamclaw.ToolResult{ToolCallID: it.CallID, Content: it.msg.Content})
		} else {
			in.Content, in.Attachments = it.msg.Content, it.msg.Attachments
		}
	}
	if req.PreviousResponseID == "" {
		if in.UserID == "" {
			in.UserID = o.opts.UserID("api", anonymous)
		}
		if first > 0 {
			in.Transcript = &beamclaw.Transcript{Messages: historyOf(req.items[:first])}
		}
		return nil
	}
	prev, err := o.opts.Sessions.ResponseHead(ctx, in.UserID, req.PreviousResponseID)
	switch {
	case beamclaw.KindOf(err) == beamclaw.KindNotFound:
		return &requestError{status: http.StatusNotFound, param: "previous_response_id",
			msg: fmt.Sprintf("Previous response with id '%s' not found.", req.PreviousResponseID)}
	case err != nil:
		return err
	case first > 0:
		return badRequest("with previous_response_id, input holds only the new message or the function call outputs", "input")
	case prev.Agent != in.AgentID:
		return badRequest(fmt.Sprintf("the previous response was answered by agent %q: use its model", prev.Agent), "model")
	}
	in.UserID, in.From = prev.User, &prev.At
	return nil
}

// responseID is a new response's id: random, or, for a request with an
// Idempotency-Key, the digest of the user, the key and the body, so that a
// resend is the same response (in the same conversation, answered from
// the first run) and nobody finds it by guessing a key alone.
func responseID(in *beamclaw.Inbound) string {
	if in.MessageID == "" {
		return "resp_" + randomID() + randomID()[:8]
	}
	sum := sha256.Sum256([]byte("response\x00" + in.UserID + "\x00" + in.MessageID + "\x00" + in.MessageDigest))
	return "resp_" + hex.EncodeToString(sum[:16])
}

// answerResent answers a resend of a stored response (the same
// Idempotency-Key and body) from its record, as the first request was
// answered, and reports whether it did; one still running is attached to
// by the session instead.
func (o *OpenAI) answerResent(w http.ResponseWriter, r *http.Request, req *responseRequest, id string) bool {
	rec, err := o.opts.Sessions.Response(r.Context(), "", id)
	if err != nil {
		return false
	}
	obj, err := storedObject(rec)
	if err != nil {
		writeError(w, err)
		return true
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, obj)
		return true
	}
	call := &respCall{id: id, created: obj.CreatedAt}
	_ = json.Unmarshal(rec.Echo, &call.echo) // storedObject read it already
	sw := o.newSSEWriter(w)
	defer sw.release()
	rs := &respStream{call: call, sw: sw}
	last := "response.failed"
	switch obj.Status {
	case session.StatusCompleted, session.StatusIncomplete:
		last = "response." + obj.Status
	}
	if rs.begin() == nil {
		_ = rs.end(last, obj)
	}
	return true
}

// newItems finds where the new input starts: the last item, a user
// message, or the function call outputs that end the input.
func newItems(items []inputItem) (int, error) {
	last := len(items) - 1
	if items[last].Type == "message" && items[last].Role == "user" {
		return last, nil
	}
	if items[last].Type != "function_call_output" {
		return 0, badRequest("the last input item must be a user message or a function_call_output: it is the new input", "input")
	}
	first := last
	for first > 0 && items[first-1].Type == "function_call_output" {
		first--
	}
	return first, nil
}

// historyOf is items as a conversation: a call joins the assistant
// message before it (the calls of one model response); an mcp_call is
// followed by its result.
func historyOf(items []inputItem) []beamclaw.Message {
	out := make([]beamclaw.Message, 0, len(items))
	for _, it := range items {
		if n := len(out); it.msg.Role == beamclaw.RoleAssistant && len(it.msg.ToolCalls) > 0 && it.msg.Content == "" &&
			n > 0 && out[n-1].Role == beamclaw.RoleAssistant {
			out[n-1].ToolCalls = append(out[n-1].ToolCalls, it.msg.ToolCalls...)
		} else {
			out = append(out, it.msg)
		}
		if it.result != nil {
			out = append(out, *it.result)
		}
	}
	return out
}

// checkMetadata applies OpenAI's limits: 16 pairs, keys of 64 characters,
// values of 512.
func checkMetadata(md map[string]string) error {
	if len(md) > 16 {
		return badRequest("Invalid 'metadata': too many properties. Expected an object with at most 16 properties.", "metadata")
	}
	for k, v := range md {
		if len(k) > 64 || len(v) > 512 {
			return badRequest("Invalid 'metadata': keys are at most 64 characters and values at most 512.", "metadata")
		}
	}
	return nil
}

// startResponse hands the run over: a stored response to its session, an
// unstored one to a detached run in its own goroutine until wait returns.
func (o *OpenAI) startResponse(ctx context.Context, req *responseRequest, in *beamclaw.Inbound, call *respCall) (wait func(), err error) {
	in.Route = call.route
	if req.store {
		in.Response = &beamclaw.ResponseRef{ID: call.id}
		if in.Response.Echo, err = json.Marshal(call.echo); err != nil {
			return func() {}, err
		}
		in.Thread = "r-" + call.id // its conversation, or the branch it starts
		_, err = o.opts.Sessions.Send(ctx, *in)
		if errors.Is(err, beamclaw.ErrMessageReused) {
			err = &requestError{status: http.StatusUnprocessableEntity, code: "idempotency_key_reused",
				msg: "Idempotency-Key was already used with a different request body; send a new key for a new request"}
		}
		return func() {}, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		d := session.Detached{Agent: in.AgentID, User: in.UserID, Channel: beamclaw.ChannelHTTP, History: historyOf(req.items),
			Sampling: in.Sampling, Functions: in.Functions, Instructions: in.Instructions}
		if _, err := o.opts.Sessions.RunDetached(ctx, d, call.route); err != nil {
			o.log.LogAttrs(ctx, slog.LevelWarn, "unstored response failed", slog.String("agent", in.AgentID),
				slog.String("kind", beamclaw.KindOf(err).String()), slog.String("error", beamclaw.UserMessage(err)))
			call.route.fail(err)
		}
	}()
	return func() { <-done }, nil
}

// completeResponse waits for the run's end and writes the response.
func (o *OpenAI) completeResponse(ctx context.Context, w http.ResponseWriter, call *respCall) {
	lr := newLiveResponse(call.id, nil)
	var buf []beamclaw.RunEvent
	for {
		select {
		case <-ctx.Done():
			return // the client is gone; a stored response is still stored
		case <-call.route.wake():
		}
		var cause error
		buf, cause = call.route.take(buf)
		for _, ev := range buf {
			switch ev.Type {
			case beamclaw.EvError:
				if ev.Text == session.MsgCanceled {
					obj := call.echo.object(call.id, call.created, session.StatusCancelled, lr.items)
					writeJSON(w, http.StatusOK, obj)
					return
				}
				if cause != nil {
					writeError(w, cause)
				} else {
					writeRunError(w, ev)
				}
				return
			case beamclaw.EvFinal:
				_ = lr.handle(ev)
				obj := call.echo.object(call.id, call.created, "", lr.items)
				status, reason := lr.status()
				obj.finish(status, reason, ev.Usage)
				writeJSON(w, http.StatusOK, obj)
				return
			default:
				_ = lr.handle(ev)
			}
		}
	}
}
