package control

import (
	"net/http"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// AgentWire is an agent's workspace in its wire form.
func AgentWire(a workspace.Agent) protocol.Agent {
	out := protocol.Agent{Name: a.Name, Dir: a.Dir, BootstrapPending: a.BootstrapPending,
		Files: make([]protocol.AgentFile, 0, len(a.Files)), DailyLogs: a.DailyLogs}
	if out.DailyLogs == nil {
		out.DailyLogs = []string{}
	}
	for _, f := range a.Files {
		out.Files = append(out.Files, protocol.AgentFile{Name: f.Name, Size: f.Size,
			ModTime: f.ModTime.UTC().Format(time.RFC3339)})
	}
	return out
}

func (c *handlers) agentRoutes() []gateway.Mount {
	return []gateway.Mount{
		{Method: http.MethodGet, Pattern: protocol.ControlAgents, Handler: http.HandlerFunc(c.agentsList)},
		{Method: http.MethodGet, Pattern: protocol.ControlAgent + "/{name}", Handler: http.HandlerFunc(c.agentShow)},
		{Method: http.MethodGet, Pattern: protocol.ControlAgent + "/{name}/files/{file}", Handler: http.HandlerFunc(c.agentFileRead)},
		{Method: http.MethodPut, Pattern: protocol.ControlAgent + "/{name}/files/{file}", Handler: http.HandlerFunc(c.agentFileWrite)},
	}
}

// agentPath is the {name} and {file} of an /control/agents route.
func agentPath(r *http.Request) (name, file string) {
	rest := strings.TrimPrefix(r.URL.Path, protocol.ControlAgent+"/")
	name, rest, _ = strings.Cut(rest, "/")
	_, file, _ = strings.Cut(rest, "/") // "files/{file}"
	return name, file
}

func (c *handlers) workspacesReady(w http.ResponseWriter) bool {
	if c.workspaces == nil {
		writeError(w, http.StatusNotFound, "this daemon serves no agents")
		return false
	}
	return true
}

func (c *handlers) agentsList(w http.ResponseWriter, _ *http.Request) {
	if !c.workspacesReady(w) {
		return
	}
	list, err := c.workspaces.List()
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	out := protocol.AgentList{Agents: make([]protocol.Agent, 0, len(list))}
	for _, a := range list {
		out.Agents = append(out.Agents, AgentWire(a))
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *handlers) agentShow(w http.ResponseWriter, r *http.Request) {
	if !c.workspacesReady(w) {
		return
	}
	name, _ := agentPath(r)
	a, err := c.workspaces.Get(name)
	if err != nil {
		writeError(w, agentStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, AgentWire(a))
}

func (c *handlers) agentFileRead(w http.ResponseWriter, r *http.Request) {
	if !c.workspacesReady(w) {
		return
	}
	name, file := agentPath(r)
	text, err := c.workspaces.ReadOperatorFile(name, file)
	if err != nil {
		writeError(w, agentStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, protocol.AgentFileContent{Name: file, Content: c.scrub(text)})
}

// agentFileWrite replaces one of the seven workspace files or
// HEARTBEAT.md (the file tools' confinement: the name is one of them, the
// path is the agent's).
func (c *handlers) agentFileWrite(w http.ResponseWriter, r *http.Request) {
	var in protocol.AgentFileContent
	if !c.workspacesReady(w) || !decodeBody(w, r, &in) {
		return
	}
	name, file := agentPath(r)
	if err := c.workspaces.WriteOperatorFile(name, file, in.Content); err != nil {
		writeError(w, agentStatus(err), beamclaw.UserMessage(err))
		return
	}
	c.log.Info("agent file written", "agent", name, "file", file)
	writeJSON(w, http.StatusOK, protocol.AgentFileContent{Name: file, Content: in.Content})
}

// agentStatus maps a workspace error to its status.
func agentStatus(err error) int {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindInvalid:
		return http.StatusBadRequest
	case beamclaw.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return kindStatus(err)
}
