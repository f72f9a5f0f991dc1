package a2a

import (
	"context"
	"errors"
	"log/slog"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// interceptor runs around every SDK call: it names the authenticated
// caller to the SDK, emits a2a_request, keeps callers to their own tasks,
// refuses a message in the agent's role and a message's push URL before
// the SDK sees them, keeps the peer's
// push credentials out of logs and errors (peersecret.go), and maps errors
// once, at the edge, to what a peer may read.
type interceptor struct {
	s *Server
}

var _ a2asrv.CallInterceptor = (*interceptor)(nil)

// Before implements a2asrv.CallInterceptor.
func (i *interceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	sc, ok := scopeFrom(ctx)
	if !ok {
		return ctx, nil, a2a.ErrUnauthenticated
	}
	cc.User = a2asrv.NewAuthenticatedUser(sc.caller, nil)
	ctx = withPeerSecrets(ctx, req.Payload)
	i.s.emit(ctx, beamclaw.EventA2ARequest, slog.String("method", sc.method), slog.String("path", sc.path),
		slog.String("rpc_method", cc.Method()), slog.String("agent", sc.agent), slog.String("caller", sc.caller))
	if id := taskOf(req.Payload); id != "" {
		rec, err := i.s.tasks.mine(ctx, id)
		if err != nil {
			return ctx, nil, publicError(err)
		}
		if _, cancel := req.Payload.(*a2a.CancelTaskRequest); cancel {
			if task, done := i.s.cancelElsewhere(ctx, rec); done {
				return ctx, task, nil // canceled where it ran
			}
		}
	}
	if err := checkRole(req.Payload); err != nil {
		return ctx, nil, err
	}
	if err := i.checkPush(ctx, req.Payload); err != nil {
		return ctx, nil, err
	}
	if early(cc.Method(), req.Payload) {
		ctx = withEarly(ctx)
	}
	return ctx, nil, nil
}

// After implements a2asrv.CallInterceptor.
func (i *interceptor) After(ctx context.Context, _ *a2asrv.CallContext, resp *a2asrv.Response) error {
	if resp.Err != nil {
		if pub := publicError(resp.Err); pub != resp.Err {
			i.s.log.LogAttrs(ctx, slog.LevelWarn, "a2a call failed", slog.String("err", resp.Err.Error()))
			resp.Err = pub
		}
		resp.Err = scrubPeerError(ctx, resp.Err)
	}
	return nil
}

// checkRole refuses a client's message in the agent's role: what a
// client sends is the user's side of the conversation, never words put
// in the agent's mouth.
func checkRole(payload any) error {
	p, ok := payload.(*a2a.SendMessageRequest)
	if !ok || p.Message == nil || p.Message.Role != a2a.MessageRoleAgent {
		return nil
	}
	return a2a.NewError(a2a.ErrInvalidParams, `a client's message must have role "user": role "agent" is the answering agent's`)
}

// checkPush refuses a message whose push config the store would refuse,
// before the SDK's executor setup, which would put the config (its token
// with it) in its error and its log line.
func (i *interceptor) checkPush(ctx context.Context, payload any) error {
	p, ok := payload.(*a2a.SendMessageRequest)
	if !ok || p.Config == nil || p.Config.PushConfig == nil || i.s.push == nil {
		return nil
	}
	return i.s.push.checkURL(ctx, p.Config.PushConfig.URL)
}

// taskOf is the existing task a request names ("" for none).
func taskOf(payload any) a2a.TaskID {
	switch p := payload.(type) {
	case *a2a.SubscribeToTaskRequest:
		return p.ID
	case *a2a.CancelTaskRequest:
		return p.ID
	case *a2a.GetTaskPushConfigRequest:
		return p.TaskID
	case *a2a.ListTaskPushConfigRequest:
		return p.TaskID
	case *a2a.DeleteTaskPushConfigRequest:
		return p.TaskID
	case *a2a.PushConfig:
		return p.TaskID
	case *a2a.SendMessageRequest:
		if p.Message != nil {
			return p.Message.TaskID
		}
	}
	return ""
}

// early reports whether the call tells the caller about its task before
// the task ends: then the task is on disk before the first event leaves.
func early(method string, payload any) bool {
	if method == "SendStreamingMessage" {
		return true
	}
	p, ok := payload.(*a2a.SendMessageRequest)
	return ok && p.Config != nil && (p.Config.ReturnImmediately || p.Config.PushConfig != nil)
}

// sentinels are the A2A errors a peer may be told as they are.
var sentinels = []error{
	a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
	a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrPushNotificationNotSupported,
	a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType, a2a.ErrExtendedCardNotConfigured,
	a2a.ErrExtensionSupportRequired, a2a.ErrVersionNotSupported, a2a.ErrUnauthenticated, a2a.ErrUnauthorized,
}

// publicError maps err to what a peer reads: a beamclaw error by its Kind
// with its user message; an SDK error by its A2A code (the SDK writes
// those messages itself); anything else as an internal error, no detail.
func publicError(err error) error {
	var be *beamclaw.Error
	if errors.As(err, &be) {
		return a2a.NewError(kindError(be.Kind), beamclaw.UserMessage(err))
	}
	var ae *a2a.Error
	if errors.As(err, &ae) && ae.Message != "" {
		return err
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return err
		}
	}
	return a2a.NewError(a2a.ErrInternalError, "internal error")
}

// kindError is the A2A error of a beamclaw Kind.
func kindError(k beamclaw.Kind) error {
	switch k {
	case beamclaw.KindInvalid, beamclaw.KindTooLarge, beamclaw.KindNotFound:
		return a2a.ErrInvalidParams
	case beamclaw.KindConflict:
		return a2a.ErrInvalidRequest
	case beamclaw.KindUnauthorized:
		return a2a.ErrUnauthenticated
	case beamclaw.KindForbidden:
		return a2a.ErrUnauthorized
	}
	return a2a.ErrInternalError
}
