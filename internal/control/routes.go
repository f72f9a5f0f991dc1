package control

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/people"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/usage"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// handlers serve the CLI's routes on the control socket: MCP state and
// pairing, which need the running daemon's memory or its database.
type handlers struct {
	sessions     Sessions
	mcp          *mcp.Manager // nil without MCP
	db           *store.DB
	tokens       oauth.Store // MCP OAuth logins; nil without MCP
	scrub        func(string) string
	pairing      *pairing.Store
	agentsDir    string
	log          *slog.Logger
	sandbox      *sandbox.Manager // nil unless sandbox.enabled
	gate         *sandbox.Gate
	scheduler    Scheduler              // nil unless scheduler.enabled
	memory       Memory                 // the agents' memory of each user
	links        *people.Links          // linked accounts
	ledger       *usage.Ledger          // nil: none
	workspaces   *workspace.Store       // the agents' workspaces (nil: none)
	events       *Events                // the live event stream (nil: none)
	config       func() ([]byte, error) // the running configuration, as config show renders it
	editConfig   func(key string, value *string) (string, error)
	skills       Skills // the agents' skill catalogs (nil: none)
	defaultAgent string
	clock        clock.Clock
	health       func(context.Context) protocol.Health // nil: none
	a2a          A2ATasks                              // nil: the A2A edge is off
	cluster      Cluster                               // nil: the daemon runs alone
	loginFlows   sync.Map                              // MCP servers whose login the daemon runs now (server -> struct{})
	life         context.Context                       // Deps.Context
}

// Deps is what the control routes work on: the daemon's live MCP
// manager and its logins (nil without MCP), its scrubber, its database.
type Deps struct {
	Sessions Sessions // the daemon's sessions
	MCP      *mcp.Manager
	Tokens   oauth.Store
	Scrub    func(string) string // nil: nothing to scrub
	DB       *store.DB
	// AgentsDir is the agents' workspace directory (config.Paths.AgentsDir),
	// where pairing approval looks for the agent a peer is bound to.
	AgentsDir string
	Log       *slog.Logger
	// Sandbox and SandboxGate are the code sandbox (nil unless
	// sandbox.enabled).
	Sandbox     *sandbox.Manager
	SandboxGate *sandbox.Gate
	// Scheduler is the running scheduler (nil unless scheduler.enabled).
	Scheduler Scheduler
	// Memory and Links serve beamclaw users: each user's own memory in
	// the agents, and the accounts linked into one person.
	Memory Memory
	Links  *people.Links
	// Clock dates exports; defaults to clock.System.
	Clock clock.Clock
	// Ledger is the usage ledger (beamclaw usage).
	Ledger *usage.Ledger
	// Workspaces are the agents' workspaces (the agent runtime's store).
	Workspaces *workspace.Store
	// Events is the live event stream (an obs backend of the daemon's bus).
	Events *Events
	// Config is the running configuration as `config show` renders it:
	// secrets only as {env: VAR} with whether each is set.
	Config func() ([]byte, error)
	// EditConfig sets (value != nil) or unsets a key of the config file
	// and returns the file's path (nil: the file cannot be edited here).
	EditConfig func(key string, value *string) (file string, err error)
	// Context is the daemon's life: work a route starts that outlives its
	// request (an MCP login waiting for its browser) ends with it.
	// Default: context.Background().
	Context context.Context
	// Skills are the agents' skill catalogs; DefaultAgent the agent a
	// request names by default.
	Skills       Skills
	DefaultAgent string
	// Health is the daemon's health, the body of the gateway's /health.
	Health func(context.Context) protocol.Health
	// A2A is the A2A edge's task store (nil: the edge is off).
	A2A A2ATasks
	// Cluster is this node's cluster (nil: cluster.enabled is false).
	Cluster Cluster
}

// Routes returns the routes the daemon serves on its control socket for
// the CLI (beamclaw mcp list|tools|accept|login|logout|call, beamclaw pair
// ..., beamclaw sandbox status|list|kill, beamclaw sessions ..., beamclaw
// scheduler ..., beamclaw db backup|check).
func Routes(d Deps) []gateway.Mount {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Scrub == nil {
		d.Scrub = func(s string) string { return s }
	}
	if d.Context == nil {
		d.Context = context.Background()
	}
	c := &handlers{sessions: d.Sessions, mcp: d.MCP, tokens: d.Tokens, scrub: d.Scrub, db: d.DB, pairing: pairing.New(d.DB, pairing.Options{}),
		agentsDir: d.AgentsDir, log: d.Log, sandbox: d.Sandbox, gate: d.SandboxGate, scheduler: d.Scheduler,
		memory: d.Memory, links: d.Links, clock: clock.Or(d.Clock), ledger: d.Ledger, workspaces: d.Workspaces, events: d.Events, config: d.Config, editConfig: d.EditConfig, life: d.Context,
		skills: d.Skills, defaultAgent: d.DefaultAgent, health: d.Health, a2a: d.A2A, cluster: d.Cluster}
	return slices.Concat(c.routes(), c.schedulerRoutes(), c.userRoutes(), c.agentRoutes())
}

