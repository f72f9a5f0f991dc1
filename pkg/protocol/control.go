package protocol

import (
	"encoding/json"
	"time"
)

// Control-socket paths served by a running daemon for the CLI.
const (
	// ControlMCP answers GET with MCPList.
	ControlMCP = "/control/mcp"
	// ControlMCPTools answers GET (?server=NAME to filter) with MCPTools.
	ControlMCPTools = "/control/mcp/tools"
	// ControlMCPAccept takes an MCPAcceptRequest and answers MCPAccepted.
	ControlMCPAccept = "/control/mcp/accept"
	// ControlMCPLogin takes an MCPCredentials: the daemon stores the login
	// (sealed) and reconnects the server at once.
	ControlMCPLogin = "/control/mcp/login"
	// ControlMCPLogout takes an MCPLogoutRequest and answers 204.
	ControlMCPLogout = "/control/mcp/logout"
	// ControlMCPCall takes an MCPCallRequest and answers MCPCallResult:
	// `beamclaw mcp call` on the daemon's live connection.
	ControlMCPCall = "/control/mcp/call"
	// ControlPairing answers GET (?channel=NAME to filter) with PairingList.
	ControlPairing = "/control/pairing"
	// ControlPairingApprove takes a PairApproveRequest and answers a Peer.
	ControlPairingApprove = "/control/pairing/approve"
	// ControlPairingRevoke takes a PairRevokeRequest and answers 204.
	ControlPairingRevoke = "/control/pairing/revoke"
	// ControlDBBackup answers GET with a consistent copy of the database
	// (application/octet-stream), taken while the daemon goes on.
	ControlDBBackup = "/control/db/backup"
	// ControlDBCheck answers GET with a DBCheck of every page.
	ControlDBCheck = "/control/db/check"
	// ControlSandbox answers GET with the daemon's SandboxStatus; asking
	// also makes the daemon check again, so exec comes on at once after a
	// fix (`beamclaw sandbox build`, dockerd started).
	ControlSandbox = "/control/sandbox"
	// ControlSandboxContainers answers GET with SandboxContainers.
	ControlSandboxContainers = "/control/sandbox/containers"
	// ControlSandboxKill takes a SandboxKillRequest and answers 204.
	ControlSandboxKill = "/control/sandbox/kill"
)

// AgentFile is one workspace file of an agent.
type AgentFile struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime string `json:"mod_time"` // RFC 3339
}

// Agent describes one agent workspace.
type Agent struct {
	Name             string      `json:"name"`
	Dir              string      `json:"dir"`
	Files            []AgentFile `json:"files"`
	DailyLogs        []string    `json:"daily_logs"`
	BootstrapPending bool        `json:"bootstrap_pending"`
}

