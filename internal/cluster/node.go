package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// routeUser is the user name the nodes' routes authenticate as; the
// password is cluster.token.
const routeUser = "beamclaw"

// ErrNoQuorum is returned while JetStream has no meta leader: fewer than
// a quorum of the cluster's nodes are reachable, so nothing can be written.
var ErrNoQuorum = errors.New("cluster: no JetStream quorum (too few nodes reachable)")

// Node is this daemon's member of the cluster: an embedded NATS server
// with JetStream and the daemon's in-process connection to it.
type Node struct {
	cfg Options
	srv *server.Server
	nc  *nats.Conn
	js  jetstream.JetStream
	log *slog.Logger
	// single are the singletons running here; status tells them.
	single singletons
	status *nats.Subscription
	closed sync.Once
	// leases is the lease bucket once opened (Leases).
	leaseMu sync.Mutex
	leases  *Leases
	stats   Stats
}

// Stats are a node's counters (metrics).
type Stats struct {
	Forwarded     atomic.Uint64 // messages handed to their session's owner
	LeaseMoves    atomic.Uint64 // sessions taken over from another node, or lost to one
	JournalWrites atomic.Uint64 // records a quorum stored
	JournalNanos  atomic.Uint64 // their total latency
}

// Stats are this node's counters.
func (n *Node) Stats() *Stats { return &n.stats }

// Start runs the embedded NATS server of cfg and connects to it in
// process. It returns once the server accepts connections; JetStream may
// still wait for a quorum of the cluster (Ready).
func Start(cfg Options, log *slog.Logger) (*Node, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts, err := serverOptions(cfg)
	if err != nil {
		return nil, err
	}
	tuneRAFT()
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	srv.SetLoggerV2(natsLogger{log: log.With("component", "nats")}, false, false, false)
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("cluster: the embedded NATS server did not start (ports %s, %s)", cfg.ClientListen, cfg.RouteListen)
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Token(cfg.Token), nats.Name("beamclaw-"+cfg.NodeID),
		nats.MaxReconnects(-1))
	if err != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("cluster: connect in process: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	n := &Node{cfg: cfg, srv: srv, nc: nc, js: js, log: log}
	if n.status, err = n.answerStatus(); err != nil {
		n.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return n, nil
}

// serverOptions translates the section into the embedded server's options.
func serverOptions(cfg Options) (*server.Options, error) {
	token := cfg.Token
	ch, cp, err := splitListen(cfg.ClientListen)
	if err != nil {
		return nil, fmt.Errorf("cluster.client_listen: %w", err)
	}
	rh, rp, err := splitListen(cfg.RouteListen)
	if err != nil {
		return nil, fmt.Errorf("cluster.route_listen: %w", err)
	}
	o := &server.Options{
		ServerName: cfg.NodeID, Host: ch, Port: cp, Authorization: token,
		JetStream: true, StoreDir: cfg.Dir,
		NoSigs: true, NoSystemAccount: false, MaxPayload: 8 << 20,
		// A stop hands the RAFT leaderships on (Close): the others elect
		// none, and the clients left (none: ours closes first) go at once.
		LameDuckDuration: 2 * time.Second, LameDuckGracePeriod: time.Second,
		Cluster: server.ClusterOpts{Name: cfg.Name, Host: rh, Port: rp, Username: routeUser, Password: token,
			ConnectRetries: -1, NoAdvertise: true},
	}
	if len(cfg.Routes) == 0 { // a cluster of one: JetStream alone (it wants routes to cluster)
		o.Cluster = server.ClusterOpts{}
	}
	for i, r := range cfg.Routes {
		u, err := routeURL(r)
		if err != nil {
			return nil, fmt.Errorf("cluster.routes[%d]: %w", i, err)
		}
		u.Scheme = "nats-route"
		u.User = url.UserPassword(routeUser, token)
		o.Routes = append(o.Routes, u)
	}
	if cfg.CertFile != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.CertFile, KeyFile: cfg.KeyFile,
			CaFile: cfg.CAFile, Verify: true})
		if err != nil {
			return nil, fmt.Errorf("cluster.tls: %w", err)
		}
		tc.RootCAs = tc.ClientCAs // a route is dialled too: the other node's certificate is checked against the same CA
		o.Cluster.TLSConfig, o.Cluster.TLSTimeout = tc, 2
	}
	return o, nil
}

func splitListen(v string) (string, int, error) {
	h, p, err := net.SplitHostPort(v)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	return h, n, err
}

// JetStream is the node's in-process JetStream context.
func (n *Node) JetStream() jetstream.JetStream { return n.js }

// Conn is the node's in-process connection.
func (n *Node) Conn() *nats.Conn { return n.nc }

// ID is this node's name (cluster.node_id).
func (n *Node) ID() string { return n.cfg.NodeID }

// LeaseTTL is how long a lease lasts without renewal.
func (n *Node) LeaseTTL() time.Duration { return n.cfg.LeaseTTL }

// Replicas is how many copies each stream and bucket keeps.
func (n *Node) Replicas() int { return n.cfg.Replicas }

// Ready waits until JetStream answers (a meta leader exists: a quorum of
// the cluster is up), or ctx ends.
func (n *Node) Ready(ctx context.Context) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if n.MetaLeader() != "" {
			c, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := n.js.AccountInfo(c)
			cancel()
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrNoQuorum, ctx.Err())
		case <-t.C:
		}
	}
}

// MetaLeader is JetStream's meta leader as this node knows it ("": none).
func (n *Node) MetaLeader() string {
	if len(n.cfg.Routes) == 0 {
		return n.cfg.NodeID // a cluster of one leads itself
	}
	info, err := n.srv.Jsz(&server.JSzOptions{})
	if err != nil || info.Meta == nil {
		return ""
	}
	return info.Meta.Leader
}

// Close closes the connection and shuts the embedded server down, in
// lame duck mode: the streams and the meta group this node leads get new
// leaders before it goes (a second at most), so the others do not wait
// out an election as after a kill. Again does nothing.
func (n *Node) Close() {
	n.closed.Do(func() {
		n.nc.Close()
		n.srv.LameDuckShutdown()
		n.srv.WaitForShutdown()
	})
}

// natsLogger hands the embedded server's log lines to slog.
type natsLogger struct{ log *slog.Logger }

func (l natsLogger) Noticef(f string, v ...any) { l.log.Debug(fmt.Sprintf(f, v...)) }
func (l natsLogger) Warnf(f string, v ...any)   { l.log.Warn(fmt.Sprintf(f, v...)) }
func (l natsLogger) Fatalf(f string, v ...any)  { l.log.Error(fmt.Sprintf(f, v...)) }
func (l natsLogger) Errorf(f string, v ...any)  { l.log.Error(fmt.Sprintf(f, v...)) }
func (l natsLogger) Debugf(f string, v ...any)  { l.log.Debug(fmt.Sprintf(f, v...)) }
func (l natsLogger) Tracef(f string, v ...any)  {}
