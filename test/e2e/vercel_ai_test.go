package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// The Vercel AI SDK (npm `ai` with @ai-sdk/openai-compatible) as the
// client of /v1/chat/completions, with tools the app declares: the model
// (test/fakellm's rules) calls the app's lookup, the SDK runs it or hands
// the call back, and the agent's next answer uses the result.

// vercelAIPackages are the npm packages testdata/vercel-ai/client.mjs
// needs, pinned as scripts/test-deps.sh installs them (ai 7 wants Node 22;
// Debian's Node is 20).
var vercelAIPackages = []string{"ai@6.0.325", "@ai-sdk/openai-compatible@2.0.92", "zod@4.6.7"}

// vercelAnswer is the text the model gives after the app's lookup said
// "born 1815".
const vercelAnswer = "tool lookup said: born 1815"

// vercelAINodeModules is the node_modules holding the Vercel AI SDK at
// the pinned versions (installed by scripts/test-deps.sh, which make test
// runs), or skips (fails under CI).
func vercelAINodeModules(t *testing.T) string {
	t.Helper()
	dir := testCacheDir("BEAMCLAW_VERCEL_AI_NPM_DIR", "vercel-ai-npm")
	nm := filepath.Join(dir, "node_modules")
	install := "npm install --prefix " + dir + " " + strings.Join(vercelAIPackages, " ")
	for _, spec := range vercelAIPackages {
		at := strings.LastIndexByte(spec, '@')
		name, version := spec[:at], spec[at+1:]
		var pkg struct{ Version string }
		b, err := os.ReadFile(filepath.Join(nm, name, "package.json"))
		if err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != version {
			testenv.Unavailable(t, "npm "+spec+" (the Vercel AI SDK) in "+dir, install)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Unavailable(t, "node is not installed", "")
	}
	return nm
}

// vercelRig is a started daemon whose model follows fakellm's rules.
func vercelRig(t *testing.T) *chatRig {
	t.Helper()
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	return r
}

// vercelClient runs client.mjs in mode against the rig's daemon, with
// stdin when given, and returns what it printed; a failing script fails
// the test with its stderr.
func (r *chatRig) vercelClient(nm, mode, user string, stdin []byte) []byte {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/vercel-ai/client.mjs", mode, "http://"+r.addr+"/v1", user)
	cmd.Env = append(filteredEnv(), "NODE_PATH="+nm)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("node client.mjs %s: %v\nstdout: %s\nstderr: %s", mode, err, out.String(), errb.String())
	}
	return out.Bytes()
}

// vercelToolCall is a tool call as the SDK hands it to the app.
type vercelToolCall struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
}

// vercelRun is what the execute and stream modes print.
type vercelRun struct {
	Steps []struct {
		FinishReason string           `json:"finishReason"`
		ToolCalls    []vercelToolCall `json:"toolCalls"`
		ToolResults  []struct {
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Output     json.RawMessage `json:"output"`
		} `json:"toolResults"`
	} `json:"steps"`
	Text     string `json:"text"`
	Streamed string `json:"streamed"`
}

// checkLookupRun: the app saw two steps, the model's call of lookup with
// {"q":"ada"} (which the SDK ran) and then the answer built on its result.
func checkLookupRun(t *testing.T, out []byte) vercelRun {
	t.Helper()
	var run vercelRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(run.Steps) != 2 {
		t.Fatalf("%d steps, want the call and the answer: %s", len(run.Steps), out)
	}
	first, last := run.Steps[0], run.Steps[1]
	if first.FinishReason != "tool-calls" || len(first.ToolCalls) != 1 || first.ToolCalls[0].ToolName != "lookup" ||
		!jsonEqual(t, first.ToolCalls[0].Input, `{"q":"ada"}`) || first.ToolCalls[0].ToolCallID == "" {
		t.Fatalf("first step: the model should call lookup with {\"q\":\"ada\"}: %s", out)
	}
	if len(first.ToolResults) != 1 || first.ToolResults[0].ToolCallID != first.ToolCalls[0].ToolCallID ||
		!jsonEqual(t, first.ToolResults[0].Output, `"born 1815"`) {
		t.Errorf("first step: the SDK should have run lookup: %s", out)
	}
	if last.FinishReason != "stop" || len(last.ToolCalls) != 0 || run.Text != vercelAnswer {
		t.Errorf("the final answer should use the tool's result, %q: %s", vercelAnswer, out)
	}
	return run
}

