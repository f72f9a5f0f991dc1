package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestAdminAPI (issue 26, item 1): the control API's routes on the TCP
// gateway under /api/v1, behind the gateway's bearer token: refused
// without it, the same answers as the control socket with it, errors in
// one JSON shape, an OpenAPI 3.1 document of them; no database backup;
// and no /api/v1 at all when no token is configured. The gaps it filled
// (health, approvals across sessions, a session's export and reset, A2A
// tasks) are driven in adminAPIGaps.
func TestAdminAPI(t *testing.T) {
	token := strings.Repeat("adm1n", 8)
	r := newChatRig(t, rigOptions{gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n  rate_limit: {requests: 100000}\n"})
	r.h.env = append(r.h.env, "E2E_GATEWAY_TOKEN="+token)
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	call := func(method, path, tok string, body string) (int, string) {
		t.Helper()
		code, body, _ := r.adminCall(method, path, tok, body)
		return code, body
	}
	if code, body := call(http.MethodGet, "/api/v1/sessions", "", ""); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s", code, body)
	}
	r.everyRouteNeedsTheToken(token)
	if code, body := r.postWith(token, "ana", "hello admin"); code != http.StatusOK {
		t.Fatalf("chat: %d %s", code, body)
	}
	code, body := call(http.MethodGet, "/api/v1/sessions", token, "")
	var list protocol.SessionList
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Sessions) != 1 || list.Sessions[0].User != "api:ana" {
		t.Fatalf("sessions: %d %s", code, body)
	}
	id := list.Sessions[0].ID
	if code, body := call(http.MethodGet, "/api/v1/sessions/"+id, token, ""); code != http.StatusOK || !strings.Contains(body, "hello admin") {
		t.Errorf("one session: %d %s", code, body)
	}
	var e protocol.Error
	if code, body := call(http.MethodPost, "/api/v1/users/link", token, "{not json"); code != http.StatusBadRequest ||
		json.Unmarshal([]byte(body), &e) != nil || e.Error.Message == "" {
		t.Errorf("bad input: %d %s, want 400 in the error shape", code, body)
	}
	if code, _ := call(http.MethodGet, "/api/v1/db/backup", token, ""); code != http.StatusNotFound {
		t.Errorf("the database backup on the public door: %d", code)
	}
	code, body = call(http.MethodGet, "/api/v1/openapi.json", token, "")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &doc) != nil || doc.OpenAPI != "3.1.0" ||
		doc.Paths["/api/v1/sessions/{id}"]["delete"] == nil {
		t.Errorf("openapi.json: %d %.300s", code, body)
	}
	// The live event stream: a turn's events arrive as Server-Sent Events.
	sse, err := http.NewRequest(http.MethodGet, "http://"+r.addr+"/api/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	sse.Header.Set("Authorization", "Bearer "+token)
	stream, err := (&http.Client{}).Do(sse)
	if err != nil || stream.StatusCode != http.StatusOK || stream.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %v %+v", err, stream)
	}
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	if code, body := r.postWith(token, "ed", "stream me"); code != http.StatusOK {
		t.Fatalf("chat: %d %s", code, body)
	}
	got := false
	for deadline := time.After(10 * time.Second); !got; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the event stream ended")
			}
			got = l == "event: turn_complete"
		case <-deadline:
			t.Fatal("no turn_complete event on the stream")
		}
	}
	stream.Body.Close()
	for range lines { // the reader ends with the body
	}

	// Skills: the default agent's catalog; an agent name that cannot be is a 4xx.
	if code, body := call(http.MethodGet, "/api/v1/skills", token, ""); code != http.StatusOK || !strings.Contains(body, `"daily-review"`) {
		t.Errorf("skills: %d %.200s", code, body)
	}
	if code, _ := call(http.MethodGet, "/api/v1/skills?agent=..%2Fetc", token, ""); code != http.StatusBadRequest {
		t.Errorf("skills of a bad agent name: %d, want 400", code)
	}

	// The running configuration: secrets as {env: VAR}, never a value.
	if code, body := call(http.MethodGet, "/api/v1/config", token, ""); code != http.StatusOK ||
		!strings.Contains(body, "E2E_GATEWAY_TOKEN") || strings.Contains(body, token) {
		t.Errorf("config: %d %.300s", code, body)
	}

	// Paging: three sessions two at a time, newest first, each once.
	for _, u := range []string{"cy", "di"} { // (ed's session is newer still)
		if code, body := r.postWith(token, u, "hello from "+u); code != http.StatusOK {
			t.Fatalf("chat: %d %s", code, body)
		}
	}
	var seen []string
	cursor := ""
	for range 4 {
		code, body := call(http.MethodGet, "/api/v1/sessions?limit=2&channel=http&cursor="+cursor, token, "")
		var page protocol.SessionList
		if code != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("page: %d %s", code, body)
		}
		for _, s := range page.Sessions {
			seen = append(seen, s.User)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(seen, ",") != "api:di,api:cy,api:ed,api:ana" {
		t.Errorf("pages gave %v, want di, cy, ed, ana", seen)
	}
	if code, _ := call(http.MethodGet, "/api/v1/sessions?state=sleepy", token, ""); code != http.StatusBadRequest {
		t.Errorf("a bad state: %d, want 400", code)
	}

	// Agents and their workspace files: a SOUL.md written here is the
	// next turn's prompt; nothing but the seven files can be named.
	if code, body := call(http.MethodGet, "/api/v1/agents", token, ""); code != http.StatusOK || !strings.Contains(body, `"name":"default"`) {
		t.Errorf("agents: %d %.200s", code, body)
	}
	soul := `{"content":"You answer like a lighthouse keeper."}`
	if code, body := call(http.MethodPut, "/api/v1/agents/default/files/SOUL.md", token, soul); code != http.StatusOK {
		t.Errorf("write SOUL.md: %d %s", code, body)
	}
	if code, body := call(http.MethodGet, "/api/v1/agents/default/files/SOUL.md", token, ""); code != http.StatusOK || !strings.Contains(body, "lighthouse keeper") {
		t.Errorf("read SOUL.md: %d %s", code, body)
	}
	if code, body := r.postWith(token, "bo", "who are you?"); code != http.StatusOK {
		t.Fatalf("chat: %d %s", code, body)
	}
	if sys := llmLast(t, r.llm).Messages[0].Content; !strings.Contains(sys, "lighthouse keeper") {
		t.Error("the written SOUL.md is not in the next prompt")
	}
	hb := `{"content":"- [ ] water the plants"}`
	if code, body := call(http.MethodPut, "/api/v1/agents/default/files/HEARTBEAT.md", token, hb); code != http.StatusOK {
		t.Errorf("write HEARTBEAT.md: %d %s", code, body)
	}
	if b, err := os.ReadFile(filepath.Join(r.h.dir, "agents", "default", "HEARTBEAT.md")); err != nil || !strings.Contains(string(b), "water the plants") {
		t.Errorf("HEARTBEAT.md on disk: %q %v", b, err)
	}
	if code, body := call(http.MethodGet, "/api/v1/agents/default", token, ""); code != http.StatusOK || !strings.Contains(body, `"HEARTBEAT.md"`) {
		t.Errorf("the agent's files do not list HEARTBEAT.md: %d %s", code, body)
	}
	for _, bad := range []string{"/api/v1/agents/default/files/secrets.txt", "/api/v1/agents/default/files/..%2F..%2Fconfig.yaml"} {
		if code, body := call(http.MethodPut, bad, token, soul); code < 400 || code >= 500 {
			t.Errorf("PUT %s: %d %s, want a 4xx", bad, code, body)
		}
	}
	r.adminAPIGaps(token, id)
	r.adminConfigEdit(token)

	if code, body := call(http.MethodDelete, "/api/v1/sessions/"+id, token, ""); code != http.StatusNoContent {
		t.Errorf("delete: %d %s", code, body)
	}
	for _, s := range r.h.sessions("--archived") {
		if s.ID == id {
			t.Error("the session outlived its DELETE")
		}
	}

	plain := newChatRig(t, rigOptions{})
	plain.start()
	if code, _ := get(t, "http://"+plain.addr+"/api/v1/sessions"); code != http.StatusNotFound {
		t.Errorf("without a configured token /api/v1 answered %d, want 404 (not mounted)", code)
	}
}

