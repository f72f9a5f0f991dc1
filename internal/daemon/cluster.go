package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// openCluster starts this node's embedded NATS server when
// cluster.enabled (a single node starts none). JetStream waits for a
// quorum of the cluster on its own; until then the cluster check is not
// ready.
func (d *daemon) openCluster() error {
	if d.plan.Cluster == nil {
		d.db.Alone() // the stores' areas are this file's own (a former cluster node's too)
		return nil
	}
	n, err := cluster.Start(*d.plan.Cluster, d.log)
	if err != nil {
		return err
	}
	d.cluster = n
	d.db.Replicate(n.State(), d.log) // the stores' areas: replicas of the cluster's log (ADR-045)
	d.check("cluster", func() protocol.Subsystem {
		if leader := n.MetaLeader(); leader != "" {
			return protocol.Subsystem{Ready: true, Detail: fmt.Sprintf("node %s, meta leader %s", n.ID(), leader)}
		}
		return protocol.Subsystem{Detail: fmt.Sprintf("node %s: no JetStream quorum yet", n.ID())}
	})
	d.watch.lap("cluster")
	return nil
}

// clusterMetrics registers the node's counters (tree, once the metrics
// exist).
func (d *daemon) clusterMetrics() {
	if d.cluster == nil {
		return
	}
	st := d.cluster.Stats()
	d.metrics.Cluster(st.Forwarded.Load, st.LeaseMoves.Load, st.JournalWrites.Load,
		func() float64 { return float64(st.JournalNanos.Load()) / 1e9 })
}

// clusterServices serve what other nodes send for the sessions this node
// owns: forwarded messages and answers to approvals (cluster mode only).
func (d *daemon) clusterServices(sup *suture.Supervisor, rt *agentRuntime) {
	sessions := rt.sessions
	if d.cluster == nil {
		return
	}
	d.leaving = &leave{sessions: sessions, started: make(chan struct{})}
	sup.Add(d.guard(supervise.Func("cluster.forwarded", func(ctx context.Context) error {
		fctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() {
			select {
			case <-d.leaving.started: // other nodes' messages go elsewhere from now on
				stop()
			case <-fctx.Done():
			}
		}()
		err := d.cluster.ServeForwarded(fctx, func(ctx context.Context, in beamclaw.Inbound) (string, error) {
			return sessions.Send(session.Forwarded(ctx), in)
		})
		if d.leaving.isStarted() {
			<-ctx.Done() // stays stopped until the tree stops
			return nil
		}
		return err
	})))
	sup.Add(d.guard(supervise.Func("cluster.a2a_tasks", func(ctx context.Context) error {
		return d.cluster.Answer(ctx, liveTaskSubject+d.cluster.ID(), func(_ context.Context, id []byte) ([]byte, bool) {
			if rt.a2a == nil { // the edge's, filled in before the tree serves
				return nil, true
			}
			data, _ := rt.a2a.LiveTask(string(id))
			return data, true // empty: nothing newer than the store here
		})
	})))
	sup.Add(d.guard(supervise.Func("cluster.a2a_cancels", func(ctx context.Context) error {
		return d.cluster.Answer(ctx, cancelTaskSubject+d.cluster.ID(), func(ctx context.Context, id []byte) ([]byte, bool) {
			if rt.a2a == nil {
				return []byte("gone"), true
			}
			ok, err := rt.a2a.CancelHere(ctx, string(id))
			if err != nil {
				d.log.Info("a2a: a cancel from another node failed here", "task_id", string(id), "err", err)
			}
			if !ok {
				return []byte("gone"), true
			}
			return []byte(taskCanceled), true // the asking node reads how the task ended
		})
	})))
	if rt.budgets != nil { // the calls in flight of gone nodes stop counting
		sup.Add(d.guard(supervise.Func("cluster.budget_holds", func(ctx context.Context) error {
			return rt.budgets.KeepHolds(ctx, d.cluster.Alive, d.log)
		})))
	}
	sup.Add(d.guard(supervise.Func("cluster.a2a_subscribe", func(ctx context.Context) error {
		return d.cluster.ServeStream(ctx, subscribeTaskSubject+d.cluster.ID(), func(ctx context.Context, id []byte, send func([]byte) bool) error {
			if rt.a2a == nil {
				return errors.New("a2a is not served on this node")
			}
			return rt.a2a.SubscribeHere(ctx, string(id), send)
		})
	})))
	sup.Add(d.guard(supervise.Func("cluster.owner_ops", func(ctx context.Context) error {
		return d.cluster.ServeOwnerOps(ctx, func(ctx context.Context, op cluster.OwnerOp) error {
			if op.Kind == cluster.OpNotify {
				if rt.deliver != nil && rt.deliver.notifyHere(op) { // the scheduler's, filled in before the tree serves
					return nil
				}
				return cluster.ErrNotLiveAnywhere
			}
			return sessions.OwnerOpHere(ctx, op)
		})
	})))
}

// channelServe is a registered channel's service: on one node of the
// cluster at a time when the channel asks for that (channel.Singleton).
func (d *daemon) channelServe(name beamclaw.Channel, inst channel.Instance) func(context.Context) error {
	if s, ok := inst.(channel.Singleton); ok && s.Singleton() && d.cluster != nil {
		return d.cluster.Singleton("channel."+string(name), inst.Serve)
	}
	return inst.Serve
}

// leave is a node's departure from its cluster at a stop: it takes no
// more forwarded messages, lets the runs live here end (within half the
// shutdown timeout) and gives each session up as soon as it is idle, so
// that the other nodes take its sessions over at once; the embedded
// server then hands its stream leaderships on (Node.Close). The other
// nodes' clients see no error.
type leave struct {
	sessions *session.Manager
	started  chan struct{}
	once     sync.Once
}

func (l *leave) isStarted() bool {
	select {
	case <-l.started:
		return true
	default:
		return false
	}
}

// leave runs the departure (cluster mode; nothing alone).
func (d *daemon) leave() {
	if d.leaving == nil {
		return
	}
	d.leaving.once.Do(func() { close(d.leaving.started) })
	ctx, cancel := context.WithTimeout(context.Background(), d.plan.ShutdownTimeout/2)
	defer cancel()
	start := time.Now()
	d.leaving.sessions.Drain(ctx)
	d.log.Info("cluster: this node's sessions handed on", "took", time.Since(start).Round(time.Millisecond))
}
