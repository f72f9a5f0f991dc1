package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// Agents is what the OpenAI routes need to know about agents: a request's
// model names one.
type Agents interface {
	Exists(name string) bool
	List() []string
}

// Sessions is the session manager as the OpenAI routes use it. Send
// persists in's message before it returns and later delivers the run's
// events to in.Route, ending with exactly one EvFinal or EvError.
// RunDetached answers a whole conversation without storing anything; it
// returns once route got its terminal event.
type Sessions interface {
	Send(ctx context.Context, in beamclaw.Inbound) (runID string, err error)
	RunDetached(ctx context.Context, d session.Detached, route beamclaw.Route) (runID string, err error)
	// MarkTurn records that after runID the client holds a copy of the
	// conversation with key (see beamclaw.Transcript).
	MarkTurn(ctx context.Context, sessionID, runID, key string) error
	// Response, DeleteResponse and CancelResponse reach a stored
	// Responses API response by id (of userID; "" for any user).
	Response(ctx context.Context, userID, id string) (session.Response, error)
	ResponseHead(ctx context.Context, userID, id string) (session.ResponseHead, error)
	DeleteResponse(ctx context.Context, userID, id string) error
	CancelResponse(ctx context.Context, userID, id string) error
}

// OpenAIOptions configures the OpenAI-compatible routes.
type OpenAIOptions struct {
	Sessions Sessions
	Agents   Agents
	Logger   *slog.Logger
	// UserHeader carries a user id when the body's "user" field does not
	// (default "X-User-Id"); the header wins when both are set.
	UserHeader string
	// UserID turns the channel prefix ("api") and a request's user id into
	// a session user id, applying BEAMCLAW_USER (session.UserID). Default:
	// "api:" + id.
	UserID func(channelPrefix, id string) string
	// Scrub removes credentials from the results of the client's functions
	// before they are stored or sent to a model (nil: the identity).
	Scrub func(string) string
	// ToolNames lists the names of an agent's own tools: a client's
	// function may not take one (nil: none are known).
	ToolNames func(agent string) []string
	// DefaultAgent is the agent model "default" names (core.default_agent,
	// default "default").
	DefaultAgent string
	// Clock dates the answers and paces a stream's keep-alives; defaults
	// to clock.System.
	Clock clock.Clock
	// KeepAlive is the interval of ": keep-alive" comments on an idle
	// stream (default 15 s).
	KeepAlive time.Duration
	// WriteTimeout bounds each write of a stream (default 30 s): the
	// server itself has no WriteTimeout, streams set their own deadline.
	WriteTimeout time.Duration
}

// OpenAI serves POST /v1/chat/completions, GET /v1/models,
// GET /v1/models/{id} and the Responses API (/v1/responses, responses.go).
type OpenAI struct {
	opts    OpenAIOptions
	log     *slog.Logger
	created int64 // the "created" time of the listed models
}

// NewOpenAI returns the OpenAI-compatible routes; Sessions and Agents are
// required.
func NewOpenAI(opts OpenAIOptions) *OpenAI {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.UserHeader == "" {
		opts.UserHeader = "X-User-Id"
	}
	if opts.UserID == nil {
		opts.UserID = func(prefix, id string) string { return prefix + ":" + id }
	}
	if opts.Scrub == nil {
		opts.Scrub = func(s string) string { return s }
	}
	if opts.ToolNames == nil {
		opts.ToolNames = func(string) []string { return nil }
	}
	if opts.DefaultAgent == "" {
		opts.DefaultAgent = "default"
	}
	opts.Clock = clock.Or(opts.Clock)
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 30 * time.Second
	}
	return &OpenAI{opts: opts, log: opts.Logger.With("component", "openai"), created: opts.Clock.Now().Unix()}
}