// adminCall sends method path to the admin API (with the bearer token
// when tok is not "") and answers the status, body and headers.
func (r *chatRig) adminCall(method, path, tok, body string) (int, string, http.Header) {
	r.t.Helper()
	req, _ := http.NewRequest(method, "http://"+r.addr+path, bytes.NewReader([]byte(body)))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// adminGet decodes the 200 answer of GET path into v.
func (r *chatRig) adminGet(token, path string, v any) {
	r.t.Helper()
	code, body, _ := r.adminCall(http.MethodGet, path, token, "")
	if code != http.StatusOK || json.Unmarshal([]byte(body), v) != nil {
		r.t.Fatalf("GET %s: %d %.300s", path, code, body)
	}
}

// adminAPIGaps drives the routes issue 26 added to the admin API through
// the real binary: the daemon's health; the approvals waiting across
// sessions, the terminal's answered here and another person's refused;
// session id's export and reset (and beamclaw sessions reset); the A2A
// tasks of every caller.
func (r *chatRig) adminAPIGaps(token, id string) {
	t := r.t
	var h protocol.Health
	r.adminGet(token, "/api/v1/health", &h)
	if (h.Status != "ok" && h.Status != "degraded") || h.Version == "" || len(h.Subsystems) == 0 {
		t.Errorf("health: %+v", h)
	}

	// Approvals: the terminal's (local:ana) and erin's over /ws.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	term := r.localConn("ana")
	if _, err := term.Send(ctx, `call tool write_file {"path":"approved.txt","content":"from the admin API"}`); err != nil {
		t.Fatal(err)
	}
	asked := frameOf(t, term, protocol.FrameApprovalRequest)
	wc := client.NewTCP("http://"+r.addr, token)
	defer wc.Close()
	erin, err := wc.Dial(ctx, "default", client.DialOptions{User: "erin"})
	if err != nil {
		t.Fatal(err)
	}
	defer erin.Close()
	if _, err := erin.Send(ctx, `call tool write_file {"path":"erin.txt","content":"hers"}`); err != nil {
		t.Fatal(err)
	}
	frameOf(t, erin, protocol.FrameApprovalRequest)
	var list protocol.ApprovalList
	r.adminGet(token, "/api/v1/approvals", &list)
	var mine, hers protocol.PendingApproval
	for _, a := range list.Approvals {
		switch a.User {
		case "local:ana":
			mine = a
		case "ws:erin":
			hers = a
		}
	}
	if mine.ID != asked.Approval.ID || mine.Channel != "tui" || !mine.Answerable || mine.Tool != "write_file" ||
		!strings.Contains(mine.Args, "approved.txt") || hers.ID == "" || hers.Channel != "ws" || hers.Answerable {
		t.Fatalf("approvals: %+v", list)
	}
	answer := func(a protocol.PendingApproval, decision string) (int, string) {
		code, body, _ := r.adminCall(http.MethodPost, "/api/v1/approvals/"+a.ID, token,
			`{"session":"`+a.Session+`","decision":"`+decision+`"}`)
		return code, body
	}
	if code, body := answer(hers, "yes"); code != http.StatusForbidden || !strings.Contains(body, `"error"`) {
		t.Errorf("erin's approval answered through the admin API: %d %s, want 403", code, body)
	}
	if code, body := answer(mine, "perhaps"); code != http.StatusBadRequest {
		t.Errorf("a bad decision: %d %s, want 400", code, body)
	}
	if code, body := answer(protocol.PendingApproval{ID: "appr-nope", Session: mine.Session}, "yes"); code != http.StatusNotFound {
		t.Errorf("an unknown approval: %d %s, want 404", code, body)
	}
	if code, body := answer(mine, "yes"); code != http.StatusOK || !strings.Contains(body, `"decision":"allow"`) {
		t.Fatalf("the terminal's approval: %d %s", code, body)
	}
	frameOf(t, term, protocol.FrameFinal)
	if b, err := os.ReadFile(filepath.Join(r.h.dir, "agents", "default", "approved.txt")); err != nil || string(b) != "from the admin API" {
		t.Errorf("the approved tool's file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(r.h.dir, "agents", "default", "erin.txt")); err == nil {
		t.Error("erin's tool ran without her answer")
	}
	r.adminGet(token, "/api/v1/approvals", &list)
	if len(list.Approvals) != 1 || list.Approvals[0].ID != hers.ID {
		t.Errorf("left waiting: %+v", list)
	}

	// A session's export (a download named for it) and reset.
	code, body, hdr := r.adminCall(http.MethodGet, "/api/v1/sessions/"+id+"/export?format=markdown", token, "")
	if code != http.StatusOK || !strings.Contains(body, "## You\n\nhello admin") ||
		hdr.Get("Content-Disposition") != "attachment; filename=beamclaw-"+id+".md" {
		t.Errorf("markdown export: %d %v %.300s", code, hdr, body)
	}
	var d protocol.SessionDetail
	r.adminGet(token, "/api/v1/sessions/"+id+"/export?format=json", &d)
	if d.Session.ID != id || len(d.Messages) == 0 {
		t.Errorf("JSON export: %+v", d)
	}
	if code, _, _ := r.adminCall(http.MethodGet, "/api/v1/sessions/"+id+"/export?format=docx", token, ""); code != http.StatusBadRequest {
		t.Errorf("an export as docx: %d, want 400", code)
	}
	if code, body, _ := r.adminCall(http.MethodPost, "/api/v1/sessions/"+id+"/reset", token, ""); code != http.StatusOK ||
		json.Unmarshal([]byte(body), &d) != nil || len(d.Messages) != 0 {
		t.Errorf("reset: %d %s", code, body)
	}
	if out := r.h.must("sessions", "reset", "-y", id[len("session-"):][:12]).stdout; !strings.Contains(out, "reset "+id) {
		t.Errorf("beamclaw sessions reset: %q", out)
	}
	if code, _, _ := r.adminCall(http.MethodPost, "/api/v1/sessions/session-nope/reset", token, ""); code != http.StatusNotFound {
		t.Errorf("reset of no session: %d, want 404", code)
	}

	// A2A tasks: the gateway token's caller's task, listed and read.
	task := a2aSend(t, r.a2aClient(token), a2aMsg("hello over a2a"))
	var tasks protocol.A2ATaskList
	r.adminGet(token, "/api/v1/a2a/tasks?agent=default&state=completed&limit=10", &tasks)
	if len(tasks.Tasks) != 1 || tasks.Tasks[0].ID != string(task.ID) || tasks.Tasks[0].State != "completed" {
		t.Errorf("a2a tasks: %+v", tasks)
	}
	var one protocol.A2ATask
	r.adminGet(token, "/api/v1/a2a/tasks/"+string(task.ID), &one)
	if len(one.History) == 0 || one.History[0].Text != "hello over a2a" || one.Caller == "" {
		t.Errorf("a2a task: %+v", one)
	}
	if code, _, _ := r.adminCall(http.MethodGet, "/api/v1/a2a/tasks?state=sleepy", token, ""); code != http.StatusBadRequest {
		t.Errorf("a2a tasks in a bad state: %d, want 400", code)
	}
	if code, _, _ := r.adminCall(http.MethodGet, "/api/v1/a2a/tasks/no-such-task", token, ""); code != http.StatusNotFound {
		t.Errorf("an unknown a2a task: %d, want 404", code)
	}
}

// postWith is post with the gateway's bearer token.
func (r *chatRig) postWith(token, user, content string) (int, string) {
	r.t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "default", "user": user,
		"messages": []map[string]string{{"role": "user", "content": content}}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// adminConfigEdit: PUT /api/v1/config sets a key in the config file (a
// bad value or a literal secret writes nothing and says why, 400), the
// daemon applies it when it starts again; DELETE unsets it; beamclaw
// config set|unset edits the same file without the API.
func (r *chatRig) adminConfigEdit(token string) {
	t := r.t
	t.Helper()
	file := filepath.Join(r.h.dir, "config.yaml")
	before, _ := os.ReadFile(file)
	for bad, want := range map[string]int{
		`{"key":"gateway.rate_limit.requests","value":"0"}`: http.StatusBadRequest, // out of range
		`{"key":"gateway.rate_limit.nope","value":"1"}`:     http.StatusBadRequest, // unknown
		`{"value":"1"}`: http.StatusBadRequest, `{`: http.StatusBadRequest,
		// what would run a program, send a secret away or widen access
		`{"key":"mcp.servers","value":"[{name: x, command: /bin/sh}]"}`:            http.StatusForbidden,
		`{"key":"core.providers.fake.base_url","value":"https://evil.example/v1"}`: http.StatusForbidden,
		`{"key":"gateway.auth.token","value":"{env: OTHER}"}`:                      http.StatusForbidden,
		`{"key":"core.autonomy_level","value":"full"}`:                             http.StatusForbidden,
	} {
		if code, body, _ := r.adminCall(http.MethodPut, "/api/v1/config", token, bad); code != want || !strings.Contains(body, `"error"`) {
			t.Errorf("PUT config %s: %d %s, want %d in the error shape", bad, code, body, want)
		}
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Fatalf("a refused config change was written:\n%s", after)
	}
	if code, body, _ := r.adminCall(http.MethodPut, "/api/v1/config", token, `{"key":"gateway.rate_limit.requests","value":"777"}`); code != http.StatusOK || !strings.Contains(body, "restart") {
		t.Fatalf("PUT config: %d %s", code, body)
	}
	r.h.must("stop")
	r.start()
	if _, body, _ := r.adminCall(http.MethodGet, "/api/v1/config", token, ""); !strings.Contains(body, "requests: 777") {
		t.Errorf("the key set through the API is not in the restarted daemon's config:\n%.600s", body)
	}
	if code, body, _ := r.adminCall(http.MethodDelete, "/api/v1/config?key=gateway.rate_limit.requests", token, ""); code != http.StatusOK {
		t.Errorf("DELETE config: %d %s", code, body)
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "777") {
		t.Errorf("the unset key is still in the file:\n%s", b)
	}
	r.h.must("config", "set", "gateway.console.session_hours", "24")
	if res := r.h.run("config", "set", "gateway.console.session_hours", "0"); res.code == 0 || !strings.Contains(res.stderr, "session_hours") {
		t.Errorf("config set of a bad value: exit %d %s", res.code, res.stderr)
	}
	r.h.must("config", "unset", "gateway.console.session_hours")
}

// everyRouteNeedsTheToken calls every route of the OpenAPI document
// without the token and with a wrong one: 401 in the error shape, each.
func (r *chatRig) everyRouteNeedsTheToken(token string) {
	t := r.t
	t.Helper()
	_, body, _ := r.adminCall(http.MethodGet, "/api/v1/openapi.json", token, "")
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc.Paths) < 30 {
		t.Fatalf("openapi.json: %v (%d paths)", err, len(doc.Paths))
	}
	n := 0
	for p, ops := range doc.Paths {
		path := regexp.MustCompile(`\{[a-z]+\}`).ReplaceAllString(p, "x")
		for method := range ops {
			for _, tok := range []string{"", strings.Repeat("w", len(token))} {
				code, body, _ := r.adminCall(strings.ToUpper(method), path, tok, "{}")
				if code != http.StatusUnauthorized || !strings.Contains(body, `"error"`) {
					t.Errorf("%s %s with token %q: %d %.120s, want 401", strings.ToUpper(method), path, tok, code, body)
				}
			}
			n++
		}
	}
	t.Logf("%d admin API routes refuse a request without the token", n)

	// Bad input, with the token: a body that is not JSON, or an id that
	// names nothing, is a 4xx in the error shape on every route that takes
	// one (never a 5xx, never a success).
	bad := 0
	for p, ops := range doc.Paths {
		path := regexp.MustCompile(`\{[a-z]+\}`).ReplaceAllString(p, "no-such-thing")
		for method := range ops {
			m := strings.ToUpper(method)
			if m == http.MethodGet && path == p {
				continue // a read without an id: nothing to get wrong
			}
			code, body, _ := r.adminCall(m, path, token, "{")
			if code < 400 || code >= 500 || !strings.Contains(body, `"error"`) {
				t.Errorf("%s %s with bad input: %d %.160s, want a 4xx in the error shape", m, path, code, body)
			}
			bad++
		}
	}
	t.Logf("%d admin API routes answer bad input with a 4xx", bad)
}
