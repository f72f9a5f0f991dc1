package a2a

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// sweepEvery is how often finished tasks past their retention are deleted.
const sweepEvery = time.Hour

// Server is the A2A edge: its routes (Routes), and the service that keeps
// its tasks (Serve: orphaned runs, retention, shutdown).
type Server struct {
	opts    Options
	log     *slog.Logger
	clock   clock.Clock
	tasks   *TaskStore
	push    *pushStore
	runs    *runs
	handler a2asrv.RequestHandler
	tokens  *tokens
	// orphans are runs that ended with no execution relaying them.
	orphans chan *liveRun
}

// New builds the edge and fails the tasks a previous process left
// unfinished. It refuses to build without a token to check (Options.Closed).
func New(opts Options) (*Server, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	log := slog.New(peerScrubHandler{inner: o.Logger.Handler()}).With("component", "a2a")
	s := &Server{opts: o, log: log, clock: o.Clock,
		runs: &runs{m: map[a2a.TaskID]*liveRun{}}, tokens: newTokens(o.GatewayToken, o.Peers),
		orphans: make(chan *liveRun, 64)}
	if s.tasks, err = newTaskStore(o.DB, o.Node, o.Clock, s.emit); err != nil {
		return nil, err
	}
	s.tasks.elsewhere = o.TaskElsewhere
	if o.Node == "" { // in a cluster, Serve does it once there is a quorum
		if err := s.recover(context.Background(), nil); err != nil {
			return nil, err
		}
	}
	hopts := []a2asrv.RequestHandlerOption{
		a2asrv.WithTaskStore(s.tasks),
		a2asrv.WithLogger(s.log),
		a2asrv.WithCallInterceptors(&interceptor{s: s}),
		a2asrv.WithExtendedAgentCardProducer(a2asrv.ExtendedAgentCardProducerFn(s.extendedCard)),
		a2asrv.WithCapabilityChecks(s.capabilities()),
	}
	if o.Push {
		s.push = &pushStore{area: s.tasks.area, check: o.PushIPCheck, resolver: o.Resolver}
		hopts = append(hopts, a2asrv.WithPushNotifications(s.push, newPushSender(o.PushIPCheck, o.Resolver, s.log)))
	}
	s.handler = a2asrv.NewHandler(&executor{s: s}, hopts...)
	if o.SubscribeElsewhere != nil { // under the interceptors: they check the caller first
		ih, ok := s.handler.(*a2asrv.InterceptedHandler)
		if !ok {
			return nil, fmt.Errorf("a2a: the SDK's handler is a %T: a resubscription cannot be relayed from another node", s.handler)
		}
		ih.Handler = &relayHandler{RequestHandler: ih.Handler, s: s}
	}
	return s, nil
}

// capabilities are what the cards declare, and what the handler enforces.
func (s *Server) capabilities() *a2a.AgentCapabilities {
	return &a2a.AgentCapabilities{Streaming: true, PushNotifications: s.opts.Push, ExtendedAgentCard: true}
}

func (s *Server) String() string { return "a2a" }

// Serve finishes orphaned runs and deletes old tasks until ctx ends; then
// it ends every run still relayed, so no execution outlives the daemon.
func (s *Server) Serve(ctx context.Context) error {
	s.retain(ctx)
	tick := s.clock.After(sweepEvery)
	var orphaned <-chan time.Time // cluster mode: the tasks of nodes gone
	if s.opts.Node != "" {
		orphaned = s.clock.After(0)
	}
	for {
		select {
		case <-ctx.Done():
			s.stopRuns()
			return ctx.Err()
		case r := <-s.orphans:
			s.finishOrphan(ctx, r)
		case <-tick:
			s.retain(ctx)
			tick = s.clock.After(sweepEvery)
		case <-orphaned:
			var alive map[string]bool
			if s.opts.Alive != nil {
				alive = s.opts.Alive(ctx)
			}
			if !alive[s.opts.Node] {
				alive = nil // an answer without this node is no answer: judge none gone
			}
			if err := s.recover(ctx, alive); err != nil {
				s.log.LogAttrs(ctx, slog.LevelWarn, "a2a: unfinished tasks of gone nodes", slog.Any("err", err))
			}
			orphaned = s.clock.After(orphanEvery)
		}
	}
}

