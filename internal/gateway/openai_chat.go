package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// chatCall is one accepted request: what was asked and where the answer
// comes from.
type chatCall struct {
	id      string
	model   string // echoed as requested
	created int64
	usage   bool // stream_options.include_usage
	route   *chatRoute
	// onAnswer, when set, is told the answer just before the client can
	// read its end.
	onAnswer func(answered)
}

func (c *chatCall) answered(a answered) {
	if c.onAnswer != nil {
		c.onAnswer(a)
	}
}

// chatInput is an accepted request, converted: either the new user
// message of a stored session (user != "") or a whole ephemeral history.
type chatInput struct {
	req     *chatRequest
	agent   string
	user    string
	text    string
	atts    []beamclaw.Attachment
	history []beamclaw.Message
	// idem is the Idempotency-Key header: on a stored session, a request
	// sent again with the same key is answered from the first, never run
	// twice; one with the same key and another body (idemDigest) is
	// refused with 422.
	idem, idemKey, idemDigest string
	// thread is the session the client named (X-Beamclaw-Session or
	// metadata.session); transcript is its copy of the conversation
	// before the new message, when it sent more than that message.
	thread     string
	transcript *beamclaw.Transcript
	// functions are the client's tools; results, when the request's new
	// input is the results of the calls its last answer ended with.
	functions []beamclaw.ToolDef
	results   []beamclaw.ToolResult
}

// chat serves POST /v1/chat/completions.
func (o *OpenAI) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, err) // *http.MaxBytesError becomes a 413
		return
	}
	in, err := o.parse(r, body)
	if err != nil {
		writeChatError(w, err)
		return
	}
	req := in.req
	call := &chatCall{id: completionID(), model: req.Model, created: o.opts.Clock.Now().Unix(),
		usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage, route: newChatRoute(req.Stream)}
	defer call.route.close()
	ctx, cancel := context.WithCancel(r.Context())
	wait, err := o.start(ctx, in, call.route)
	defer func() {
		cancel() // an ephemeral run ends with its request
		wait()
	}()
	if err != nil {
		writeChatError(w, err)
		return
	}
	if in.user != "" {
		// Before the client reads the answer, record the copy its next
		// message will carry.
		call.onAnswer = func(ans answered) {
			next := append(slices.Clip(req.Messages), chatMessage{Role: "assistant", Content: chatContent{Text: ans.text},
				ToolCalls: wireCalls(ans.calls)})
			if err := o.opts.Sessions.MarkTurn(context.WithoutCancel(ctx), ans.sessionID, ans.runID, transcriptKey(next)); err != nil {
				o.log.LogAttrs(ctx, slog.LevelWarn, "could not mark the conversation's turn", slog.String("session_id", ans.sessionID),
					slog.String("error", err.Error()))
			}
		}
	}
	if req.Stream {
		o.stream(ctx, w, call)
		return
	}
	o.complete(ctx, w, call)
}

// answered is the run's answer as the client gets it.
type answered struct {
	text             string
	calls            []beamclaw.ToolCall // of the client's functions
	sessionID, runID string
}

// writeChatError writes a request error with its param, anything else by
// its Kind.
func writeChatError(w http.ResponseWriter, err error) {
	var re *requestError
	if errors.As(err, &re) {
		writeRequestError(w, re)
		return
	}
	writeError(w, err)
}

// parse decodes and checks a request, resolves its agent and user and
// converts its messages.
func (o *OpenAI) parse(r *http.Request, body []byte) (*chatInput, error) {
	req, err := decodeChat(body)
	if err != nil {
		return nil, err
	}
	agent, user, err := o.whose(r, req.Model, req.User)
	if err != nil {
		return nil, err
	}
	first, err := newInput(req.Messages)
	if err != nil {
		return nil, err
	}
	in := &chatInput{req: req, agent: agent, user: user}
	if in.functions, err = functionDefs(req.Tools, o.opts.ToolNames(agent)); err != nil {
		return nil, err
	}
	choice, err := toolChoice(req.ToolChoice, in.functions)
	if err != nil {
		return nil, err
	}
	req.sampling = withToolChoice(req.sampling, choice)
	if in.thread, err = threadOf(r, req); err != nil {
		return nil, err
	}
	if in.thread != "" && user == "" {
		return nil, badRequest("a named session needs a user id (the user field or the "+o.opts.UserHeader+" header)", "user")
	}
	if in.idem, in.idemDigest, err = idempotency(r, body); err != nil {
		return nil, err
	}
	in.idemKey = r.Header.Get("Idempotency-Key")
	in.history, err = toHistory(req.Messages) // every message checked, whichever way it goes
	if err != nil {
		return nil, err
	}
	o.scrubResults(in.history)
	if user != "" {
		if req.Messages[first].Role == string(beamclaw.RoleTool) {
			for _, m := range in.history[first:] {
				in.results = append(in.results, beamclaw.ToolResult{ToolCallID: m.ToolCallID, Name: m.Name, Content: m.Content})
			}
		} else {
			in.text, in.atts = in.history[first].Content, in.history[first].Attachments
		}
		in.transcript = &beamclaw.Transcript{Messages: in.history[:first:first], Key: transcriptKey(req.Messages[:first])}
		in.history = nil
	}
	return in, nil
}

// scrubResults scrubs the tool results in msgs, the client's own: like
// every tool result, they are scrubbed before they are stored or sent on.
func (o *OpenAI) scrubResults(msgs []beamclaw.Message) {
	for i := range msgs {
		if msgs[i].Role == beamclaw.RoleTool {
			msgs[i].Content = o.opts.Scrub(msgs[i].Content)
		}
	}
}

