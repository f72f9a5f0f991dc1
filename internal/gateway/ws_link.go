package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/people"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// WSLinks makes and redeems the codes that link a person's accounts
// (*people.Links).
type WSLinks interface {
	Issue(ctx context.Context, account string) (code string, expires time.Time, err error)
	Redeem(ctx context.Context, account, code string) (person string, err error)
	// Accounts lists every account of account's person.
	Accounts(account string) []string
}

// link answers a link frame: without a code, a code for this connection's
// account to type on the person's other account; with one, links this
// account to the account that showed it. A hello afterwards continues as
// the person.
func (c *wsConn) link(ctx context.Context, f protocol.ClientFrame) {
	links := c.w.opts.Links
	if links == nil {
		c.sendError("", protocol.CodeUnavailable, "linking accounts is not available here")
		return
	}
	account := c.sess.account
	if f.Code == "" {
		code, exp, err := links.Issue(ctx, account)
		if err != nil {
			c.sendError("", protocol.CodeUnavailable, "no link code: "+err.Error())
			return
		}
		c.enqueue(protocol.ServerFrame{Type: protocol.FrameLinkCode, Text: code,
			Message: "send /link " + code + " from your other account (Telegram, the terminal: beamclaw users link " + code +
				") before " + exp.UTC().Format("15:04") + " UTC"})
		return
	}
	person, err := links.Redeem(ctx, account, f.Code)
	switch {
	case errors.Is(err, people.ErrTooManyTries):
		c.sendError("", protocol.CodeRateLimited, err.Error())
	case errors.Is(err, people.ErrBadCode), errors.Is(err, people.ErrSameAccount):
		c.sendError("", protocol.CodeInvalid, err.Error())
	case err != nil:
		c.sendError("", protocol.CodeUnavailable, "linking failed: "+err.Error())
	default:
		c.w.log.Info("accounts linked", "account", account, "user", person)
		c.enqueue(protocol.ServerFrame{Type: protocol.FrameLinked, User: person,
			Message: account + " is now linked to " + person + "; send hello again to continue as them"})
	}
}

// userSessions lists the sessions sessions and resume may reach: the
// user's with the agent. A remote connection whose account is not linked
// to the terminal's reaches none of the terminal's (a local channel's):
// BEAMCLAW_USER makes a remote client the owner's user, but only a link
// proves it is them.
func (c *wsConn) userSessions() ([]beamclaw.SessionSummary, error) {
	sums, err := c.w.opts.Sessions.UserSessions(c.sess.user, c.sess.agent)
	if err != nil || c.w.opts.Local || c.sess.linked {
		return sums, err
	}
	out := sums[:0:0]
	for _, s := range sums {
		if s.Channel.Remote() {
			out = append(out, s)
		}
	}
	return out, nil
}
