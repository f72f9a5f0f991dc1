package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"
	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// maxCodeBytes caps a script.
const maxCodeBytes = 1 << 20

// Manager owns the sandbox containers of one daemon: it creates them on
// first use per scope, runs scripts in them, serves their bridges, and
// reaps what is left behind. Build it with New, add Services to the
// supervision tree, and Close it after the tree has stopped.
type Manager struct {
	opts     Options
	limits   limits
	engine   *client.Client
	log      *slog.Logger
	clk      clock.Clock
	policy   Policy
	detector *detector // nil when PII is off
	env      map[string]string
	proc     procFS
	daemon   daemonID
	instance string
	reg      *registry
	reaper   *reaper
	services []suture.Service

	tokMu      sync.Mutex
	tokenizers map[string]*Tokenizer // by session

	reapMu sync.Mutex    // one sweep at a time
	sweep  chan struct{} // SweepSoon's request to the reaper
}

// New validates opts and returns a Manager. It does not contact Docker
// (Check does); the CLI may use Status, List and Kill without Services.
func New(opts Options) (*Manager, error) {
	const op = "sandbox.New"
	opts = opts.withDefaults()
	l, err := opts.validate()
	if err != nil {
		return nil, beamclaw.E(op, beamclaw.KindInvalid, "invalid sandbox options: "+err.Error(), err)
	}
	engine, err := newEngine(opts.DockerHost)
	if err != nil {
		return nil, beamclaw.E(op, beamclaw.KindUnavailable, "cannot set up the Docker client", err)
	}
	pol, _ := newPolicy(opts.Policy) // validated above
	m := &Manager{
		opts:       opts,
		limits:     l,
		engine:     engine,
		log:        opts.Logger,
		clk:        opts.Clock,
		policy:     pol,
		env:        runEnv(opts),
		proc:       procFS{root: "/proc"},
		instance:   randomHex(8),
		tokenizers: map[string]*Tokenizer{},
		sweep:      make(chan struct{}, 1),
	}
	if opts.PII.Enabled {
		m.detector, _ = newDetector(opts.PII.Patterns) // validated above
	}
	m.daemon = m.proc.self()
	m.reg = newRegistry(m)
	m.reaper = &reaper{m: m}
	g := supervise.GuardOptions{Clock: m.clk}
	m.services = []suture.Service{supervise.Guard(m.reg, g), supervise.Guard(m.reaper, g)}
	return m, nil
}

// Close releases the engine client. Call it after the services stopped.
func (m *Manager) Close() error { return m.engine.Close() }

// Services returns the registry (a supervisor with one service per live
// container; stopping it removes every container) and the reaper, each
// wrapped by supervise.Guard, to add once to the daemon's tree. Run
// waits until they run.
func (m *Manager) Services() []suture.Service { return m.services }

// Check tells whether sandboxed execution can work here, as a user-facing
// error: the engine answers, the image is built and current, the runtime
// exists, and the bridge directory can be made. The daemon registers the
// exec tool only when it passes; doctor prints its message.
func (m *Manager) Check(ctx context.Context) error {
	const op = "sandbox.Check"
	if err := pingEngine(ctx, m.engine, op); err != nil {
		return err
	}
	_, labels, ok, err := imageLabels(ctx, m.engine, m.opts.Image)
	if err != nil {
		return beamclaw.E(op, beamclaw.KindUnavailable, "cannot inspect the sandbox image", err)
	}
	if !ok {
		return beamclaw.E(op, beamclaw.KindUnavailable, fmt.Sprintf(
			"the sandbox image %s is not built: run `beamclaw sandbox build`", m.opts.Image), nil)
	}
	if labels[LabelContent] != ImageContentHash() {
		return beamclaw.E(op, beamclaw.KindUnavailable, fmt.Sprintf(
			"the sandbox image %s was built for another version of beamclaw: run `beamclaw sandbox build`", m.opts.Image), nil)
	}
	if err := checkRuntime(ctx, m.engine, m.opts.Runtime, op); err != nil {
		return err
	}
	if err := ensureDir(m.opts.BridgeSocketDir); err != nil {
		return beamclaw.E(op, beamclaw.KindUnavailable, fmt.Sprintf(
			"cannot create the bridge directory %s", m.opts.BridgeSocketDir), err)
	}
	return nil
}

// scopeKey names the container a caller's runs share.
func (m *Manager) scopeKey(c Caller) string {
	switch m.opts.Scope {
	case ScopeAgent:
		return "agent:" + c.AgentID
	case ScopeShared:
		return "shared"
	}
	return "session:" + c.SessionID
}

