package control

import (
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/gateway"
)

// apiSummaries say what each route does, for the OpenAPI document; a
// route without one is described by its method and path.
var apiSummaries = map[string]string{
	"GET /api/v1/mcp":                         "MCP servers and their state",
	"GET /api/v1/mcp/tools":                   "MCP tools (?server=NAME)",
	"POST /api/v1/mcp/accept":                 "Accept an MCP server's changed tools",
	"POST /api/v1/mcp/login":                  "Store an MCP OAuth login",
	"POST /api/v1/mcp/logout":                 "Forget an MCP OAuth login",
	"POST /api/v1/mcp/login/start":            "Run an MCP server's OAuth login in the daemon: the authorization URL for a browser on this machine",
	"POST /api/v1/mcp/call":                   "Call an MCP tool",
	"GET /api/v1/pairing":                     "Pending pairing requests and approved peers",
	"POST /api/v1/pairing/approve":            "Approve a pairing code",
	"POST /api/v1/pairing/revoke":             "Revoke a peer or a request",
	"GET /api/v1/db/check":                    "Check every page of the database",
	"GET /api/v1/sessions":                    "Stored sessions, newest first (?agent, user, channel, state=waiting|working|idle|archived|active|live, archived=1, q, limit, cursor)",
	"GET /api/v1/sessions/{id}":               "A session and its history",
	"DELETE /api/v1/sessions/{id}":            "Delete a session",
	"GET /api/v1/sessions/{id}/export":        "Download a session (?format=json: its detail and the tool results it kept whole; markdown: a transcript), as an attachment",
	"POST /api/v1/sessions/{id}/reset":        "Empty a session's history, as the chat's /reset does; answers the session",
	"GET /api/v1/approvals":                   "The approvals waiting in live sessions: whose, where asked, the tool and its scrubbed arguments, whether this API may answer",
	"POST /api/v1/approvals/{id}":             "Answer an approval asked on the terminal ({session, decision: yes|no|always})",
	"GET /api/v1/a2a/tasks":                   "Every caller's A2A tasks, newest first (?agent, state=submitted|working|input-required|auth-required|completed|failed|canceled|rejected, limit)",
	"GET /api/v1/a2a/tasks/{id}":              "One A2A task with its history and artifacts",
	"GET /api/v1/usage":                       "The usage ledger by agent, user, day, session, origin, model or provider",
	"GET /api/v1/users":                       "People (?user=ID: one of them)",
	"DELETE /api/v1/users":                    "Forget a user (?user=ID)",
	"GET /api/v1/users/export":                "Everything kept of a user (?user=ID)",
	"POST /api/v1/users/link-code":            "A code linking an account to another",
	"POST /api/v1/users/link":                 "Link an account with a code",
	"POST /api/v1/users/unlink":               "Unlink an account",
	"GET /api/v1/sandbox":                     "The code sandbox's status",
	"GET /api/v1/sandbox/containers":          "Sandbox containers",
	"POST /api/v1/sandbox/kill":               "Kill a sandbox container",
	"GET /api/v1/scheduler":                   "Scheduled jobs (?agent, all=1)",
	"POST /api/v1/scheduler":                  "Add a scheduled job",
	"DELETE /api/v1/scheduler/jobs/{id}":      "Cancel a job",
	"POST /api/v1/scheduler/jobs/{id}/pause":  "Pause a job",
	"POST /api/v1/scheduler/jobs/{id}/resume": "Resume a job",
	"GET /api/v1/scheduler/jobs/{id}/runs":    "A job's runs",
	"GET /api/v1/agents":                      "The agents and their workspaces",
	"GET /api/v1/agents/{name}":               "One agent's workspace",
	"GET /api/v1/agents/{name}/files/{file}":  "Read a workspace file (IDENTITY.md, SOUL.md, USER.md, TOOLS.md, AGENTS.md, BOOTSTRAP.md, MEMORY.md, HEARTBEAT.md)",
	"PUT /api/v1/agents/{name}/files/{file}":  "Replace a workspace file",
	"GET /api/v1/events":                      "The live event stream (Server-Sent Events: event name, JSON data)",
	"GET /api/v1/config":                      "The running configuration as YAML, secrets only as {env: VAR} (set or unset)",
	"PUT /api/v1/config":                      "Set a key of the config file ({key, value}: value as YAML; a secret only as {env: VAR}); applied at the next start",
	"DELETE /api/v1/config":                   "Unset a key of the config file (?key=K), back to its default at the next start",
	"GET /api/v1/skills":                      "The skills an agent sees, with their eligibility here (?agent=NAME)",
	"GET /api/v1/health":                      "The daemon's health, the body of GET /health (status, ready, version, subsystems)",
	"GET /api/v1/cluster":                     "This node's view of its cluster: nodes, JetStream's meta leader and quorum, streams, sessions owned per node (404 on a daemon that runs alone)",
	"GET /api/v1/openapi.json":                "This document",
}

// pathParam finds a pattern's {name} parameters (compiled on first use).
var pathParam = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z_]{1,64})\}`) })

// OpenAPI is the OpenAPI 3.1 document of routes: every one, and nothing
// else (TestOpenAPIMatchesTheRoutes holds it to that).
func OpenAPI(routes []gateway.Mount) map[string]any {
	paths := map[string]map[string]any{}
	for _, m := range append(routes, gateway.Mount{Method: http.MethodGet, Pattern: APIPrefix + "/openapi.json"}) {
		ops := paths[m.Pattern]
		if ops == nil {
			ops = map[string]any{}
			paths[m.Pattern] = ops
		}
		key := m.Method + " " + m.Pattern
		summary := apiSummaries[key]
		if summary == "" {
			summary = key
		}
		content := map[string]any{"application/json": map[string]any{}}
		switch {
		case strings.HasSuffix(m.Pattern, "/config"):
			content = map[string]any{"application/yaml": map[string]any{}}
		case strings.HasSuffix(m.Pattern, "/events"):
			content = map[string]any{"text/event-stream": map[string]any{}}
		case strings.HasSuffix(m.Pattern, "/export"):
			content["text/markdown"] = map[string]any{}
		}
		op := map[string]any{"summary": summary, "operationId": operationID(m.Method, m.Pattern),
			"responses": map[string]any{
				"200":     map[string]any{"description": "OK", "content": content},
				"default": map[string]any{"$ref": "#/components/responses/Error"},
			}}
		var params []map[string]any
		for _, p := range pathParam().FindAllStringSubmatch(m.Pattern, -1) {
			params = append(params, map[string]any{"name": p[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			op["parameters"] = params
		}
		ops[strings.ToLower(m.Method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "beamclaw admin API", "version": "1",
			"description": "The control API of a running beamclaw daemon: the control socket's routes under /api/v1, behind the gateway's bearer token."},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"responses": map[string]any{"Error": map[string]any{"description": "An error in one JSON shape",
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
					"type": "object", "required": []string{"error"},
					"properties": map[string]any{"error": map[string]any{"type": "object", "required": []string{"message", "type"},
						"properties": map[string]any{"message": map[string]any{"type": "string"}, "type": map[string]any{"type": "string"},
							"code": map[string]any{"type": []string{"string", "null"}}}}}}}}}},
		},
		"security": []map[string]any{{"bearer": []string{}}},
	}
}

// operationID is a route's operationId: its method and path words.
func operationID(method, pattern string) string {
	words := strings.FieldsFunc(strings.TrimPrefix(pattern, APIPrefix), func(r rune) bool {
		return r == '/' || r == '{' || r == '}' || r == '-' || r == '.'
	})
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.ToLower(method) + strings.Join(words, "")
}
