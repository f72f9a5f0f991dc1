package beamclaw

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error so that each edge can map it once to its own
// answer (an HTTP status, a Telegram reply, a JSON-RPC code).
type Kind uint8

// Error kinds.
const (
	KindInternal     Kind = iota // a bug or an unexpected failure
	KindInvalid                  // bad input from the caller
	KindNotFound                 // no such agent, session, job, ...
	KindUnauthorized             // missing or wrong credentials
	KindForbidden                // not allowed by policy
	KindConflict                 // already exists, already running
	KindRateLimited              // too many requests
	KindUnavailable              // an upstream or subsystem is down
	KindTimeout                  // a deadline passed
	KindTooLarge                 // a body or value over its limit
	KindStorage                  // the local database cannot be written (disk full, I/O error)
	KindBudget                   // a usage budget is spent (core.budgets, action block)
)

var kindNames = [...]string{
	KindInternal:     "internal",
	KindInvalid:      "invalid",
	KindNotFound:     "not_found",
	KindUnauthorized: "unauthorized",
	KindForbidden:    "forbidden",
	KindConflict:     "conflict",
	KindRateLimited:  "rate_limited",
	KindUnavailable:  "unavailable",
	KindTimeout:      "timeout",
	KindTooLarge:     "too_large",
	KindStorage:      "storage",
	KindBudget:       "budget_exceeded",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is an error with an operation, a Kind and a message safe to show a
// user. Err, when set, is the cause (kept for logs and errors.Is/As).
type Error struct {
	Op   string // what was being done, e.g. "session.Send"
	Kind Kind
	Msg  string // user-facing, no internal detail
	Err  error
}

// E builds an *Error.
func E(op string, kind Kind, msg string, err error) *Error {
	return &Error{Op: op, Kind: kind, Msg: msg, Err: err}
}

func (e *Error) Error() string {
	switch {
	case e.Err != nil && e.Msg != "":
		return e.Op + ": " + e.Msg + ": " + e.Err.Error()
	case e.Err != nil:
		return e.Op + ": " + e.Err.Error()
	default:
		return e.Op + ": " + e.Msg
	}
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of the outermost *Error in err's chain, or
// KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// UserMessage returns the first user-facing message in err's chain, or a
// generic one: internal detail never reaches a user.
func UserMessage(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			break
		}
		if e.Msg != "" {
			return e.Msg
		}
		err = e.Err
	}
	return "internal error"
}

// RetryAfterOf is how long err says to wait before trying again (an
// upstream's Retry-After), or 0 when it does not say.
func RetryAfterOf(err error) time.Duration {
	var r interface{ RetryIn() time.Duration }
	if errors.As(err, &r) {
		return r.RetryIn()
	}
	return 0
}