// tokenizer returns the session's tokenizer, or nil when PII is off.
func (m *Manager) tokenizer(session string) *Tokenizer {
	if m.detector == nil {
		return nil
	}
	m.tokMu.Lock()
	defer m.tokMu.Unlock()
	t := m.tokenizers[session]
	if t == nil {
		t = newTokenizer(m.detector)
		m.tokenizers[session] = t
	}
	return t
}

// Tokenizer returns the PII tokenizer of a session (nil when PII is off),
// for a caller that must restore tokens in text shown to the user.
func (m *Manager) Tokenizer(session string) *Tokenizer { return m.tokenizer(session) }

// dropTokenizers forgets the tokenizers of sessions that are gone.
func (m *Manager) dropTokenizers() {
	m.tokMu.Lock()
	defer m.tokMu.Unlock()
	for s := range m.tokenizers {
		if !m.opts.SessionAlive(s) {
			delete(m.tokenizers, s)
		}
	}
}

// Run runs one script for c in c's scope container (starting it on first
// use) and returns its output. A script that fails, times out or is
// killed is not an error: see Result. Errors are the sandbox's own
// (invalid script, engine down, container lost) and carry a user-facing
// message.
func (m *Manager) Run(ctx context.Context, c Caller, s Script) (Result, error) {
	const op = "sandbox.Run"
	switch {
	case s.Language != LangPython && s.Language != LangSh:
		return Result{}, beamclaw.E(op, beamclaw.KindInvalid, `language must be "python" or "sh"`, nil)
	case strings.TrimSpace(s.Code) == "":
		return Result{}, beamclaw.E(op, beamclaw.KindInvalid, "code is empty", nil)
	case len(s.Code) > maxCodeBytes:
		return Result{}, beamclaw.E(op, beamclaw.KindTooLarge, "code is larger than 1 MiB", nil)
	}
	timeout := m.opts.Timeout
	if s.Timeout > 0 && s.Timeout < timeout {
		timeout = s.Timeout
	}
	tok := m.tokenizer(c.SessionID)
	code := s.Code
	if tok != nil && m.opts.PII.TokenizeScripts {
		code = tok.Tokenize(code)
	}
	for attempt := 0; ; attempt++ {
		res, err := m.runOnce(ctx, c, tok, s.Language, code, timeout)
		if errors.Is(err, errBoxGone) && attempt == 0 && ctx.Err() == nil {
			continue // the container died before the script was sent: one fresh try
		}
		if err != nil {
			return res, err
		}
		return m.finish(res, tok), nil
	}
}

func (m *Manager) runOnce(ctx context.Context, c Caller, tok *Tokenizer, lang, code string, timeout time.Duration) (Result, error) {
	b, err := m.reg.acquire(ctx, c)
	if err != nil {
		return Result{}, err
	}
	defer m.reg.release(b)
	tools, toolsErr := m.listTools(ctx, c)
	if err := b.writeTools(m.allowed(tools)); err != nil {
		m.log.Warn("sandbox: cannot write /tools", "container", b.name, "err", err)
	}
	return b.run(ctx, &run{caller: c, tok: tok, tools: tools, toolsErr: toolsErr,
		language: lang, code: code, timeout: timeout})
}

// finish scrubs the output (and tokenizes it when results are
// tokenized) before it goes back to the model.
func (m *Manager) finish(r Result, tok *Tokenizer) Result {
	clean := func(s string) string {
		s = m.opts.Scrub(s)
		if tok != nil && m.opts.PII.TokenizeResults {
			s = tok.Tokenize(s)
		}
		return s
	}
	r.Stdout, r.Stderr = clean(r.Stdout), clean(r.Stderr)
	return r
}

// listTools lists c's tools (all of them: the bridge explains a denial).
func (m *Manager) listTools(ctx context.Context, c Caller) ([]ToolInfo, error) {
	if m.opts.Tools == nil {
		return nil, nil
	}
	all, err := m.opts.Tools.List(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	return all, nil
}

// allowed keeps the tools the sandbox policy lets scripts use.
func (m *Manager) allowed(all []ToolInfo) []ToolInfo {
	out := make([]ToolInfo, 0, len(all))
	for _, t := range all {
		if ok, _ := m.policy.Allows(t); ok {
			out = append(out, t)
		}
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on Linux
	return hex.EncodeToString(b)
}
