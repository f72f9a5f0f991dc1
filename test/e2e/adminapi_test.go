package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestAdminAPI (issue 26, item 1): the control API's routes on the TCP
// gateway under /api/v1, behind the gateway's bearer token: refused
// without it, the same answers as the control socket with it, errors in
// one JSON shape, an OpenAPI 3.1 document of them; no database backup;
// and no /api/v1 at all when no token is configured.
func TestAdminAPI(t *testing.T) {
	token := strings.Repeat("adm1n", 8)
	r := newChatRig(t, rigOptions{gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n"})
	r.h.env = append(r.h.env, "E2E_GATEWAY_TOKEN="+token)
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	call := func(method, path, tok string, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+r.addr+path, bytes.NewReader([]byte(body)))
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := call(http.MethodGet, "/api/v1/sessions", "", ""); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s", code, body)
	}
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
	for _, bad := range []string{"/api/v1/agents/default/files/secrets.txt", "/api/v1/agents/default/files/..%2F..%2Fconfig.yaml"} {
		if code, body := call(http.MethodPut, bad, token, soul); code < 400 || code >= 500 {
			t.Errorf("PUT %s: %d %s, want a 4xx", bad, code, body)
		}
	}
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
