package telegram

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// redactedToken replaces the bot token wherever it would appear.
const redactedToken = "<token>"

// redactor removes the bot token (raw and URL-escaped) from text. Bot API
// URLs carry the token, so net/http errors do too.
type redactor struct{ forms []string }

func newRedactor(token string) redactor {
	if token == "" {
		return redactor{}
	}
	forms := []string{token}
	if esc := url.PathEscape(token); esc != token {
		forms = append(forms, esc)
	}
	if esc := url.QueryEscape(token); esc != token && esc != forms[len(forms)-1] {
		forms = append(forms, esc)
	}
	return redactor{forms: forms}
}

func (r redactor) String(s string) string {
	for _, f := range r.forms {
		s = strings.ReplaceAll(s, f, redactedToken)
	}
	return s
}

// Err wraps err so that its message never shows the token; errors.Is and
// errors.As still see the cause.
func (r redactor) Err(err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactHandler is a slog.Handler that scrubs the token from the message
// and every attribute before passing a record on.
type redactHandler struct {
	inner slog.Handler
	r     redactor
}

func (h redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return redactHandler{inner: h.inner.WithAttrs(clean), r: h.r}
}

func (h redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{inner: h.inner.WithGroup(name), r: h.r}
}

func (h redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, ga := range g {
			clean[i] = h.attr(ga)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.r.String(err.Error()))
		}
		return slog.String(a.Key, h.r.String(fmt.Sprint(v.Any())))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
