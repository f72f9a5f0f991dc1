package obs

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Metrics is the Prometheus backend: it owns a registry with the process
// and Go collectors, the metrics the gateway and supervisor report
// directly, and the ones it derives from events. Every name carries the
// beamclaw_ prefix.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	restarts     *prometheus.CounterVec
	events       *prometheus.CounterVec

	llmRequests   *prometheus.CounterVec
	llmDuration   prometheus.Histogram
	toolCalls     *prometheus.CounterVec
	toolDuration  *prometheus.HistogramVec
	mcpCalls      *prometheus.CounterVec
	mcpDuration   *prometheus.HistogramVec
	mcpRestarts   *prometheus.CounterVec
	turnsComplete prometheus.Counter
	a2aRequests   *prometheus.CounterVec
	a2aCreated    prometheus.Counter
	a2aStates     *prometheus.CounterVec
	schedRuns     *prometheus.CounterVec // sched_* run outcomes by outcome and heartbeat
	schedPaused   *prometheus.CounterVec
	schedEnded    *prometheus.CounterVec
	llmTokens     *prometheus.CounterVec // by provider, model and kind (in, out, cached)
	llmCost       *prometheus.CounterVec // US dollars by provider and model
}

// NewMetrics builds the registry. dropped reports the bus's dropped-event
// count (nil for none).
func NewMetrics(dropped func() uint64) *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "beamclaw"}))
	// The Go runtime's metrics too carry the prefix (beamclaw_go_goroutines).
	prometheus.WrapRegistererWithPrefix("beamclaw_", reg).MustRegister(collectors.NewGoCollector())
	f := promFactory{reg}
	m := &Metrics{
		reg:           reg,
		httpRequests:  f.counterVec("beamclaw_http_requests_total", "HTTP requests by route, method and status code.", "route", "method", "code"),
		httpDuration:  f.histogramVec("beamclaw_http_request_duration_seconds", "HTTP request duration by route.", "route"),
		restarts:      f.counterVec("beamclaw_supervisor_restarts_total", "Service restarts after a failure, by service.", "service"),
		events:        f.counterVec("beamclaw_events_total", "Observability events by name.", "event"),
		llmRequests:   f.counterVec("beamclaw_llm_requests_total", "LLM provider calls by outcome.", "success"),
		llmDuration:   f.histogram("beamclaw_llm_request_duration_seconds", "LLM provider call duration."),
		toolCalls:     f.counterVec("beamclaw_tool_calls_total", "Tool calls by tool and outcome.", "tool", "success"),
		toolDuration:  f.histogramVec("beamclaw_tool_call_duration_seconds", "Tool call duration by tool.", "tool"),
		mcpCalls:      f.counterVec("beamclaw_mcp_calls_total", "MCP tool calls by server and outcome.", "server", "success"),
		mcpDuration:   f.histogramVec("beamclaw_mcp_call_duration_seconds", "MCP tool call duration by server.", "server"),
		mcpRestarts:   f.counterVec("beamclaw_mcp_restarts_total", "MCP server restarts by server.", "server"),
		turnsComplete: f.counter("beamclaw_turns_total", "Completed agent turns."),
		a2aRequests:   f.counterVec("beamclaw_a2a_requests_total", "A2A calls by protocol method.", "rpc_method"),
		a2aCreated:    f.counter("beamclaw_a2a_tasks_created_total", "A2A tasks created."),
		a2aStates:     f.counterVec("beamclaw_a2a_task_states_total", "A2A task state changes by new state.", "state"),
		schedRuns: f.counterVec("beamclaw_sched_runs_total",
			"Scheduled runs: fired (started), failed, skipped (recorded, not run), suppressed (a heartbeat answered HEARTBEAT_OK).", "outcome"),
		schedPaused: f.counterVec("beamclaw_sched_jobs_paused_total", "Jobs paused, by reason (manual or auto after max_errors).", "reason"),
		schedEnded:  f.counterVec("beamclaw_sched_jobs_ended_total", "Jobs done, by reason (finished or canceled).", "reason"),
		llmTokens: f.counterVec("beamclaw_llm_tokens_total",
			"Tokens of model calls in the usage ledger, by provider, model and kind (in, out, cached; cached is part of in).", "provider", "model", "kind"),
		llmCost: f.counterVec("beamclaw_llm_cost_usd_total", "Cost of model calls in the usage ledger by the rate sheet, US dollars.", "provider", "model"),
	}
	if dropped != nil {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "beamclaw_obs_dropped_events_total",
			Help: "Events dropped because the observability queue was full.",
		}, func() float64 { return float64(dropped()) }))
	}
	return m
}

