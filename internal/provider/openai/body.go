package openai

import (
	"context"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
)

// maxPooledBody is the largest request body kept for reuse (a long
// conversation's body is freed instead of pinning its size).
const maxPooledBody = 256 << 10

// bodyPool keeps request bodies: a chat body (system prompt, tools,
// history; ~15 KB for a default agent) is encoded per model call and was
// the largest allocation of a turn.
// It pools only over its own net/http transport, whose trace hooks say
// when a body was written; over a client given in Options it never reuses
// a body.
type bodyPool struct {
	p   sync.Pool
	off bool
}

// body is one model call's encoded request, shared by its attempts.
//
// The buffer goes back to the pool only when nothing can read it any
// more: net/http may still be writing a body after Do returned (a server
// that answers before reading the whole request), so every connection a
// request is written on holds a reference from GotConn until
// WroteRequest. A reference that is never dropped (a connection that
// failed before writing) only means this buffer is left to the garbage
// collector instead of being reused.
//
// The request body itself stays a *bytes.Reader: net/http then writes
// headers and body in one write, where any other reader makes it flush
// the headers first and allocate a copy buffer for the body.
type body struct {
	b    []byte
	refs atomic.Int32
	pool *bodyPool
}

// get returns an empty body with one reference, the caller's.
func (bp *bodyPool) get() *body {
	b, _ := bp.p.Get().(*body)
	if b == nil {
		b = &body{pool: bp}
	}
	b.refs.Store(1)
	return b
}

// release drops one reference; the last returns the buffer to the pool.
func (b *body) release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	if b.pool.off {
		return
	}
	if cap(b.b) > maxPooledBody {
		b.b = nil
	}
	b.b = b.b[:0]
	b.pool.p.Put(b)
}

// traced returns ctx with a trace holding a reference on b for every
// connection the request is written on, until it is written.
func (b *body) traced(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:      func(httptrace.GotConnInfo) { b.refs.Add(1) },
		WroteRequest: func(httptrace.WroteRequestInfo) { b.release() },
	})
}
