package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/agent"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// webhookTimeout bounds one webhook delivery's connection.
const webhookTimeout = 10 * time.Second

// schedulerInto adds the scheduler (runner and executor, each guarded)
// under root when scheduler.enabled, registers the agents' scheduler tool
// and makes each agent's heartbeat job match the config. Its deliveries
// to Telegram and to open terminals and WebSocket clients go through
// rt.deliver, which the edges fill in.
func (d *daemon) schedulerInto(ctx context.Context, root *suture.Supervisor, opts supervise.Options, rt *agentRuntime) error {
	sp := d.plan.Scheduler
	if sp == nil {
		return nil
	}
	o := sp.Options
	o.DB, o.Emitter, o.Logger, o.Scrub = d.db, d.bus, d.log, rt.scrubber.String
	o.Turns = schedTurns{m: rt.sessions}
	rt.deliver = &schedDeliverer{log: d.log}
	if d.cluster != nil { // the user's connections may be on any node
		rt.deliver.elsewhere = func(ctx context.Context, kind scheduler.DeliveryKind, msg scheduler.Message) bool {
			return d.cluster.AskOwner(ctx, cluster.OwnerOp{Kind: cluster.OpNotify, User: msg.UserID, Agent: msg.Agent,
				Job: msg.JobID, Text: msg.Text, Channel: string(kind)}) == nil
		}
	}
	o.Deliverer = rt.deliver
	o.Webhook.Client = &http.Client{Timeout: webhookTimeout, Transport: &http.Transport{
		Proxy:       nil, // a proxy would connect on our behalf, past the guard
		DialContext: builtin.GuardedDialer(builtin.CheckPublicIP, nil, webhookTimeout),
	}}
	o.Webhook.CheckHost = func(ctx context.Context, host string) error {
		return builtin.CheckHost(ctx, builtin.CheckPublicIP, nil, host)
	}
	o.Webhook.AllowClient = &http.Client{Timeout: webhookTimeout, Transport: &http.Transport{Proxy: nil,
		DialContext: (&net.Dialer{Timeout: webhookTimeout}).DialContext}}
	o.Heartbeat.Read = rt.agents.Heartbeat
	s, err := scheduler.New(o)
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	if err := rt.tools.Register(s.Tool(scheduler.ToolOptions{DefaultDelivery: d.defaultDelivery})); err != nil {
		return fmt.Errorf("scheduler tool: %w", err)
	}
	hb, err := d.heartbeats(ctx, s, rt.agents, sp)
	if err != nil {
		return err
	}
	rt.deliver.missed = s
	if d.metrics != nil {
		states := []scheduler.State{scheduler.StateActive, scheduler.StatePaused, scheduler.StateDone, scheduler.StateFailed}
		names := make([]string, len(states))
		for i, st := range states {
			names[i] = string(st)
		}
		d.metrics.SchedulerJobs(names, func() map[string]int {
			jobs, err := s.List(context.Background(), scheduler.Filter{})
			out := make(map[string]int, len(states))
			if err != nil {
				return out
			}
			for _, j := range jobs {
				out[string(j.State)]++
			}
			return out
		})
	}
	tree := func() *suture.Supervisor {
		sup := supervise.New("scheduler", opts)
		sup.Add(d.guard(s.Runner()))
		sup.Add(d.guard(s.Executor()))
		sup.Add(d.guard(hb))
		return sup
	}
	rt.scheduler = s
	if d.cluster == nil {
		root.Add(tree())
		return nil
	}
	// Cluster mode: the jobs are one state (ADR-045); its timers, runs and
	// heartbeats run on one node at a time and move when it dies (a tree
	// of its own each time this node takes them).
	root.Add(d.guard(supervise.Func("scheduler", d.cluster.Singleton("scheduler", func(ctx context.Context) error {
		s.TakeOver()
		return tree().Serve(ctx)
	}))))
	return nil
}

// agentScan is how often the daemon looks for agents made or deleted while
// it runs, whose heartbeats then start or end.
const agentScan = 2 * time.Second

// heartbeats makes each agent's heartbeat job match the config now, and
// returns the service that keeps them matching the agents: an agent made
// while the daemon runs gets its heartbeat within agentScan, a deleted
// one's ends.
func (d *daemon) heartbeats(ctx context.Context, s *scheduler.Scheduler, agents *agent.Runtime, sp *schedPlan) (suture.Service, error) {
	specs := func(list []string) []scheduler.HeartbeatSpec {
		out := make([]scheduler.HeartbeatSpec, 0, len(list))
		for _, a := range list {
			out = append(out, scheduler.HeartbeatSpec{Agent: a, UserID: sp.HeartbeatUser, Delivery: sp.HeartbeatDeliver})
		}
		return out
	}
	list := agents.List()
	known := "\x01"       // none yet: the service's first look syncs them
	if d.cluster == nil { // in a cluster, the node that runs the scheduler does, once there is a quorum
		if err := s.SyncHeartbeats(ctx, specs(list)); err != nil {
			return nil, fmt.Errorf("scheduler heartbeats: %w", err)
		}
		known = strings.Join(list, "\x00")
	}
	return supervise.Func("scheduler.heartbeats", func(ctx context.Context) error {
		return clock.Every(ctx, clock.System, agentScan, func(ctx context.Context) error {
			list := agents.List()
			key := strings.Join(list, "\x00")
			if key == known {
				return nil
			}
			if err := s.SyncHeartbeats(ctx, specs(list)); err != nil {
				d.log.Warn("heartbeats could not follow the agents", "err", err)
				return nil
			}
			known = key
			d.log.Info("heartbeats follow the agents", "agents", list)
			return nil
		})
	}), nil
}

