package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// wsSession is who a connection talks as, fixed by its last hello.
type wsSession struct {
	id, agent, user string
	account         string // the channel's own account ("ws:<user>"), before links and BEAMCLAW_USER
	linked          bool   // account is linked to the terminal's (local:) account by beamclaw users link
	channel         beamclaw.Channel
	resumed         bool // id was chosen by a resume frame
}

const maxUserLen = 128

// handle decodes and answers one client frame. A bad frame gets an error
// frame; the connection stays open.
func (c *wsConn) handle(ctx context.Context, data []byte) {
	var f protocol.ClientFrame
	if err := json.Unmarshal(data, &f); err != nil {
		c.sendError("", protocol.CodeBadFrame, "malformed frame: "+frameProblem(err))
		return
	}
	if f.Type == protocol.FramePing {
		c.enqueue(protocol.ServerFrame{Type: protocol.FramePong})
		return
	}
	if f.Type == protocol.FrameHello {
		c.hello(ctx, f)
		return
	}
	if c.sess == nil {
		if knownClientFrame(f.Type) {
			c.sendError("", protocol.CodeNoHello, "send a hello frame first")
			return
		}
		c.sendError("", protocol.CodeBadFrame, "unknown frame type "+wsQuote(f.Type))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, c.w.opts.OpTimeout)
	defer cancel()
	switch f.Type {
	case protocol.FrameMessage:
		c.message(ctx, f)
	case protocol.FrameApprove:
		c.approve(ctx, f)
	case protocol.FrameAnswer:
		c.answer(ctx, f)
	case protocol.FrameReset:
		c.reset(ctx)
	case protocol.FrameHistory:
		c.history()
	case protocol.FrameContext:
		c.contextGauge(ctx)
	case protocol.FrameSessions:
		c.sessions()
	case protocol.FrameResume:
		c.resume(f)
	case protocol.FrameLink:
		c.link(ctx, f)
	default:
		c.sendError("", protocol.CodeBadFrame, "unknown frame type "+wsQuote(f.Type))
	}
}

func knownClientFrame(t string) bool {
	switch t {
	case protocol.FrameMessage, protocol.FrameApprove, protocol.FrameAnswer, protocol.FrameReset,
		protocol.FrameHistory, protocol.FrameContext, protocol.FrameSessions, protocol.FrameResume, protocol.FrameLink:
		return true
	}
	return false
}

func (c *wsConn) hello(_ context.Context, f protocol.ClientFrame) {
	if f.Protocol != 0 && f.Protocol != protocol.Version {
		c.sendError("", protocol.CodeBadProtocol, "unsupported protocol version; this server speaks 1")
		return
	}
	o := c.w.opts
	agent := strings.TrimSpace(f.Agent)
	if agent == "" {
		agent = o.DefaultAgent
	}
	if o.KnownAgent != nil && !o.KnownAgent(agent) {
		c.sendError("", protocol.CodeNotFound, "no such agent "+wsQuote(agent))
		return
	}
	user := strings.TrimSpace(f.User)
	if user == "" {
		user = o.DefaultUser
	}
	if len(user) > maxUserLen || strings.IndexFunc(user, unicode.IsControl) >= 0 {
		c.sendError("", protocol.CodeBadFrame, "user must be at most 128 printable characters")
		return
	}
	prefix, channel := "ws", beamclaw.ChannelWS
	if o.Local && beamclaw.Channel(f.Channel) == beamclaw.ChannelTUI {
		if o.TUIDisabled {
			c.sendError("", protocol.CodeForbidden, "the terminal channel is disabled (gateway.channels.tui.enabled: false)")
			return
		}
		prefix, channel = "local", beamclaw.ChannelTUI
	}
	s := &wsSession{agent: agent, user: o.UserID(prefix, user), account: prefix + ":" + user, channel: channel}
	s.linked = o.Links != nil && slices.ContainsFunc(o.Links.Accounts(s.account), func(a string) bool {
		return strings.HasPrefix(a, "local:") // linked to the terminal's account: proven to be its user
	})
	s.id = o.Sessions.SessionID(beamclaw.Inbound{Channel: channel, UserID: s.user, AgentID: agent})
	hist, err := o.Sessions.History(s.id)
	if err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
		c.sendErr("", err)
		return
	}
	c.sess = s
	c.who.Store(s)
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameReady, SessionID: s.id, Agent: agent,
		History: WireHistory(hist)})
	if o.Missed != nil {
		for _, f := range o.Missed(s.user) {
			c.enqueue(f)
		}
	}
	c.rejoin()
}