// jsonEqual reports whether raw holds the same JSON value as want.
func jsonEqual(t *testing.T, raw json.RawMessage, want string) bool {
	t.Helper()
	var a, b any
	return json.Unmarshal(raw, &a) == nil && json.Unmarshal([]byte(want), &b) == nil &&
		mustJSON(t, a) == mustJSON(t, b)
}

// checkProviderSawTheResult: the model was asked twice, for the call and
// for the answer; it was offered the app's lookup and its last request
// carried the prompt and the result the app's tool gave.
func checkProviderSawTheResult(t *testing.T, llm *fakellm.Server) {
	t.Helper()
	if n := len(llm.Requests()); n != 2 {
		t.Errorf("the model was asked %d times, want 2 (the call, the answer)", n)
	}
	last := llmLast(t, llm)
	if !slices.ContainsFunc(last.Tools, func(tl fakellm.Tool) bool { return tl.Name == "lookup" }) {
		t.Errorf("the model was not offered the app's lookup: %+v", last.Tools)
	}
	if got := llmToolResults(last); len(got) != 1 || got[0] != "born 1815" {
		t.Errorf("the model's last request carries the tool results %q, want [born 1815]", got)
	}
	if conv := llmConversation(last); len(conv) == 0 || conv[0] != `user: call tool lookup {"q":"ada"}` {
		t.Errorf("the model's last request lost the prompt: %q", conv)
	}
}

// userSessions are the stored sessions of the API user id.
func userSessions(h *home, id string) []protocol.SessionInfo {
	var out []protocol.SessionInfo
	for _, s := range h.sessions() {
		if s.User == "api:"+id {
			out = append(out, s)
		}
	}
	return out
}

// storedLookup returns the user's one stored conversation, failing when
// there is none or more than one.
func storedLookup(t *testing.T, h *home, user string) (protocol.SessionInfo, []string) {
	t.Helper()
	list := userSessions(h, user)
	if len(list) != 1 {
		t.Fatalf("user %s has %d stored conversations, want 1: %+v", user, len(list), list)
	}
	var d protocol.SessionDetail
	out := h.must("sessions", "show", list[0].ID, "--json").stdout
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("sessions show: %v: %s", err, out)
	}
	return list[0], storedLines(d.Messages)
}

// storedLines are a stored conversation's messages as lines: the role,
// a call's name, id and arguments, a result's call id, the text.
func storedLines(msgs []protocol.WSMessage) []string {
	var out []string
	for _, m := range msgs {
		line := m.Role + ":"
		for _, c := range m.ToolCalls {
			var args bytes.Buffer
			_ = json.Compact(&args, c.Args) // sessions show indents its JSON
			line += " call " + c.Name + "#" + c.ID + " " + args.String()
		}
		if m.ToolCallID != "" {
			line += " result#" + m.ToolCallID
		}
		if m.Content != "" {
			line += " " + m.Content
		}
		out = append(out, line)
	}
	return out
}

// lookupLines is the stored conversation of the prompt: the model's call
// of lookup, the app's result, and the answer (the call's id is the
// model's, whatever it was).
func lookupLines(callID string) []string {
	return []string{
		`user: call tool lookup {"q":"ada"}`,
		`assistant: call lookup#` + callID + ` {"q":"ada"}`,
		`tool: result#` + callID + ` born 1815`,
		`assistant: ` + vercelAnswer,
	}
}