// LiveSessions registers beamclaw_sessions_live, read from live (the
// session manager's own count) at each scrape rather than counted from
// events, which the bus may drop.
func (m *Metrics) LiveSessions(live func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "beamclaw_sessions_live",
		Help: "Sessions with goroutines and history in memory (not hibernated).",
	}, func() float64 { return float64(live()) }))
}

// StoreWriteFailures registers beamclaw_store_write_failures_total, read
// from the store's own counter of writes that failed for the file's sake.
func (m *Metrics) StoreWriteFailures(n func() uint64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "beamclaw_store_write_failures_total",
		Help: "Database writes that failed (disk full, I/O error); readiness is false until one succeeds.",
	}, func() float64 { return float64(n()) }))
}

// StoreCommits registers beamclaw_store_commits_total, read from the
// store's count of committed write transactions (each one or two
// fdatasyncs; compare with beamclaw_turns_total for writes per turn).
func (m *Metrics) StoreCommits(n func() uint64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "beamclaw_store_commits_total",
		Help: "Database write transactions committed (group commits carry many writers).",
	}, func() float64 { return float64(n()) }))
}

// Cluster registers the cluster node's counters (cluster mode only):
// messages forwarded to their session's owner, sessions that moved
// between nodes, and the journal writes with their total latency (their
// ratio is JetStream's write latency).
func (m *Metrics) Cluster(forwarded, moves, writes func() uint64, writeSeconds func() float64) {
	for _, c := range []struct {
		name, help string
		v          func() float64
	}{
		{"beamclaw_cluster_forwarded_total", "Messages this node forwarded to the node that owns their session.", func() float64 { return float64(forwarded()) }},
		{"beamclaw_cluster_lease_moves_total", "Sessions this node took over from another node or lost to one.", func() float64 { return float64(moves()) }},
		{"beamclaw_cluster_journal_writes_total", "Session changes a quorum of JetStream replicas stored.", func() float64 { return float64(writes()) }},
		{"beamclaw_cluster_journal_write_seconds_total", "Total time of those writes (divide by the writes for the latency).", writeSeconds},
	} {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: c.name, Help: c.help}, c.v))
	}
}

// LLMUsage counts one model call of the usage ledger (usage.Counter).
func (m *Metrics) LLMUsage(provider, model string, in, out, cached int, usd float64) {
	m.llmTokens.WithLabelValues(provider, model, "in").Add(float64(in))
	m.llmTokens.WithLabelValues(provider, model, "out").Add(float64(out))
	if cached > 0 {
		m.llmTokens.WithLabelValues(provider, model, "cached").Add(float64(cached))
	}
	if usd > 0 {
		m.llmCost.WithLabelValues(provider, model).Add(usd)
	}
}

// Registry exposes the registry (tests, extra collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	// No Registry in the options: promhttp would add its own
	// promhttp_metric_handler_errors_total, the one metric without our prefix.
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveHTTP records one HTTP request.
func (m *Metrics) ObserveHTTP(route, method string, code int, d time.Duration) {
	m.httpRequests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.httpDuration.WithLabelValues(route).Observe(d.Seconds())
}

// Restarted records a supervised service restart.
func (m *Metrics) Restarted(service string) { m.restarts.WithLabelValues(service).Inc() }

