package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// done answers a change by sending the browser to back: htmx follows
// HX-Redirect, a plain form the 303.
func (c *Console) done(w http.ResponseWriter, r *http.Request, back string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", back)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// change runs one API change and answers it (done), or shows the API's
// refusal.
func (c *Console) change(w http.ResponseWriter, r *http.Request, method, path string, body any, back string) {
	if err := c.call(r.Context(), method, path, body, nil); err != nil {
		c.fail(w, r, statusOf(err), err.Error())
		return
	}
	c.done(w, r, back)
}

func (c *Console) sessionReset(w http.ResponseWriter, r *http.Request) {
	id := url.PathEscape(r.PathValue("id"))
	c.change(w, r, http.MethodPost, protocol.ControlSession+"/"+id+"/reset", nil, Prefix+"/sessions/"+id)
}

func (c *Console) sessionDelete(w http.ResponseWriter, r *http.Request) {
	id := url.PathEscape(r.PathValue("id"))
	c.change(w, r, http.MethodDelete, protocol.ControlSession+"/"+id, nil, Prefix+"/sessions")
}

func (c *Console) agentFileSave(w http.ResponseWriter, r *http.Request) {
	name, file := r.PathValue("name"), r.PathValue("file")
	body := protocol.AgentFileContent{Name: file, Content: strings.ReplaceAll(r.PostFormValue("content"), "\r\n", "\n")}
	if err := c.call(r.Context(), http.MethodPut, filePath(name, file), body, nil); err != nil {
		c.render(w, r, statusOf(err), "file", page{Title: file, Nav: "agents", Error: err.Error(),
			Data: fileData{Agent: name, File: body}})
		return
	}
	c.render(w, r, http.StatusOK, "file", page{Title: file, Nav: "agents", Notice: "Saved.",
		Data: fileData{Agent: name, File: body}})
}

// jobsData is the jobs page's.
type jobsData struct {
	List   protocol.SchedJobList
	Agents []string
}

func (c *Console) jobs(w http.ResponseWriter, r *http.Request) {
	var d jobsData
	err := c.get(r.Context(), protocol.ControlScheduler, url.Values{"all": {"1"}}, &d.List)
	var agents protocol.AgentList
	if err == nil {
		err = c.get(r.Context(), protocol.ControlAgents, nil, &agents)
	}
	for _, a := range agents.Agents {
		d.Agents = append(d.Agents, a.Name)
	}
	p := page{Title: "Jobs and heartbeats", Nav: "jobs", Data: d}
	if err != nil {
		p.Error = err.Error()
	}
	c.render(w, r, http.StatusOK, "jobs", p)
}

func (c *Console) jobAdd(w http.ResponseWriter, r *http.Request) {
	add := protocol.SchedAdd{Agent: r.PostFormValue("agent"), User: r.PostFormValue("user"),
		Schedule: r.PostFormValue("schedule"), Prompt: r.PostFormValue("prompt"), Deliver: r.PostFormValue("deliver")}
	if add.Deliver == "" {
		add.Deliver = "silent"
	}
	if add.User == "" {
		add.User = "console"
	}
	c.change(w, r, http.MethodPost, protocol.ControlScheduler, add, Prefix+"/jobs")
}

func (c *Console) jobAction(w http.ResponseWriter, r *http.Request) {
	id, action := url.PathEscape(r.PathValue("id")), r.PathValue("action")
	path := protocol.ControlSchedJob + "/" + id
	switch action {
	case "pause", "resume":
		var j protocol.SchedJob
		if err := c.call(r.Context(), http.MethodPost, path+"/"+action, nil, &j); err != nil {
			c.fail(w, r, statusOf(err), err.Error())
			return
		}
		c.part(w, r, "jobs", "jobrow", j) // the job's row, drawn again in place
	case "cancel":
		c.change(w, r, http.MethodDelete, path, nil, Prefix+"/jobs")
	default:
		c.fail(w, r, http.StatusNotFound, "no such action")
	}
}

// runsData is a job's runs page's.
type runsData struct {
	Job  string
	List protocol.SchedRunList
}

func (c *Console) jobRuns(w http.ResponseWriter, r *http.Request) {
	d := runsData{Job: r.PathValue("id")}
	if err := c.get(r.Context(), protocol.ControlSchedJob+"/"+url.PathEscape(d.Job)+"/runs", nil, &d.List); err != nil {
		c.render(w, r, statusOf(err), "runs", page{Title: "Runs", Nav: "jobs", Error: err.Error(), Data: d})
		return
	}
	c.render(w, r, http.StatusOK, "runs", page{Title: "Runs", Nav: "jobs", Data: d})
}

func (c *Console) sandboxKill(w http.ResponseWriter, r *http.Request) {
	c.change(w, r, http.MethodPost, protocol.ControlSandboxKill,
		protocol.SandboxKillRequest{Container: r.PostFormValue("container")}, Prefix+"/sandboxes")
}