// Routes are the mounts the daemon appends to gateway Options.Routes.
func (o *OpenAI) Routes() []Mount {
	return []Mount{
		{Method: http.MethodPost, Pattern: "/v1/chat/completions", Handler: http.HandlerFunc(o.chat)},
		{Method: http.MethodGet, Pattern: "/v1/models", Handler: http.HandlerFunc(o.models)},
		{Method: http.MethodGet, Pattern: "/v1/models/*", Handler: http.HandlerFunc(o.model)},
		{Method: http.MethodPost, Pattern: "/v1/responses", Handler: http.HandlerFunc(o.createResponse)},
		{Method: http.MethodGet, Pattern: "/v1/responses/{id}", Handler: http.HandlerFunc(o.getResponse)},
		{Method: http.MethodDelete, Pattern: "/v1/responses/{id}", Handler: http.HandlerFunc(o.deleteResponse)},
		{Method: http.MethodPost, Pattern: "/v1/responses/{id}/cancel", Handler: http.HandlerFunc(o.cancelResponse)},
		{Method: http.MethodGet, Pattern: "/v1/responses/{id}/input_items", Handler: http.HandlerFunc(o.inputItems)},
	}
}

// modelPrefix marks an agent in a model name: "beamclaw/<agent>".
const modelPrefix = "beamclaw/"

// agentOf resolves a request's model to an agent name.
func (o *OpenAI) agentOf(model string) (string, bool) {
	name := model
	switch {
	case model == "default":
		name = o.opts.DefaultAgent
	case strings.HasPrefix(model, modelPrefix):
		name = model[len(modelPrefix):]
	}
	if name == "" || !o.opts.Agents.Exists(name) {
		return "", false
	}
	return name, true
}

func (o *OpenAI) models(w http.ResponseWriter, _ *http.Request) {
	agents := o.opts.Agents.List()
	list := modelList{Object: "list", Data: make([]modelEntry, 0, len(agents)+1)}
	list.Data = append(list.Data, modelEntry{ID: "default", Object: "model", Created: o.created, OwnedBy: "beamclaw"})
	for _, a := range agents {
		list.Data = append(list.Data, modelEntry{ID: modelPrefix + a, Object: "model", Created: o.created, OwnedBy: "beamclaw"})
	}
	writeJSON(w, http.StatusOK, list)
}

// model serves GET /v1/models/{id} (the SDKs' models.retrieve); an agent's
// id holds a slash ("beamclaw/coder"), sent escaped or not.
func (o *OpenAI) model(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "*")
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	if _, ok := o.agentOf(id); !ok {
		writeRequestError(w, modelNotFound(id))
		return
	}
	writeJSON(w, http.StatusOK, modelEntry{ID: id, Object: "model", Created: o.created, OwnedBy: "beamclaw"})
}

// requestError is a client error found before a run starts.
type requestError struct {
	status           int
	msg, code, param string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(msg, param string) *requestError {
	return &requestError{status: http.StatusBadRequest, msg: msg, param: param}
}

// writeRequestError writes e in OpenAI's error shape, with its param.
func writeRequestError(w http.ResponseWriter, e *requestError) {
	writeJSON(w, e.status, errorBody(e.status, e.msg, e.code, e.param))
}

// completionID is a fresh "chatcmpl-" id.
func completionID() string { return "chatcmpl-" + randomID() }

// randomID is 24 random hex digits.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// whose resolves a request's agent (its model) and its user id ("" for
// none: see userOf).
func (o *OpenAI) whose(r *http.Request, model, bodyUser string) (agent, user string, err error) {
	agent, ok := o.agentOf(model)
	if !ok {
		return "", "", modelNotFound(model)
	}
	user, err = o.userOf(r, bodyUser)
	return agent, user, err
}

// userOf returns the request's user id (header first, then the body's
// "user" field), or "" for an ephemeral request.
func (o *OpenAI) userOf(r *http.Request, body string) (string, error) {
	id := strings.TrimSpace(r.Header.Get(o.opts.UserHeader))
	if id == "" {
		id = strings.TrimSpace(body)
	}
	if len(id) > 256 {
		return "", badRequest("the user id is longer than 256 bytes", "user")
	}
	for _, c := range id {
		if c < 0x20 || c == 0x7f {
			return "", badRequest("the user id contains control characters", "user")
		}
	}
	return id, nil
}

// modelNotFound is OpenAI's answer to an unknown model.
func modelNotFound(model string) *requestError {
	return &requestError{status: http.StatusNotFound, code: "model_not_found", param: "model",
		msg: fmt.Sprintf("The model %q does not exist: use \"default\" or \"beamclaw/<agent>\" (GET /v1/models lists them)", model)}
}