// newInput finds where a request's new input starts: its last message,
// from the user, or the tool messages that end it, the client's results
// of the calls of the assistant message before them.
func newInput(msgs []chatMessage) (int, error) {
	last := len(msgs) - 1
	switch msgs[last].Role {
	case string(beamclaw.RoleUser):
		return last, nil
	case string(beamclaw.RoleTool):
	default:
		return 0, badRequest("the last message must be from the user (the new input) or the results of tool calls (role tool)", "messages")
	}
	first := last
	for first > 0 && msgs[first-1].Role == string(beamclaw.RoleTool) {
		first--
	}
	if first == 0 || len(msgs[first-1].ToolCalls) == 0 {
		return 0, badRequest("tool messages must follow the assistant message whose tool_calls they answer", "messages")
	}
	for i := first; i <= last; i++ {
		if msgs[i].ToolCallID == "" {
			return 0, badRequest(fmt.Sprintf("messages[%d].tool_call_id is required: it names the call the result answers", i),
				fmt.Sprintf("messages[%d].tool_call_id", i))
		}
	}
	return first, nil
}

// start hands the request to the sessions. With a user id only the last
// message is new input to the user's stored session; without one the
// request's messages are the whole history of an ephemeral run, which
// runs in its own goroutine until wait returns.
func (o *OpenAI) start(ctx context.Context, in *chatInput, route *chatRoute) (wait func(), err error) {
	noop := func() {}
	if in.user != "" {
		_, err := o.opts.Sessions.Send(ctx, beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: o.opts.UserID("api", in.user),
			AgentID: in.agent, Content: in.text, Attachments: in.atts, NoApproval: true, Route: route,
			Functions: in.functions, ToolResults: in.results,
			MessageID: in.idem, MessageDigest: in.idemDigest,
			Sampling: in.req.sampling, Thread: in.thread, Transcript: in.transcript, AckOnAnswer: true})
		if errors.Is(err, beamclaw.ErrMessageReused) {
			err = &requestError{status: http.StatusUnprocessableEntity, code: "idempotency_key_reused",
				msg: "Idempotency-Key " + strconv.Quote(in.idemKey) + " was already used with a different request body; " +
					"send a new key for a new request"}
		}
		return noop, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runID, err := o.opts.Sessions.RunDetached(ctx, session.Detached{Agent: in.agent, Channel: beamclaw.ChannelHTTP,
			History: in.history, Sampling: in.req.sampling, Functions: in.functions}, route)
		if err != nil {
			o.log.LogAttrs(ctx, slog.LevelWarn, "ephemeral run failed", slog.String("agent", in.agent),
				slog.String("run_id", runID), slog.String("kind", beamclaw.KindOf(err).String()),
				slog.String("error", beamclaw.UserMessage(err))) // the cause may quote provider text
			route.fail(err)
		}
	}()
	return func() { <-done }, nil
}

// complete waits for the run's answer and writes it as one response.
func (o *OpenAI) complete(ctx context.Context, w http.ResponseWriter, call *chatCall) {
	var notes deniedTools
	var buf []beamclaw.RunEvent
	for {
		select {
		case <-ctx.Done():
			return // the client is gone; the run's answer is still persisted
		case <-call.route.wake():
		}
		var cause error
		buf, cause = call.route.take(buf)
		for _, ev := range buf {
			notes.observe(ev)
			switch ev.Type {
			case beamclaw.EvError:
				if cause != nil {
					writeError(w, cause)
					return
				}
				writeRunError(w, ev)
				return
			case beamclaw.EvFinal:
				text := withNote(ev.Text, notes.note())
				call.answered(answered{text: text, calls: ev.Calls, sessionID: ev.SessionID, runID: ev.RunID})
				msg, finish := answerMessage{Role: "assistant", Content: &text}, "stop"
				if len(ev.Calls) > 0 {
					msg.ToolCalls, finish = wireCalls(ev.Calls), "tool_calls"
					if text == "" {
						msg.Content = nil
					}
				}
				writeJSON(w, http.StatusOK, chatCompletion{
					ID: call.id, Object: "chat.completion", Created: call.created, Model: call.model,
					Choices: []chatChoice{{Message: msg, FinishReason: finish}},
					Usage:   usageOf(ev.Usage),
				})
				return
			}
		}
	}
}

// withNote appends the approval note to an answer.
func withNote(text, note string) string {
	if text == "" {
		return strings.TrimLeft(note, "\n")
	}
	return text + note
}

func usageOf(u *beamclaw.Usage) chatUsage {
	if u == nil {
		return chatUsage{}
	}
	out := chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CachedTokens > 0 {
		out.PromptDetails = &promptDetails{CachedTokens: u.CachedTokens}
	}
	return out
}

// SessionHeader names a stored conversation explicitly (as does the
// body's metadata.session); it needs a user id.
const SessionHeader = "X-Beamclaw-Session"

// threadOf is the session name a request gives, checked.
func threadOf(r *http.Request, req *chatRequest) (string, error) {
	name, param := r.Header.Get(SessionHeader), ""
	if name == "" {
		name, param = req.Metadata["session"], "metadata.session"
	}
	if name == "" {
		return "", nil
	}
	if len(name) > 128 || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", badRequest("a session name is 1 to 128 printable characters", param)
	}
	return "n-" + name, nil
}

// idempotency is a request's Idempotency-Key as a message id ("" for
// none) and the digest of its body the key is remembered with.
func idempotency(r *http.Request, body []byte) (msgID, digest string, err error) {
	k := r.Header.Get("Idempotency-Key")
	switch {
	case k == "":
		return "", "", nil
	case len(k) > 255:
		return "", "", badRequest("Idempotency-Key is longer than 255 characters", "")
	}
	return "idem:" + k, bodyDigest(body), nil
}

// bodyDigest is what an Idempotency-Key is compared by: a digest of the
// request body.
func bodyDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:16])
}
