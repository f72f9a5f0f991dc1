package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// chatCall is one accepted request: what was asked and where the answer
// comes from.
type chatCall struct {
	id      string
	model   string // echoed as requested
	created int64
	usage   bool // stream_options.include_usage
	route   *chatRoute
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
	// twice.
	idem string
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
	if req.Stream {
		o.stream(ctx, w, call)
		return
	}
	o.complete(ctx, w, call)
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
	agent, ok := o.agentOf(req.Model)
	if !ok {
		return nil, modelNotFound(req.Model)
	}
	user, err := o.userOf(r, req.User)
	if err != nil {
		return nil, err
	}
	last := len(req.Messages) - 1
	if req.Messages[last].Role != string(beamclaw.RoleUser) {
		msg := "the last message must be from the user: it is the new input"
		if user != "" {
			msg += " (with a user id the session's stored history is authoritative and only the last user message is sent)"
		}
		return nil, badRequest(msg, "messages")
	}
	in := &chatInput{req: req, agent: agent, user: user}
	if k := r.Header.Get("Idempotency-Key"); k != "" {
		if len(k) > 255 {
			return nil, badRequest("Idempotency-Key is longer than 255 characters", "")
		}
		in.idem = "idem:" + k
	}
	if user != "" {
		in.text, in.atts, err = contentOf(last, req.Messages[last].Content)
	} else {
		in.history, err = toHistory(req.Messages)
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// start hands the request to the sessions. With a user id only the last
// message is new input to the user's stored session; without one the
// request's messages are the whole history of an ephemeral run, which
// runs in its own goroutine until wait returns.
func (o *OpenAI) start(ctx context.Context, in *chatInput, route *chatRoute) (wait func(), err error) {
	noop := func() {}
	if in.user != "" {
		_, err := o.opts.Sessions.Send(ctx, beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: o.opts.UserID("api", in.user),
			AgentID: in.agent, Content: in.text, Attachments: in.atts, NoApproval: true, Route: route, MessageID: in.idem,
			Sampling: in.req.sampling})
		return noop, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runID, err := o.opts.Sessions.RunEphemeral(ctx, in.agent, in.history, in.req.sampling, route)
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
	var notes deniedApprovals
	var buf []beamclaw.RunEvent
	for {
		select {
		case <-ctx.Done():
			return // the client is gone; the run's answer is still persisted
		case <-call.route.wake:
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
				writeErrorStatus(w, http.StatusBadGateway, ev.Text, "")
				return
			case beamclaw.EvFinal:
				writeJSON(w, http.StatusOK, chatCompletion{
					ID: call.id, Object: "chat.completion", Created: call.created, Model: call.model,
					Choices: []chatChoice{{Message: answerMessage{Role: "assistant",
						Content: withNote(ev.Text, notes.note())}, FinishReason: "stop"}},
					Usage: usageOf(ev.Usage),
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
	return chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}