// rejoin re-asks, after ready, the approvals the person's session waits
// for on this channel kind (asked on a connection that has gone), and
// streams the run in flight's events here from now on.
func (c *wsConn) rejoin() {
	if c.rejoined {
		return
	}
	c.rejoined = true
	route := &wsRoute{c: c, ready: true}
	for _, ev := range c.w.opts.Sessions.Rejoin(c.sess.id, c.origin(), route) {
		if f, ok := wsRunFrame(ev); ok {
			c.enqueue(f)
		}
	}
}

func (c *wsConn) message(ctx context.Context, f protocol.ClientFrame) {
	if f.Content == "" && len(f.Attachments) == 0 {
		c.sendError(f.ID, protocol.CodeBadFrame, "a message needs content or attachments")
		return
	}
	digest := messageDigest(f)
	if f.ID != "" {
		if runID, ok := c.dedup.get(f.ID + "\x00" + digest); ok {
			c.enqueue(protocol.ServerFrame{Type: protocol.FrameAck, ID: f.ID, RunID: runID})
			return
		}
	}
	s := c.sess
	c.rejoined = true // its runs' frames come on their own routes
	route := &wsRoute{c: c}
	var resumed string
	if s.resumed {
		resumed = s.id
	}
	runID, err := c.w.opts.Sessions.Send(ctx, beamclaw.Inbound{
		Channel: s.channel, UserID: s.user, AgentID: s.agent, MessageID: f.ID, MessageDigest: digest,
		Origin: c.origin(), Session: resumed,
		Content: f.Content, Attachments: wsAttachments(f.Attachments),
		Autonomy: c.w.opts.Autonomy, Route: route,
	})
	if errors.Is(err, beamclaw.ErrMessageReused) {
		c.sendError(f.ID, protocol.CodeIDReused, "message id "+wsQuote(f.ID)+
			" was already used for a different message; send a new id for a new message")
		return
	}
	if err != nil && !(beamclaw.KindOf(err) == beamclaw.KindConflict && runID != "") {
		c.sendErr(f.ID, err)
		return
	}
	if f.ID != "" {
		c.dedup.put(f.ID+"\x00"+digest, runID)
	}
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameAck, ID: f.ID, RunID: runID})
	route.acked()
}

func (c *wsConn) approve(ctx context.Context, f protocol.ClientFrame) {
	d, ok := beamclaw.ParseDecision(strings.ToLower(f.Decision))
	if !ok || f.ApprovalID == "" {
		c.sendError("", protocol.CodeBadFrame, "approve needs approval_id and decision allow, always or deny")
		return
	}
	if err := c.w.opts.Sessions.Decide(ctx, c.sess.id, f.ApprovalID, c.origin(), d); err != nil {
		c.sendErr("", err)
	}
}

func (c *wsConn) reset(ctx context.Context) {
	err := c.w.opts.Sessions.Reset(ctx, c.sess.id)
	if err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
		c.sendErr("", err)
		return
	}
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameResetDone, SessionID: c.sess.id})
}

func (c *wsConn) history() {
	hist, err := c.w.opts.Sessions.History(c.sess.id)
	if err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
		c.sendErr("", err)
		return
	}
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameHistory, SessionID: c.sess.id, Messages: WireHistory(hist)})
}

func (c *wsConn) contextGauge(ctx context.Context) {
	used, window, n, err := c.w.opts.Sessions.Context(ctx, c.sess.id)
	if err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
		c.sendErr("", err)
		return
	}
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameContext, SessionID: c.sess.id,
		UsedTokens: used, Window: window, MessageCount: n})
}

func (c *wsConn) sendError(id, code, msg string) {
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameError, ID: id, Code: code, Message: msg})
}