// orphanEvery is how often a node of a cluster looks for the unfinished
// tasks of nodes that stopped answering.
const orphanEvery = 30 * time.Second

// recover fails the unfinished tasks whose run is gone (recoverTasks).
func (s *Server) recover(ctx context.Context, alive map[string]bool) error {
	n, err := s.tasks.recoverTasks(alive)
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.LogAttrs(ctx, slog.LevelInfo, "a2a tasks whose run is gone marked failed", slog.Int("count", n))
	}
	return nil
}

// retain deletes the finished tasks older than the retention.
func (s *Server) retain(ctx context.Context) {
	n, err := s.tasks.sweep(s.clock.Now().Add(-s.opts.Retention))
	switch {
	case err != nil:
		s.log.LogAttrs(ctx, slog.LevelWarn, "a2a task retention", slog.Any("err", err))
	case n > 0:
		s.log.LogAttrs(ctx, slog.LevelInfo, "a2a tasks past their retention deleted", slog.Int("count", n))
	}
}

// stopRuns fails the runs still relayed when the daemon stops.
func (s *Server) stopRuns() {
	for _, r := range s.runs.all() {
		r.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, Text: "the agent's daemon is stopping; please retry later"})
	}
}

// orphaned hands a run that ended with no execution relaying it to Serve
// (or finishes it at once when Serve is behind).
func (s *Server) orphaned(r *liveRun) {
	select {
	case s.orphans <- r:
	default:
		s.finishOrphan(context.Background(), r)
	}
}

// finishOrphan writes the final state of a run that ended while its task
// waited for the peer (an approval timed out, say).
func (s *Server) finishOrphan(ctx context.Context, r *liveRun) {
	evs, ok := r.claim()
	if !ok {
		return
	}
	s.runs.remove(r)
	artifact, _ := r.artifactID()
	for range 5 { // the peer's answer may be racing us: retry on a conflict
		st, err := s.tasks.Get(ctx, r.task)
		if err != nil || st.Task.Status.State.Terminal() {
			return
		}
		if !settle(st.Task, evs, artifact, s.clock.Now()) {
			return
		}
		_, err = s.tasks.Update(ctx, &taskstore.UpdateRequest{Task: st.Task, PrevVersion: st.Version})
		if err == nil {
			return
		}
		s.log.LogAttrs(ctx, slog.LevelDebug, "a2a orphaned run", slog.String("task_id", string(r.task)), slog.Any("err", err))
	}
}

// emit sends an observability event.
func (s *Server) emit(ctx context.Context, name beamclaw.EventName, attrs ...slog.Attr) {
	if s.opts.Emitter == nil {
		return
	}
	s.opts.Emitter.Emit(ctx, beamclaw.Event{Name: name, Time: s.clock.Now(), Attrs: attrs})
}

// agentFor resolves the agent an endpoint names ("" = the default one) to
// an exposed agent.
func (s *Server) agentFor(name string) (string, error) {
	if name == "" {
		name = s.defaultAgent()
	}
	if !s.exposed(name) || !s.opts.Agents.Exists(name) {
		return "", fmt.Errorf("no agent %q here", name)
	}
	return name, nil
}

// defaultAgent answers on /a2a: the first exposed agent, or the default.
func (s *Server) defaultAgent() string {
	if len(s.opts.Exposed) > 0 {
		return s.opts.Exposed[0]
	}
	return s.opts.DefaultAgent
}

func (s *Server) exposed(name string) bool {
	if len(s.opts.Exposed) == 0 {
		return true
	}
	for _, a := range s.opts.Exposed {
		if a == name {
			return true
		}
	}
	return false
}