// Skill is one discovered skill and its eligibility on this machine.
type Skill struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Emoji       string   `json:"emoji,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Source      string   `json:"source"` // bundled, global or agent
	Path        string   `json:"path"`
	Eligible    bool     `json:"eligible"`
	Missing     []string `json:"missing,omitempty"`
	Flags       []string `json:"flags,omitempty"`
	Installable bool     `json:"installable"` // it declares install specs
}

// SkillCatalog is what `beamclaw skills list` shows: the skills, sorted by
// name, and the SKILL.md files that could not be loaded.
type SkillCatalog struct {
	Agent    string   `json:"agent"`
	Skills   []Skill  `json:"skills"`
	Problems []string `json:"problems,omitempty"`
}

// InstallStep is one command an install runs, as argv (no shell).
type InstallStep struct {
	Kind    string   `json:"kind"`
	Package string   `json:"package"`
	Label   string   `json:"label,omitempty"`
	Argv    []string `json:"argv"`
}

// InstallPlan is what `beamclaw skills install` will run, for consent.
type InstallPlan struct {
	Skill   string        `json:"skill"`
	Steps   []InstallStep `json:"steps"`
	Skipped []string      `json:"skipped,omitempty"`
}

// MCPServer is one configured MCP server and, when a daemon runs, its
// live state.
type MCPServer struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	State     string   `json:"state"` // starting, ready, restarting, failed, disabled, stopped, not running
	Tools     int      `json:"tools"`
	Restarts  int      `json:"restarts"`
	LastError string   `json:"last_error,omitempty"`
	Changed   []string `json:"changed,omitempty"`
	// NeedsScope is a scope a call was refused for; `mcp login` asks for it.
	NeedsScope string `json:"needs_scope,omitempty"`
}

// MCPList is the body of GET /control/mcp. Daemon is false when the list
// comes from the config file because no daemon runs.
type MCPList struct {
	Daemon  bool        `json:"daemon"`
	Servers []MCPServer `json:"servers"`
}

// MCPTool is one tool an MCP server offers.
type MCPTool struct {
	Name        string `json:"name"` // exposed name, <server>__<tool>
	Server      string `json:"server"`
	RemoteName  string `json:"remote_name"`
	Description string `json:"description"`
	Changed     bool   `json:"changed,omitempty"` // definition differs from the pinned one
	Trusted     bool   `json:"trusted,omitempty"`
}

// MCPTools is the body of GET /control/mcp/tools.
type MCPTools struct {
	Tools []MCPTool `json:"tools"`
}

// MCPAcceptRequest asks to pin the current definition of a server's tool
// (its remote or exposed name) and enable it: `beamclaw mcp accept`.
type MCPAcceptRequest struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

// MCPAccepted answers an MCPAcceptRequest: the exposed name now pinned.
type MCPAccepted struct {
	Tool string `json:"tool"`
}

// MCPCredentials hands the daemon a login made by `beamclaw mcp login`:
// Record is the OAuth record (tokens included) as JSON. It travels only
// over the control socket (mode 0600).
type MCPCredentials struct {
	Server string          `json:"server"`
	Record json.RawMessage `json:"record"`
}

// ControlMCPLoginStart answers POST (an MCPLoginStart) with an
// MCPLoginStarted: the daemon runs the server's login itself (the
// console's Log in), and the browser finishes it at AuthURL.
const ControlMCPLoginStart = "/control/mcp/login/start"

// MCPLoginStart names the server to log in to.
type MCPLoginStart struct {
	Server string `json:"server"`
}

// MCPLoginStarted is the login under way: the page to open (its redirect
// comes back to the daemon's loopback listener), or, for a grant that
// needs no browser, LoggedIn.
type MCPLoginStarted struct {
	Server   string `json:"server"`
	AuthURL  string `json:"auth_url,omitempty"`
	LoggedIn bool   `json:"logged_in,omitempty"`
}

// MCPLogoutRequest asks to forget a server's login.
type MCPLogoutRequest struct {
	Server string `json:"server"`
}

// MCPLogin is what `beamclaw mcp login` reports.
type MCPLogin struct {
	Server    string `json:"server"`
	Scope     string `json:"scope,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"` // RFC 3339; "" when the token does not expire
	Refresh   bool   `json:"refresh"`              // a refresh token was issued
	Daemon    bool   `json:"daemon"`               // handed to the running daemon
}

// Ways `beamclaw mcp call` answers a server's elicitation.
const (
	ElicitAsk      = "ask"      // on the terminal
	ElicitDefaults = "defaults" // accept with the schema's defaults
	ElicitDecline  = "decline"
)

// MCPCallRequest runs one tool of a server: `beamclaw mcp call`. Elicit
// is ElicitDefaults or ElicitDecline (a daemon has no terminal to ask on).
type MCPCallRequest struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
	Elicit string          `json:"elicit,omitempty"`
}

// MCPCallResult is one tool call's result, scrubbed.
type MCPCallResult struct {
	Server     string          `json:"server"`
	Tool       string          `json:"tool"` // exposed name
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Notes      []string        `json:"notes,omitempty"`
}

// MCPImport is the result of `beamclaw mcp import`: YAML to put under
// mcp.servers, notes for the user (variables to export, warnings), and the
// file written when asked to.
type MCPImport struct {
	Servers []string `json:"servers"`
	YAML    string   `json:"yaml"`
	Notes   []string `json:"notes,omitempty"`
	Written string   `json:"written,omitempty"`
}

// PairingRequest is a stranger waiting for approval. The code is never
// sent: the owner gets it from the person who asked.
type PairingRequest struct {
	Channel   string `json:"channel"`
	UserID    string `json:"user_id"`
	Name      string `json:"name,omitempty"`
	CreatedAt string `json:"created_at"` // RFC 3339
	ExpiresAt string `json:"expires_at"` // RFC 3339
}

// Peer is an approved user of a channel.
type Peer struct {
	Channel    string `json:"channel"`
	UserID     string `json:"user_id"`
	Name       string `json:"name,omitempty"`
	Agent      string `json:"agent,omitempty"` // "" = the channel's default agent
	ApprovedAt string `json:"approved_at"`     // RFC 3339
}

// PairingList is the body of GET /control/pairing.
type PairingList struct {
	Pending  []PairingRequest `json:"pending"`
	Approved []Peer           `json:"approved"`
}

// PairApproveRequest is the body of POST /control/pairing/approve.
type PairApproveRequest struct {
	Channel string `json:"channel"`
	Code    string `json:"code"`
	Agent   string `json:"agent,omitempty"`
}

// PairRevokeRequest is the body of POST /control/pairing/revoke.
type PairRevokeRequest struct {
	Channel string `json:"channel"`
	UserID  string `json:"user_id"`
}

// DBCheck is the result of checking every page of the database.
type DBCheck struct {
	Path    string `json:"path"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
}

// Control paths of the agents (the admin API's /api/v1/agents...).
const (
	// ControlAgents answers GET with AgentList.
	ControlAgents = "/control/agents"
	// ControlAgent + "/{name}" answers GET with an Agent; + "/{name}/files/{file}"
	// answers GET with an AgentFileContent and PUT (an AgentFileContent's
	// content) by writing the workspace file (the seven of the prompt).
	ControlAgent = "/control/agents"
)

// AgentList is the answer of GET /control/agents.
type AgentList struct {
	Agents []Agent `json:"agents"`
}

// AgentFileContent is one workspace file of an agent.
type AgentFileContent struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// ControlEvents answers GET with the live event stream as Server-Sent
// Events: each "event: <name>" with an Event as JSON data.
const ControlEvents = "/control/events"

// Event is one event of the daemon's bus (the log's event lines).
type Event struct {
	Name      string            `json:"name"`
	SessionID string            `json:"session_id,omitempty"`
	Time      time.Time         `json:"time"`
	Attrs     map[string]string `json:"attrs,omitempty"`
}

// ControlConfig answers GET with the running configuration as YAML
// (application/yaml): `beamclaw config show`'s rendering, secrets only as
// {env: VAR} with whether each is set.
const ControlConfig = "/control/config"

// ConfigSet is the body of PUT /control/config: a dotted key of the
// config file and its value as YAML text (42, true, "[a, b]", "{env: VAR}").
// DELETE /control/config?key=K unsets a key. Both answer ConfigChanged.
type ConfigSet struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ConfigChanged says what was written where; the daemon applies the file
// when it starts again.
type ConfigChanged struct {
	Key     string `json:"key"`
	File    string `json:"file"`
	Unset   bool   `json:"unset,omitempty"`
	Message string `json:"message"`
}

// ControlSkills answers GET (?agent=NAME, default the default agent) with
// the SkillCatalog that agent sees.
const ControlSkills = "/control/skills"
