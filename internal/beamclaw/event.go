package beamclaw

import (
	"log/slog"
	"time"
)

// EventName names an observability event. Emitters and the backends that
// derive metrics from events use these constants, never string literals,
// so a typo is a compile error rather than a metric silently at zero.
type EventName string

// The event names of the spec's table, plus beamclaw-go's own.
const (
	EventAgentStart         EventName = "agent_start"
	EventLLMRequest         EventName = "llm_request"
	EventLLMResponse        EventName = "llm_response"
	EventLLMAttempt         EventName = "llm_attempt" // a provider of a chain failed; the next may be tried
	EventToolCallStart      EventName = "tool_call_start"
	EventToolCallResult     EventName = "tool_call_result"
	EventTurnComplete       EventName = "turn_complete"
	EventCompactionComplete EventName = "compaction_complete"
	EventMemoryFlush        EventName = "memory_flush"
	EventLoopState          EventName = "loop_state"
	EventTurnLimit          EventName = "turn_limit"     // a run stopped at core.agentic_loop.max_tool_calls_per_turn or max_tokens_per_turn
	EventBudgetWarning      EventName = "budget_warning" // a budget of core.budgets passed its warn_percent, or is spent (warn, route_down)
	EventApprovalRequested  EventName = "approval_requested"
	EventApprovalResolved   EventName = "approval_resolved"
	EventElicitRequested    EventName = "elicitation_requested" // a tool asked the user a question
	EventElicitResolved     EventName = "elicitation_resolved"

	EventSessionStart      EventName = "session_start"
	EventSessionEnd        EventName = "session_end"
	EventSessionRestored   EventName = "session_restored"
	EventSessionReset      EventName = "session_reset"
	EventSessionHibernated EventName = "session_hibernated"
	EventSessionExpired    EventName = "session_expired"

	EventMCPCall        EventName = "mcp_call"
	EventMCPRestart     EventName = "mcp_restart"
	EventMCPToolChanged EventName = "mcp_tool_changed"
	EventMCPServerState EventName = "mcp_server_state"

	EventSandboxReaped EventName = "sandbox_reaped"

	EventSchedJobCreated   EventName = "sched_job_created"
	EventSchedJobFired     EventName = "sched_job_fired"
	EventSchedJobCompleted EventName = "sched_job_completed"
	EventSchedJobFailed    EventName = "sched_job_failed"
	EventSchedJobPaused    EventName = "sched_job_paused"
	EventSchedJobSkipped   EventName = "sched_job_skipped"
	EventSchedSuppressed   EventName = "sched_suppressed"

	EventMaintenanceCompactComplete EventName = "maintenance_compact_complete"
	EventMaintenanceNightlyStart    EventName = "maintenance_nightly_start"
	EventMaintenanceNightlyComplete EventName = "maintenance_nightly_complete"
	EventMaintenancePreExpiryFlush  EventName = "maintenance_pre_expiry_flush"

	EventA2ARequest     EventName = "a2a_request"
	EventA2ATaskCreated EventName = "a2a_task_created"
	EventA2ATaskUpdated EventName = "a2a_task_updated"
)

// Event is an observability event: a name from the table above with
// attributes. Values in Attrs must already be scrubbed.
type Event struct {
	Name      EventName
	SessionID string
	Time      time.Time
	Attrs     []slog.Attr
}
