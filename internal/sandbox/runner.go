package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// killGrace is how long the host waits past a run's timeout (or after a
// kill request) for the runner's report before giving up on the container.
const killGrace = 5 * time.Second

// writeTimeout bounds one write to the runner.
const writeTimeout = 10 * time.Second

// errBoxDied: the container stopped while a script ran.
var errBoxDied = errors.New("the sandbox container stopped during the run")

// runRequest is what the runner receives (docker/sandbox/runner.py).
type runRequest struct {
	Op        string            `json:"op"`
	ID        int64             `json:"id"`
	Language  string            `json:"language,omitempty"`
	Code      string            `json:"code,omitempty"`
	TimeoutMS int64             `json:"timeout_ms,omitempty"`
	MaxOutput int64             `json:"max_output,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	// Group names the caller's session (hashed): runs of one session share
	// a group and their files; other sessions' runs are other groups.
	Group string `json:"group,omitempty"`
}

// frame is one line from the runner.
type frame struct {
	ID       int64  `json:"id"`
	O        []byte `json:"o"` // base64 in JSON
	E        []byte `json:"e"`
	Exit     *int   `json:"exit"`
	Sig      int    `json:"sig"`
	TimedOut bool   `json:"timed_out"`
	Killed   bool   `json:"killed"`
	OOM      bool   `json:"oom"`
	DroppedO int64  `json:"dropped_o"`
	DroppedE int64  `json:"dropped_e"`
	MS       int64  `json:"ms"`
	Error    string `json:"error"`
}

// run is one script in flight.
type run struct {
	caller   Caller
	tok      *Tokenizer
	tools    []ToolInfo // all of the caller's tools (the bridge applies the policy)
	toolsErr error
	language string
	code     string
	timeout  time.Duration

	id    int64
	token string
	ctx   context.Context
	out   capBuffer // guarded by box.mu
	errb  capBuffer
	done  chan struct{}
	once  sync.Once
	fin   frame
	err   error
}

func (r *run) finish(f frame, err error) {
	r.once.Do(func() {
		r.fin, r.err = f, err
		close(r.done)
	})
}

// run sends r to the runner and waits for its report.
func (b *box) run(ctx context.Context, r *run) (Result, error) {
	const op = "sandbox.Run"
	m := b.m
	r.ctx, r.done, r.token = ctx, make(chan struct{}), randomHex(16)
	r.out.max, r.errb.max = m.opts.MaxOutputBytes, m.opts.MaxOutputBytes
	b.mu.Lock()
	select {
	case <-b.dead:
		b.mu.Unlock()
		return Result{}, errBoxGone
	default:
	}
	b.nextID++
	r.id = b.nextID
	b.runs[r.id], b.tokens[r.token] = r, r
	b.mu.Unlock()
	defer b.unregister(r)

	env := maps.Clone(m.env)
	env["BEAMCLAW_RUN_TOKEN"] = r.token
	cwd := "/tmp"
	if b.workspace != "" {
		cwd = workspaceDir
	}
	start := m.clk.Now()
	if err := b.send(runRequest{Op: "run", ID: r.id, Language: r.language, Code: r.code,
		TimeoutMS: r.timeout.Milliseconds(), MaxOutput: m.opts.MaxOutputBytes, Env: env, Cwd: cwd,
		Group: hashStrings("group", r.caller.SessionID)[:16]}); err != nil {
		b.abort()
		return Result{}, errBoxGone
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		b.stop(r)
		return b.result(r, start), fmt.Errorf("sandbox run canceled, its process group was killed: %w", ctx.Err())
	case <-m.clk.After(r.timeout + killGrace):
		if !b.stop(r) {
			return Result{}, beamclaw.E(op, beamclaw.KindTimeout,
				"the sandbox did not stop the script at its timeout; its container was removed", nil)
		}
	}
	switch {
	case errors.Is(r.err, errBoxDied):
		return Result{}, beamclaw.E(op, beamclaw.KindUnavailable, "the sandbox container stopped during the run", r.err)
	case r.fin.Error != "":
		return Result{}, beamclaw.E(op, beamclaw.KindUnavailable, "the script could not start in the sandbox: "+r.fin.Error, nil)
	}
	return b.result(r, start), nil
}

// stop asks the runner to kill r's process group and waits for its
// report; without one, the container is given up (aborted). It reports
// whether the runner answered.
func (b *box) stop(r *run) bool {
	if err := b.send(runRequest{Op: "kill", ID: r.id}); err == nil {
		select {
		case <-r.done:
			return true
		case <-b.m.clk.After(killGrace):
		}
	}
	b.abort()
	return false
}

func (b *box) unregister(r *run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.runs, r.id)
	delete(b.tokens, r.token)
}

// result assembles r's Result from its buffers and final frame.
func (b *box) result(r *run, start time.Time) Result {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := r.fin
	res := Result{
		Stdout: r.out.String(f.DroppedO), Stderr: r.errb.String(f.DroppedE),
		Signal: f.Sig, TimedOut: f.TimedOut, Killed: f.Killed, OOMKilled: f.OOM,
		Truncated: f.DroppedO+f.DroppedE+r.out.dropped+r.errb.dropped > 0,
		Duration:  time.Duration(f.MS) * time.Millisecond, Container: b.name,
	}
	if f.Exit != nil {
		res.ExitCode = *f.Exit
	}
	if f.Exit == nil {
		res.Duration, res.Killed = b.m.clk.Now().Sub(start), true
	}
	return res
}

// send writes one request line to the runner.
func (b *box) send(req runRequest) error {
	line, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode runner request: %w", err)
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	_ = b.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err = b.conn.Write(append(line, '\n'))
	return err
}

// readFrames dispatches the runner's frames to their runs until the
// connection fails.
func (b *box) readFrames(rd *bufio.Reader) error {
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return err
		}
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			return fmt.Errorf("bad frame from the runner: %w", err)
		}
		b.mu.Lock()
		if r := b.runs[f.ID]; r != nil {
			switch {
			case f.O != nil:
				_, _ = r.out.Write(f.O)
			case f.E != nil:
				_, _ = r.errb.Write(f.E)
			case f.Exit != nil || f.Error != "":
				r.finish(f, nil)
			}
		}
		b.mu.Unlock()
	}
}