// checkStoredLookup: the user's one conversation is stored in the daemon:
// the model's call of lookup (callID, as the app saw it), the app's
// result and the answer.
func checkStoredLookup(t *testing.T, h *home, user, callID string) protocol.SessionInfo {
	t.Helper()
	s, lines := storedLookup(t, h, user)
	if want := lookupLines(callID); !slices.Equal(lines, want) {
		t.Errorf("%s's stored conversation:\n  %s\nwant:\n  %s", user, strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
	return s
}

// TestVercelAI_ToolExecutedBySDK: an app's generateText with a tool it
// executes itself and multi-step on gets the model's call, runs lookup,
// and its final text is the agent's answer built on the result. With a
// user id the conversation is stored in the daemon, call and result.
func TestVercelAI_ToolExecutedBySDK(t *testing.T) {
	nm := vercelAINodeModules(t)
	r := vercelRig(t)
	run := checkLookupRun(t, r.vercelClient(nm, "execute", "ana", nil))
	checkProviderSawTheResult(t, r.llm)
	checkStoredLookup(t, r.h, "ana", run.Steps[0].ToolCalls[0].ToolCallID)
}

// TestVercelAI_StreamedToolCall: the same through streamText, the call
// arriving as a streamed tool_calls delta; without a user id nothing is
// stored.
func TestVercelAI_StreamedToolCall(t *testing.T) {
	nm := vercelAINodeModules(t)
	r := vercelRig(t)
	run := checkLookupRun(t, r.vercelClient(nm, "stream", "", nil))
	if run.Streamed != vercelAnswer {
		t.Errorf("the streamed text is %q, want %q", run.Streamed, vercelAnswer)
	}
	checkProviderSawTheResult(t, r.llm)
	if list := r.h.sessions(); len(list) != 0 {
		t.Errorf("a request without a user id was stored: %+v", list)
	}
}

// vercelCall is what the call mode prints: the SDK's answer stopping at
// the call, and the messages the app keeps for its next request.
type vercelCall struct {
	FinishReason string            `json:"finishReason"`
	ToolCalls    []vercelToolCall  `json:"toolCalls"`
	Messages     []json.RawMessage `json:"messages"`
}

// TestVercelAI_ToolResultAcrossRestart: an app whose tool has no execute
// gets the model's call back and stops; the daemon is killed (kill -9)
// and started again before the app sends the conversation with the
// result, and the answer still uses it, in the same stored conversation.
func TestVercelAI_ToolResultAcrossRestart(t *testing.T) {
	nm := vercelAINodeModules(t)
	r := vercelRig(t)
	out := r.vercelClient(nm, "call", "bob", nil)
	var call vercelCall
	if err := json.Unmarshal(out, &call); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if call.FinishReason != "tool-calls" || len(call.ToolCalls) != 1 || call.ToolCalls[0].ToolName != "lookup" ||
		!jsonEqual(t, call.ToolCalls[0].Input, `{"q":"ada"}`) || call.ToolCalls[0].ToolCallID == "" || len(call.Messages) != 1 {
		t.Fatalf("the app should get the call of lookup back: %s", out)
	}
	// The call is stored before the app sees it: the conversation so far
	// is the prompt and the model's call.
	id := call.ToolCalls[0].ToolCallID
	before, lines := storedLookup(t, r.h, "bob")
	if want := lookupLines(id)[:2]; !slices.Equal(lines, want) {
		t.Fatalf("bob's stored conversation before the result:\n  %s\nwant:\n  %s", strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}

	r.kill9()
	r.start()
	out = r.vercelClient(nm, "result", "bob", out)
	var answer struct {
		FinishReason string `json:"finishReason"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if answer.FinishReason != "stop" || answer.Text != vercelAnswer {
		t.Fatalf("after the restart the answer should use the result, %q: %s", vercelAnswer, out)
	}
	checkProviderSawTheResult(t, r.llm)
	// The result continued bob's conversation: no second one.
	if after := checkStoredLookup(t, r.h, "bob", id); after.ID != before.ID {
		t.Errorf("the result went to conversation %s, not %s where the call is", after.ID, before.ID)
	}
}

// TestVercelAI_FunctionNamedLikeAgentTool: an app declaring a function
// named read_file, the agent's own tool, gets the daemon's 400 as the
// SDK's error naming it (OpenAI's invalid_request_error on the tool's
// name), and no model is called.
func TestVercelAI_FunctionNamedLikeAgentTool(t *testing.T) {
	nm := vercelAINodeModules(t)
	r := vercelRig(t)
	out := r.vercelClient(nm, "refused", "", nil)
	var got struct {
		Error        *string `json:"error"`
		StatusCode   int     `json:"statusCode"`
		ResponseBody string  `json:"responseBody"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Error == nil || got.StatusCode != 400 || !strings.Contains(*got.Error, "read_file") {
		t.Fatalf("the SDK should fail with the daemon's 400 naming read_file: %s", out)
	}
	var body struct {
		Error struct{ Type, Param string }
	}
	if err := json.Unmarshal([]byte(got.ResponseBody), &body); err != nil ||
		body.Error.Type != "invalid_request_error" || body.Error.Param != "tools[0].name" {
		t.Errorf("the 400's body should be an invalid_request_error on tools[0].name: %s", got.ResponseBody)
	}
	if n := len(r.llm.Requests()); n != 0 {
		t.Errorf("the refused request reached the model (%d requests)", n)
	}
}
