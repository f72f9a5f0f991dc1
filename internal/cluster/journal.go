package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// ErrFenced is returned when a write is refused because a newer holder
// of the key's lease has written since this writer last read: the writer
// must stop acting for the key (fencing, not just locking).
var ErrFenced = errors.New("cluster: write fenced off: another node owns this now")

// Headers of a journal record.
const (
	hdrEpoch = "Beamclaw-Epoch"
	hdrNode  = "Beamclaw-Node"
	hdrKind  = "Beamclaw-Kind" // "fence" for a holder's first record
)

// Journal is a replicated stream of records per key (a session's
// changes), written only by the holder of the key's lease. Each holder
// first appends a fence naming the last sequence it read; every record
// names the sequence it expects last on its key. The stream itself
// refuses a writer that did not see the newest record, so a node paused
// past its lease can never write over its successor's.
type Journal struct {
	js      jetstream.JetStream
	s       jetstream.Stream // its handle, kept: a lookup is a request
	stats   *Stats
	stream  string
	subject string // prefix; a key's subject is subject + "." + key
}

// Journal opens (creating when missing) the journal stream name, R =
// cluster.replicas. A record is acknowledged only once a quorum of its
// replicas stored it.
func (n *Node) Journal(ctx context.Context, name string) (*Journal, error) {
	stream, subj := "BEAMCLAW_"+name, "bcj."+name
	s, err := n.stream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{subj + ".>"},
		Replicas: n.cfg.Replicas, Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy,
		Discard: jetstream.DiscardNew, MaxMsgSize: 8 << 20})
	if err != nil {
		return nil, fmt.Errorf("cluster: journal %s: %w", name, err)
	}
	if err := streamLeader(ctx, s); err != nil {
		return nil, fmt.Errorf("cluster: journal %s: %w", name, err)
	}
	return &Journal{js: n.js, s: s, stream: stream, subject: subj, stats: &n.stats}, nil
}

// stream returns the stream of cfg, creating it when missing. It looks it
// up first: an update of a stream that another node is creating at that
// moment can go unanswered (nats-server 2.15), and so can a look-up of a
// stream still electing its leader; each attempt is bounded (apiAttempt)
// and tried again until ctx ends.
func (n *Node) stream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	return retryAPI(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		s, err := n.js.Stream(ctx, cfg.Name)
		if err == nil || !errors.Is(err, jetstream.ErrStreamNotFound) {
			return s, err
		}
		return n.js.CreateStream(ctx, cfg)
	}, jetstream.ErrStreamNameAlreadyInUse)
}

// errNoPeers is JetStream's "no suitable peers for placement": the meta
// leader does not yet count enough peers online, right after a start.
const errNoPeers = 10005

func noPeersYet(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == errNoPeers
}

// apiAttempt bounds one request to JetStream's API that may go unanswered
// while the cluster elects a leader.
const apiAttempt = 2 * time.Second

