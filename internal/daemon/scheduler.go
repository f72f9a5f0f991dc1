package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
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
	rt.deliver = &schedDeliverer{}
	o.Deliverer = rt.deliver
	o.Webhook.Client = &http.Client{Timeout: webhookTimeout, Transport: &http.Transport{
		Proxy:       nil, // a proxy would connect on our behalf, past the guard
		DialContext: builtin.GuardedDialer(builtin.CheckPublicIP, nil, webhookTimeout),
	}}
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
	specs := make([]scheduler.HeartbeatSpec, 0)
	for _, agent := range rt.agents.List() {
		specs = append(specs, scheduler.HeartbeatSpec{Agent: agent, UserID: sp.HeartbeatUser, Delivery: sp.HeartbeatDeliver})
	}
	if err := s.SyncHeartbeats(ctx, specs); err != nil {
		return fmt.Errorf("scheduler heartbeats: %w", err)
	}
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
	sup := supervise.New("scheduler", opts)
	sup.Add(d.guard(s.Runner()))
	sup.Add(d.guard(s.Executor()))
	root.Add(sup)
	rt.scheduler = s
	return nil
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
		_, err = t.m.RunDetached(ctx, session.Detached{Agent: turn.Agent, Channel: in.Channel, Autonomy: in.Autonomy,
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
}

// Deliver implements scheduler.Deliverer.
func (sd *schedDeliverer) Deliver(ctx context.Context, to scheduler.Delivery, msg scheduler.Message) error {
	switch to.Kind {
	case scheduler.DeliverTUI, scheduler.DeliverWS:
		hub := sd.ws
		if to.Kind == scheduler.DeliverTUI {
			hub = sd.tui
		}
		if hub == nil || hub.Notify(msg.UserID, msg.Agent, msg.JobID, msg.Text) == 0 {
			return fmt.Errorf("%s has no open %s connection", msg.UserID, to.Kind)
		}
		return nil
	}
	if ch, ok := sd.channels[beamclaw.Channel(to.Kind)]; ok {
		return ch.Deliver(ctx, to.Target, channel.Delivery{JobID: msg.JobID, UserID: msg.UserID, Agent: msg.Agent,
			SessionID: msg.SessionID, Text: msg.Text})
	}
	return fmt.Errorf("the %s channel is off", to.Kind)
}