// defaultDelivery is where a job an agent creates without a delivery
// sends its answers: back to the conversation's channel when it can be
// reached without a request (open terminals or WebSocket clients, a
// registered channel's Reply: a Telegram chat, a webhook endpoint); other
// channels must name one.
func (d *daemon) defaultDelivery(inv beamclaw.Invocation) string {
	for _, cp := range d.plan.Channels { // registered channels say themselves
		if cp.Module.Name == inv.Channel && cp.Module.Reply != nil {
			return cp.Module.Reply(inv.UserID)
		}
	}
	switch inv.Channel {
	case beamclaw.ChannelTUI, beamclaw.ChannelWS: // the gateway's hubs (scheduler.DeliverTUI, DeliverWS)
		return string(inv.Channel)
	}
	return ""
}

// schedTurns runs the scheduler's turns through the session manager. A
// scheduled run has nobody to answer an approval: a tool call that would
// ask is denied, and the answer says why.
type schedTurns struct{ m *session.Manager }

func (t schedTurns) inbound(turn scheduler.Turn, route beamclaw.Route) beamclaw.Inbound {
	in := beamclaw.Inbound{Channel: beamclaw.ChannelScheduler, UserID: turn.UserID, AgentID: turn.Agent,
		Content: turn.Prompt, Autonomy: turn.Autonomy, Trust: turn.Trust, NoApproval: true, Route: route, Thread: turn.SessionKey}
	if turn.MaxTokens > 0 {
		in.Sampling = &beamclaw.Sampling{MaxTokens: turn.MaxTokens}
	}
	return in
}

// SessionID implements scheduler.Turns.
func (t schedTurns) SessionID(turn scheduler.Turn) string {
	if turn.LightContext {
		return "" // a heartbeat runs in no session
	}
	return t.m.SessionID(t.inbound(turn, nil))
}

// Run implements scheduler.Turns: a turn in the job's session, or, with
// LightContext, a detached run that sees only the prompt.
func (t schedTurns) Run(ctx context.Context, turn scheduler.Turn) (scheduler.Result, error) {
	route := session.NewWaitRoute()
	in := t.inbound(turn, route)
	var err error
	if turn.LightContext {
		origin := usage.OriginJob
		if turn.Heartbeat {
			origin = usage.OriginHeartbeat
		}
		_, err = t.m.RunDetached(ctx, session.Detached{Agent: turn.Agent, User: turn.UserID, Trust: turn.Trust, Channel: in.Channel, Autonomy: in.Autonomy, Origin: origin,
			History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: turn.Prompt}}, Sampling: in.Sampling}, route)
	} else {
		_, err = t.m.Send(ctx, in)
	}
	if err != nil {
		return scheduler.Result{}, err
	}
	ev, err := route.Wait(ctx)
	if err != nil {
		return scheduler.Result{}, err
	}
	if ev.Type == beamclaw.EvError {
		return scheduler.Result{}, beamclaw.E("scheduler.turn", ev.Kind, ev.Text, nil)
	}
	return scheduler.Result{Text: ev.Text}, nil
}

// schedDeliverer sends scheduled answers to the registered channels that
// take them and to the user's open terminals and WebSocket clients; the
// edges set them before the tree serves. Its errors do not name the
// delivery: the executor's "deliver to <kind>: " does.
type schedDeliverer struct {
	tui, ws  *gateway.WS
	channels map[beamclaw.Channel]channel.Instance // the registered channels that are on and take deliveries
	missed   *scheduler.Scheduler                  // keeps tui and ws answers nobody was connected for
	log      *slog.Logger
	// elsewhere hands an answer to the other nodes' connections (cluster
	// mode): true when one of them had the user connected.
	elsewhere func(ctx context.Context, kind scheduler.DeliveryKind, msg scheduler.Message) bool
}

// notifyHere hands an answer another node's scheduler sent to this node's
// connections of the user (cluster mode): false when it has none.
func (sd *schedDeliverer) notifyHere(op cluster.OwnerOp) bool {
	hub := sd.ws
	if scheduler.DeliveryKind(op.Channel) == scheduler.DeliverTUI {
		hub = sd.tui
	}
	return hub != nil && hub.Notify(op.User, op.Agent, op.Job, op.Text) > 0
}

// Deliver implements scheduler.Deliverer.
func (sd *schedDeliverer) Deliver(ctx context.Context, to scheduler.Delivery, msg scheduler.Message) error {
	switch to.Kind {
	case scheduler.DeliverTUI, scheduler.DeliverWS:
		hub := sd.ws
		if to.Kind == scheduler.DeliverTUI {
			hub = sd.tui
		}
		if hub != nil && hub.Notify(msg.UserID, msg.Agent, msg.JobID, msg.Text) > 0 {
			return nil
		}
		if sd.elsewhere != nil && sd.elsewhere(ctx, to.Kind, msg) {
			return nil
		}
		// Nobody watching is not a failure: the answer waits for the
		// user's next connection of that kind.
		if err := sd.missed.KeepMissed(to.Kind, msg.UserID, scheduler.Missed{Agent: msg.Agent, JobID: msg.JobID,
			Text: msg.Text, At: time.Now()}); err != nil {
			return fmt.Errorf("keep for %s's next %s connection: %w", msg.UserID, to.Kind, err)
		}
		sd.log.Debug("scheduled answer kept for the user's next connection", "job_id", msg.JobID, "deliver", string(to.Kind))
		return nil
	}
	if ch, ok := sd.channels[beamclaw.Channel(to.Kind)]; ok {
		return ch.Deliver(ctx, to.Target, channel.Delivery{JobID: msg.JobID, UserID: msg.UserID, Agent: msg.Agent,
			SessionID: msg.SessionID, Text: msg.Text})
	}
	return fmt.Errorf("the %s channel is off", to.Kind)
}