// Handle derives metrics from an event.
func (m *Metrics) Handle(ev beamclaw.Event) {
	m.events.WithLabelValues(string(ev.Name)).Inc()
	switch ev.Name {
	case beamclaw.EventLLMResponse:
		m.llmRequests.WithLabelValues(boolAttr(ev, "success")).Inc()
		m.llmDuration.Observe(msAttr(ev, "duration_ms"))
	case beamclaw.EventToolCallResult:
		tool := strAttr(ev, "tool_name")
		m.toolCalls.WithLabelValues(tool, boolAttr(ev, "success")).Inc()
		m.toolDuration.WithLabelValues(tool).Observe(msAttr(ev, "duration_ms"))
	case beamclaw.EventMCPCall:
		server := strAttr(ev, "server")
		m.mcpCalls.WithLabelValues(server, boolAttr(ev, "success")).Inc()
		m.mcpDuration.WithLabelValues(server).Observe(msAttr(ev, "duration_ms"))
	case beamclaw.EventMCPRestart:
		m.mcpRestarts.WithLabelValues(strAttr(ev, "server")).Inc()
	case beamclaw.EventTurnComplete:
		m.turnsComplete.Inc()
	case beamclaw.EventA2ARequest:
		m.a2aRequests.WithLabelValues(strAttr(ev, "rpc_method")).Inc()
	case beamclaw.EventA2ATaskCreated:
		m.a2aCreated.Inc()
	case beamclaw.EventA2ATaskUpdated:
		m.a2aStates.WithLabelValues(strAttr(ev, "state")).Inc()
	case beamclaw.EventSchedJobFired:
		m.schedRuns.WithLabelValues("fired").Inc()
	case beamclaw.EventSchedJobCompleted:
		m.schedEnded.WithLabelValues(strAttr(ev, "reason")).Inc()
	case beamclaw.EventSchedJobFailed:
		m.schedRuns.WithLabelValues("failed").Inc()
	case beamclaw.EventSchedJobSkipped:
		m.schedRuns.WithLabelValues("skipped").Inc()
	case beamclaw.EventSchedSuppressed:
		m.schedRuns.WithLabelValues("suppressed").Inc()
	case beamclaw.EventSchedJobPaused:
		m.schedPaused.WithLabelValues(strAttr(ev, "reason")).Inc()
	}
}

// SchedulerJobs registers beamclaw_sched_jobs{state}, read from the
// scheduler's store at each scrape (count returns jobs by state).
func (m *Metrics) SchedulerJobs(states []string, count func() map[string]int) {
	for _, st := range states {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "beamclaw_sched_jobs", Help: "Scheduled jobs by state (heartbeats included).",
			ConstLabels: prometheus.Labels{"state": st},
		}, func() float64 { return float64(count()[st]) }))
	}
}

func attr(ev beamclaw.Event, key string) (slog.Value, bool) {
	for _, a := range ev.Attrs {
		if a.Key == key {
			return a.Value.Resolve(), true
		}
	}
	return slog.Value{}, false
}

func strAttr(ev beamclaw.Event, key string) string {
	if v, ok := attr(ev, key); ok {
		return v.String()
	}
	return ""
}

func boolAttr(ev beamclaw.Event, key string) string {
	if v, ok := attr(ev, key); ok && v.Kind() == slog.KindBool {
		return strconv.FormatBool(v.Bool())
	}
	return "unknown"
}

// msAttr reads a millisecond attribute as seconds.
func msAttr(ev beamclaw.Event, key string) float64 {
	v, ok := attr(ev, key)
	if !ok {
		return 0
	}
	switch v.Kind() {
	case slog.KindInt64:
		return float64(v.Int64()) / 1000
	case slog.KindFloat64:
		return v.Float64() / 1000
	case slog.KindDuration:
		return v.Duration().Seconds()
	}
	return 0
}

type promFactory struct{ reg *prometheus.Registry }

func (f promFactory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f promFactory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f promFactory) histogram(name, help string) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: prometheus.DefBuckets})
	f.reg.MustRegister(h)
	return h
}

func (f promFactory) histogramVec(name, help string, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: name, Help: help,
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, labels)
	f.reg.MustRegister(h)
	return h
}
