package console

import (
	"bytes"
	"cmp"
	"net/http"
	"net/url"
	"slices"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// pageRoutes are the signed-in pages and their actions, handed to add
// as "METHOD /path" below Prefix.
func (c *Console) pageRoutes(add func(pattern string, h http.HandlerFunc)) {
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /{$}":                         c.chat,
		"GET /chat":                        c.chat,
		"POST /logout":                     c.signOut,
		"GET /sessions":                    c.sessions,
		"GET /sessions/{id}":               c.session,
		"GET /sessions/{id}/export":        c.sessionExport,
		"POST /sessions/{id}/reset":        c.sessionReset,
		"POST /sessions/{id}/delete":       c.sessionDelete,
		"GET /approvals":                   c.approvals,
		"POST /approvals/{id}":             c.approvalAnswer,
		"GET /agents":                      c.agents,
		"GET /agents/{name}":               c.agent,
		"GET /agents/{name}/files/{file}":  c.agentFile,
		"POST /agents/{name}/files/{file}": c.agentFileSave,
		"GET /skills":                      c.skills,
		"GET /mcp":                         c.mcp,
		"POST /mcp/{name}/login":           c.mcpLogin,
		"GET /jobs":                        c.jobs,
		"POST /jobs":                       c.jobAdd,
		"GET /jobs/{id}/runs":              c.jobRuns,
		"POST /jobs/{id}/{action}":         c.jobAction,
		"GET /sandboxes":                   c.sandboxes,
		"POST /sandboxes/kill":             c.sandboxKill,
		"GET /usage":                       c.usage,
		"GET /events":                      c.events,
		"GET /events/stream":               c.eventStream,
		"GET /config":                      c.config,
		"POST /config":                     c.configEdit,
	} {
		add(pattern, h)
	}
}

// show renders page name with what get read from the API at path (q its
// query), or the API's refusal.
func (c *Console) show(w http.ResponseWriter, r *http.Request, name, title, path string, q url.Values, out any) {
	if err := c.get(r.Context(), path, q, out); err != nil {
		c.render(w, r, statusOf(err), name, page{Title: title, Error: err.Error()})
		return
	}
	c.render(w, r, http.StatusOK, name, page{Title: title, Data: out})
}

// chatData is the chat page's: the agents to pick from.
type chatData struct {
	Agents []string
	Picked string
}

func (c *Console) chat(w http.ResponseWriter, r *http.Request) {
	var list protocol.AgentList
	err := c.get(r.Context(), protocol.ControlAgents, nil, &list)
	d := chatData{Picked: r.URL.Query().Get("agent")}
	for _, a := range list.Agents {
		d.Agents = append(d.Agents, a.Name)
	}
	if d.Picked == "" || !slices.Contains(d.Agents, d.Picked) {
		d.Picked = c.opts.DefaultAgent
	}
	p := page{Title: "Chat", Nav: "chat", Data: d}
	if err != nil {
		p.Error = err.Error()
	}
	c.render(w, r, http.StatusOK, "chat", p)
}

// sessionsData is the sessions page's: the list and the filters.
type sessionsData struct {
	List   protocol.SessionList
	Agent  string
	State  string
	Search string
	Query  string // the filters, for the next page's link
}

func (c *Console) sessions(w http.ResponseWriter, r *http.Request) {
	in := r.URL.Query()
	q := url.Values{"limit": {"50"}}
	for _, k := range []string{"agent", "state", "q", "cursor", "user", "channel"} {
		if v := in.Get(k); v != "" {
			q.Set(k, v)
		}
	}
	if q.Get("state") == "archived" {
		q.Set("archived", "1")
	}
	d := sessionsData{Agent: in.Get("agent"), State: in.Get("state"), Search: in.Get("q")}
	keep := url.Values{}
	for _, k := range []string{"agent", "state", "q"} {
		if v := in.Get(k); v != "" {
			keep.Set(k, v)
		}
	}
	d.Query = keep.Encode()
	if err := c.get(r.Context(), protocol.ControlSessions, q, &d.List); err != nil {
		c.render(w, r, statusOf(err), "sessions", page{Title: "Sessions", Error: err.Error(), Data: d})
		return
	}
	c.render(w, r, http.StatusOK, "sessions", page{Title: "Sessions", Data: d})
}

func (c *Console) session(w http.ResponseWriter, r *http.Request) {
	var d protocol.SessionDetail
	c.show(w, r, "session", "Session", protocol.ControlSession+"/"+url.PathEscape(r.PathValue("id")), nil, &d)
}

func (c *Console) sessionExport(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format != "json" {
		format = "markdown"
	}
	c.pass(w, r, protocol.ControlSession+"/"+url.PathEscape(r.PathValue("id"))+"/export", url.Values{"format": {format}})
}

func (c *Console) agents(w http.ResponseWriter, r *http.Request) {
	var d protocol.AgentList
	c.show(w, r, "agents", "Agents", protocol.ControlAgents, nil, &d)
}

func (c *Console) agent(w http.ResponseWriter, r *http.Request) {
	var d protocol.Agent
	c.show(w, r, "agent", "Agent", protocol.ControlAgent+"/"+url.PathEscape(r.PathValue("name")), nil, &d)
}

// fileData is the editor's: the agent and its file.
type fileData struct {
	Agent string
	File  protocol.AgentFileContent
}