// retryAPI calls fn, each time within apiAttempt, until it answers with
// anything but a timeout or one of again, or ctx ends.
func retryAPI[T any](ctx context.Context, fn func(context.Context) (T, error), again ...error) (T, error) {
	for {
		c, cancel := context.WithTimeout(ctx, apiAttempt)
		v, err := fn(c)
		cancel()
		retry := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || noPeersYet(err)
		for _, e := range again {
			retry = retry || errors.Is(err, e)
		}
		if !retry || ctx.Err() != nil {
			return v, err
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			select { // an answer came: give the cluster a moment
			case <-ctx.Done():
				return v, err
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// streamLeader waits until a new stream elected its leader: until then
// nothing answers its reads.
func streamLeader(ctx context.Context, s jetstream.Stream) error {
	for {
		info, err := s.Info(ctx)
		if err == nil && (info.Cluster == nil || info.Cluster.Leader != "") {
			return nil
		}
		if err != nil && !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, jetstream.ErrNoStreamResponse) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Record is one stored record of a key.
type Record struct {
	Seq   uint64
	Epoch uint64
	Node  string
	Fence bool
	Data  []byte
}

// Writer appends a key's records under a lease.
type Writer struct {
	j     *Journal
	subj  string
	lease *Lease
	last  uint64 // sequence of the newest record of the key, as this writer knows it
}

// Open reads every record of key and fences it for lease: from then on
// only this writer's appends succeed, until another holder opens it.
func (j *Journal) Open(ctx context.Context, key string, lease *Lease) (*Writer, []Record, error) {
	subj := j.subject + "." + leaseKey(key)
	recs, err := j.Read(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	w := &Writer{j: j, subj: subj, lease: lease}
	if n := len(recs); n > 0 {
		w.last = recs[n-1].Seq
	}
	if err := w.append(ctx, nil, true); err != nil {
		return nil, nil, err
	}
	return w, recs, nil
}

// Append stores data as the key's next record and returns once a quorum
// acknowledged it. ErrFenced: another holder wrote since.
func (w *Writer) Append(ctx context.Context, data []byte) error { return w.append(ctx, data, false) }

func (w *Writer) append(ctx context.Context, data []byte, fence bool) error {
	m := nats.NewMsg(w.subj)
	m.Data = data
	m.Header.Set(hdrEpoch, strconv.FormatUint(w.lease.Epoch, 10))
	m.Header.Set(hdrNode, w.lease.Node)
	if fence {
		m.Header.Set(hdrKind, "fence")
	}
	start := time.Now()
	ack, err := w.j.publish(ctx, m, w.last)
	if err == nil {
		w.j.stats.JournalWrites.Add(1)
		w.j.stats.JournalNanos.Add(uint64(time.Since(start)))
	}
	if wrongLast(err) {
		return fmt.Errorf("%w (%s epoch %d)", ErrFenced, w.lease.Name, w.lease.Epoch)
	}
	if err != nil {
		return fmt.Errorf("cluster: append to %s: %w", w.lease.Name, err)
	}
	w.last = ack.Sequence
	return nil
}

// publish stores m as its subject's next record if the subject's newest
// record is still after, and returns once a quorum stored it (wrongLast:
// another writer came first). Each attempt is bounded and retried
// (retryAPI): a publish to a leader that died is never answered, and the
// stream's new leader (elected within seconds) takes the next.
func (j *Journal) publish(ctx context.Context, m *nats.Msg, after uint64) (*jetstream.PubAck, error) {
	id := nuid.Next()
	return retryAPI(ctx, func(ctx context.Context) (*jetstream.PubAck, error) {
		return j.publishOnce(ctx, m, after, id)
	}, leaderless()...)
}

// publishOnce is one attempt of publish. id names the write: an attempt
// again after one whose record was stored, its acknowledgement lost, is
// answered with that record's acknowledgement (JetStream looks at the id
// before it checks after), not refused as another writer's.
func (j *Journal) publishOnce(ctx context.Context, m *nats.Msg, after uint64, id string) (*jetstream.PubAck, error) {
	return j.js.PublishMsg(ctx, m, jetstream.WithExpectLastSequencePerSubject(after), jetstream.WithMsgID(id))
}

// Read returns every record of key, oldest first. A consumer just made
// may not answer yet on every node: its "no responders" is tried again.
func (j *Journal) Read(ctx context.Context, key string) ([]Record, error) {
	for {
		recs, err := j.read(ctx, key)
		if !errors.Is(err, nats.ErrNoResponders) {
			return recs, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (j *Journal) read(ctx context.Context, key string) ([]Record, error) {
	subj, s := j.subject+"."+leaseKey(key), j.s
	// Each record is the next of its subject from the stream's leader: no
	// consumer, so no meta leader is needed (a takeover after the meta
	// leader died does not wait for its election).
	var out []Record
	for seq := uint64(1); ; {
		msg, err := retryAPI(ctx, func(ctx context.Context) (*jetstream.RawStreamMsg, error) { // a dead leader never answers
			return s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		})
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: read %s: %w", key, err)
		}
		epoch, _ := strconv.ParseUint(msg.Header.Get(hdrEpoch), 10, 64)
		out = append(out, Record{Seq: msg.Sequence, Epoch: epoch, Node: msg.Header.Get(hdrNode),
			Fence: msg.Header.Get(hdrKind) == "fence", Data: msg.Data})
		seq = msg.Sequence + 1
	}
}

// wrongLast reports whether err is the stream's refusal of an
// expected-last-sequence check (10071; 10164 on replicated streams).
func wrongLast(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// Snapshot appends data as the key's newest record, standing for every
// record before it, and drops those: a journal read after it starts
// there. Fenced like Append.
func (w *Writer) Snapshot(ctx context.Context, data []byte) error {
	if err := w.append(ctx, data, false); err != nil {
		return err
	}
	if err := w.j.s.Purge(ctx, jetstream.WithPurgeSubject(w.subj), jetstream.WithPurgeSequence(w.last)); err != nil {
		return fmt.Errorf("cluster: trim %s: %w", w.lease.Name, err)
	}
	return nil
}

// Purge deletes every record of key.
func (j *Journal) Purge(ctx context.Context, key string) error {
	if err := j.s.Purge(ctx, jetstream.WithPurgeSubject(j.subject+"."+leaseKey(key))); err != nil {
		return fmt.Errorf("cluster: purge %s: %w", key, err)
	}
	return nil
}