// sendErr maps a session error to an error frame once, here at the edge;
// the message is the user-safe one.
func (c *wsConn) sendErr(id string, err error) {
	c.sendError(id, wsCode(beamclaw.KindOf(err)), beamclaw.UserMessage(err))
}

func wsCode(k beamclaw.Kind) string {
	switch k {
	case beamclaw.KindInvalid:
		return protocol.CodeInvalid
	case beamclaw.KindNotFound:
		return protocol.CodeNotFound
	case beamclaw.KindForbidden, beamclaw.KindUnauthorized:
		return protocol.CodeForbidden
	case beamclaw.KindConflict:
		return protocol.CodeConflict
	case beamclaw.KindRateLimited:
		return protocol.CodeRateLimited
	case beamclaw.KindUnavailable, beamclaw.KindStorage:
		return protocol.CodeUnavailable
	case beamclaw.KindTimeout:
		return protocol.CodeTimeout
	case beamclaw.KindTooLarge:
		return protocol.CodeTooLarge
	}
	return protocol.CodeInternal
}

func wsQuote(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return `"` + strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s) + `"`
}

// sessions answers with the user's sessions with the agent.
func (c *wsConn) sessions() {
	sums, err := c.userSessions()
	if err != nil {
		c.sendErr("", err)
		return
	}
	out := make([]protocol.SessionInfo, 0, len(sums))
	for _, s := range sums {
		out = append(out, WireSession(s))
	}
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameSessions, SessionID: c.sess.id, Sessions: out})
}

// resume moves the connection to another of the user's sessions with the
// agent (a unique prefix of its id will do) and answers with ready.
func (c *wsConn) resume(f protocol.ClientFrame) {
	want := strings.TrimPrefix(f.Session, "session-")
	if want == "" {
		c.sendError("", protocol.CodeBadFrame, "resume needs a session id")
		return
	}
	sums, err := c.userSessions()
	if err != nil {
		c.sendErr("", err)
		return
	}
	var found []string
	for _, s := range sums {
		if strings.HasPrefix(strings.TrimPrefix(s.ID, "session-"), want) {
			found = append(found, s.ID)
		}
	}
	switch len(found) {
	case 0:
		c.sendError("", protocol.CodeNotFound, "no session "+wsQuote(f.Session)+" of yours with this agent (send a sessions frame to list them)")
		return
	case 1:
	default:
		c.sendError("", protocol.CodeBadFrame, "session "+wsQuote(f.Session)+" is ambiguous: give more of its id")
		return
	}
	hist, err := c.w.opts.Sessions.History(found[0])
	if err != nil {
		c.sendErr("", err)
		return
	}
	s := *c.sess
	s.id, s.resumed = found[0], true
	c.sess = &s
	c.who.Store(&s)
	c.enqueue(protocol.ServerFrame{Type: protocol.FrameReady, SessionID: s.id, Agent: s.agent, History: WireHistory(hist)})
}

// WireSession is a session summary as the wire carries it.
func WireSession(s beamclaw.SessionSummary) protocol.SessionInfo {
	return protocol.SessionInfo{ID: s.ID, User: s.UserID, Agent: s.AgentID, Channel: string(s.Channel), Thread: s.Thread,
		Title: s.Title, Messages: s.Messages, Created: s.Created, Updated: s.Updated, Archived: s.Archived, Live: s.Live,
		State: s.State()}
}

// frameProblem says what is wrong with a frame that does not decode: not
// JSON, not an object, a field of the wrong type, an attachment's data
// that is not base64.
func frameProblem(err error) string {
	var b64 base64.CorruptInputError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &b64):
		return fmt.Sprintf("attachments[].data is not valid standard base64 (at byte %d)", int64(b64))
	case errors.As(err, &te) && strings.HasSuffix(te.Field, ".data") && te.Type.String() == "[]uint8":
		return "attachments[].data must be a base64 string, not " + article(te.Value)
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("%s must be %s, not %s", strings.TrimPrefix(te.Field, "WSAttachment."), jsonKind(te.Type.String()), article(te.Value))
	case errors.As(err, &te):
		return "not a JSON object (" + article(te.Value) + ")"
	}
	return "not a JSON object"
}