func (c *Console) agentFile(w http.ResponseWriter, r *http.Request) {
	name, file := r.PathValue("name"), r.PathValue("file")
	d := fileData{Agent: name}
	err := c.get(r.Context(), filePath(name, file), nil, &d.File)
	if statusOf(err) == http.StatusNotFound && file == "HEARTBEAT.md" { // not written yet: start one
		d.File = protocol.AgentFileContent{Name: file}
		c.render(w, r, http.StatusOK, "file", page{Title: file, Nav: "agents", Notice: "No HEARTBEAT.md yet: what you save here is what each heartbeat works through.", Data: d})
		return
	}
	if err != nil {
		c.render(w, r, statusOf(err), "file", page{Title: file, Nav: "agents", Error: err.Error(), Data: d})
		return
	}
	c.render(w, r, http.StatusOK, "file", page{Title: file, Nav: "agents", Data: d})
}

func filePath(agent, file string) string {
	return protocol.ControlAgent + "/" + url.PathEscape(agent) + "/files/" + url.PathEscape(file)
}

func (c *Console) skills(w http.ResponseWriter, r *http.Request) {
	var d protocol.SkillCatalog
	q := url.Values{}
	if a := r.URL.Query().Get("agent"); a != "" {
		q.Set("agent", a)
	}
	c.show(w, r, "skills", "Skills", protocol.ControlSkills, q, &d)
}

func (c *Console) mcp(w http.ResponseWriter, r *http.Request) {
	var d protocol.MCPList
	c.show(w, r, "mcp", "MCP servers", protocol.ControlMCP, nil, &d)
}

// mcpLogin starts a server's login in the daemon and shows the page that
// finishes it in the browser.
func (c *Console) mcpLogin(w http.ResponseWriter, r *http.Request) {
	var started protocol.MCPLoginStarted
	if err := c.call(r.Context(), http.MethodPost, protocol.ControlMCPLoginStart, protocol.MCPLoginStart{Server: r.PathValue("name")}, &started); err != nil {
		c.fail(w, r, statusOf(err), err.Error())
		return
	}
	c.part(w, r, "mcp", "loginstarted", started)
}

func (c *Console) sandboxes(w http.ResponseWriter, r *http.Request) {
	var d sandboxData
	ctx := r.Context()
	err := c.get(ctx, protocol.ControlSandbox, nil, &d.Status)
	if err == nil {
		err = c.get(ctx, protocol.ControlSandboxContainers, nil, &d.List)
	}
	p := page{Title: "Sandboxes", Data: d}
	if err != nil {
		p.Error = err.Error()
	}
	c.render(w, r, http.StatusOK, "sandboxes", p)
}

// sandboxData is the sandboxes page's.
type sandboxData struct {
	Status protocol.SandboxStatus
	List   protocol.SandboxContainers
}

// usageData is the usage page's: per agent and per day.
type usageData struct {
	Agents, Days protocol.UsageReport
}

func (c *Console) usage(w http.ResponseWriter, r *http.Request) {
	var d usageData
	ctx := r.Context()
	err := c.get(ctx, protocol.ControlUsage, url.Values{"by": {"agent"}}, &d.Agents)
	if err == nil {
		err = c.get(ctx, protocol.ControlUsage, url.Values{"by": {"day"}}, &d.Days)
	}
	p := page{Title: "Usage", Data: d}
	if err != nil {
		p.Error = err.Error()
	}
	c.render(w, r, http.StatusOK, "usage", p)
}

func (c *Console) events(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "events", page{Title: "Live events"})
}

// eventStream passes the API's event stream on as plain messages (its
// "event: <name>" lines dropped: the name is in each event's JSON too),
// which a browser's EventSource delivers to one handler.
func (c *Console) eventStream(w http.ResponseWriter, r *http.Request) {
	c.pass(unnamed{w}, r, protocol.ControlEvents, nil)
}

// unnamed drops the "event: " line starting a write (the stream writes
// one event per write).
type unnamed struct{ http.ResponseWriter }

func (u unnamed) Write(b []byte) (int, error) {
	n := len(b)
	if bytes.HasPrefix(b, []byte("event: ")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	if _, err := u.ResponseWriter.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (u unnamed) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// configData is the configuration page's: the YAML.
type configData struct{ YAML, Key, Value string }

func (c *Console) config(w http.ResponseWriter, r *http.Request) {
	yaml, status := c.configYAML(r)
	if status != http.StatusOK {
		c.render(w, r, status, "config", page{Title: "Configuration", Error: "the configuration cannot be shown"})
		return
	}
	c.render(w, r, http.StatusOK, "config", page{Title: "Configuration", Data: configData{YAML: yaml}})
}

// configYAML is the running configuration as the API renders it (YAML,
// not JSON: read straight from its handler), and the API's status.
func (c *Console) configYAML(r *http.Request) (string, int) {
	rec := &recorder{header: http.Header{}}
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, protocol.ControlConfig, http.NoBody)
	c.opts.API.ServeHTTP(rec, req)
	return rec.body.String(), cmp.Or(rec.status, http.StatusOK)
}

// configEdit sets or unsets a key of the config file (the form's action)
// and shows the page again with what happened.
func (c *Console) configEdit(w http.ResponseWriter, r *http.Request) {
	key := r.PostFormValue("key")
	var err error
	var done protocol.ConfigChanged
	if r.PostFormValue("action") == "unset" {
		err = c.call(r.Context(), http.MethodDelete, protocol.ControlConfig+"?key="+url.QueryEscape(key), nil, &done)
	} else {
		err = c.call(r.Context(), http.MethodPut, protocol.ControlConfig, protocol.ConfigSet{Key: key, Value: r.PostFormValue("value")}, &done)
	}
	yaml, _ := c.configYAML(r)
	p := page{Title: "Configuration", Data: configData{YAML: yaml, Key: key, Value: r.PostFormValue("value")}}
	status := http.StatusOK
	if err != nil {
		p.Error, status = err.Error(), statusOf(err)
	} else {
		p.Notice = done.Message
	}
	c.render(w, r, status, "config", p)
}