func (c *handlers) routes() []gateway.Mount {
	return []gateway.Mount{
		{Method: http.MethodGet, Pattern: protocol.ControlMCP, Handler: http.HandlerFunc(c.mcpList)},
		{Method: http.MethodGet, Pattern: protocol.ControlMCPTools, Handler: http.HandlerFunc(c.mcpTools)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPAccept, Handler: http.HandlerFunc(c.mcpAccept)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPLogin, Handler: http.HandlerFunc(c.mcpLogin)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPLoginStart, Handler: http.HandlerFunc(c.mcpLoginStart)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPLogout, Handler: http.HandlerFunc(c.mcpLogout)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPCall, Handler: http.HandlerFunc(c.mcpCall)},
		{Method: http.MethodGet, Pattern: protocol.ControlPairing, Handler: http.HandlerFunc(c.pairList)},
		{Method: http.MethodPost, Pattern: protocol.ControlPairingApprove, Handler: http.HandlerFunc(c.pairApprove)},
		{Method: http.MethodPost, Pattern: protocol.ControlPairingRevoke, Handler: http.HandlerFunc(c.pairRevoke)},
		{Method: http.MethodGet, Pattern: protocol.ControlDBBackup, Handler: http.HandlerFunc(c.dbBackup)},
		{Method: http.MethodGet, Pattern: protocol.ControlDBCheck, Handler: http.HandlerFunc(c.dbCheck)},
		{Method: http.MethodGet, Pattern: protocol.ControlSessions, Handler: http.HandlerFunc(c.sessionsList)},
		{Method: http.MethodGet, Pattern: protocol.ControlUsage, Handler: http.HandlerFunc(c.usageGet)},
		{Method: http.MethodGet, Pattern: protocol.ControlEvents, Handler: http.HandlerFunc(c.eventsStream)},
		{Method: http.MethodGet, Pattern: protocol.ControlConfig, Handler: http.HandlerFunc(c.configShow)},
		{Method: http.MethodPut, Pattern: protocol.ControlConfig, Handler: http.HandlerFunc(c.configSet)},
		{Method: http.MethodDelete, Pattern: protocol.ControlConfig, Handler: http.HandlerFunc(c.configSet)},
		{Method: http.MethodGet, Pattern: protocol.ControlSkills, Handler: http.HandlerFunc(c.skillsList)},
		{Method: http.MethodGet, Pattern: protocol.ControlHealth, Handler: http.HandlerFunc(c.healthShow)},
		{Method: http.MethodGet, Pattern: protocol.ControlCluster, Handler: http.HandlerFunc(c.clusterStatus)},
		{Method: http.MethodGet, Pattern: protocol.ControlSession + "/{id}", Handler: http.HandlerFunc(c.sessionShow)},
		{Method: http.MethodDelete, Pattern: protocol.ControlSession + "/{id}", Handler: http.HandlerFunc(c.sessionDelete)},
		{Method: http.MethodGet, Pattern: protocol.ControlSession + "/{id}/export", Handler: http.HandlerFunc(c.sessionExport)},
		{Method: http.MethodPost, Pattern: protocol.ControlSession + "/{id}/reset", Handler: http.HandlerFunc(c.sessionReset)},
		{Method: http.MethodGet, Pattern: protocol.ControlApprovals, Handler: http.HandlerFunc(c.approvalsList)},
		{Method: http.MethodPost, Pattern: protocol.ControlApprovals + "/{id}", Handler: http.HandlerFunc(c.approvalDecide)},
		{Method: http.MethodGet, Pattern: protocol.ControlA2ATasks, Handler: http.HandlerFunc(c.a2aTaskList)},
		{Method: http.MethodGet, Pattern: protocol.ControlA2ATasks + "/{id}", Handler: http.HandlerFunc(c.a2aTaskShow)},
		{Method: http.MethodGet, Pattern: protocol.ControlSandbox, Handler: http.HandlerFunc(c.sandboxStatus)},
		{Method: http.MethodGet, Pattern: protocol.ControlSandboxContainers, Handler: http.HandlerFunc(c.sandboxList)},
		{Method: http.MethodPost, Pattern: protocol.ControlSandboxKill, Handler: http.HandlerFunc(c.sandboxKill)},
	}
}

// healthShow answers the daemon's health, the body of GET /health: 200
// while it answers, its readiness in the body.
func (c *handlers) healthShow(w http.ResponseWriter, r *http.Request) {
	if c.health == nil {
		writeError(w, http.StatusNotFound, "this daemon reports no health")
		return
	}
	writeJSON(w, http.StatusOK, c.health(r.Context()))
}
