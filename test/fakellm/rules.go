package fakellm

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Echo answers "echo: " followed by the last user message.
func Echo(req Request) Reply {
	return Reply{Text: "echo: " + req.LastUser()}
}

var (
	failRe = regexp.MustCompile(`\bfail (\d{3})\b`)
	callRe = regexp.MustCompile(`(?s)\bcall tool ([A-Za-z0-9_.:-]+)\s*(.*)`)
	xmlRe  = regexp.MustCompile(`(?s)\bxml tool ([A-Za-z0-9_.:-]+)\s*(.*)`)
)

// Rules is the command-driven Responder of the standalone server:
//
//   - after a tool result (the last message has role tool) it answers
//     "tool NAME said: <result>";
//   - "fail NNN" in the last user message answers HTTP status NNN;
//   - "call tool NAME {json}" answers a native tool call to NAME with that
//     JSON as arguments ("{}" when none is given);
//   - "xml tool NAME {json}" answers the call as text:
//     <tool_call><name>NAME</name><args>{json}</args></tool_call>;
//   - anything else is echoed as by Echo.
func Rules(req Request) Reply {
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
		last := req.Messages[n-1]
		return Reply{Text: "tool " + toolName(req.Messages, last) + " said: " + last.Content}
	}
	text := req.LastUser()
	if m := failRe.FindStringSubmatch(text); m != nil {
		code, _ := strconv.Atoi(m[1])
		if code >= 400 && code <= 599 {
			return Reply{Status: code, Error: "fakellm: " + http.StatusText(code)}
		}
	}
	if m := xmlRe.FindStringSubmatch(text); m != nil {
		return Reply{Text: "<tool_call><name>" + m[1] + "</name><args>" + callArgs(m[2]) + "</args></tool_call>"}
	}
	if m := callRe.FindStringSubmatch(text); m != nil {
		return Reply{ToolCalls: []ToolCall{{Name: m[1], Arguments: callArgs(m[2])}}}
	}
	return Echo(req)
}

// callArgs returns the JSON arguments following a tool name: the text up
// to its last closing brace when that is valid JSON, the trimmed text as
// given otherwise (so bad arguments can be exercised), "{}" when empty.
func callArgs(rest string) string {
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return "{}"
	}
	if end := strings.LastIndexByte(rest, '}'); end >= 0 && json.Valid([]byte(rest[:end+1])) {
		return rest[:end+1]
	}
	return rest
}

// toolName finds the name of the tool whose result msg is: the assistant
// tool call with the same id, else msg.Name, else "unknown".
func toolName(history []Message, msg Message) string {
	for i := len(history) - 1; i >= 0; i-- {
		for _, tc := range history[i].ToolCalls {
			if tc.ID == msg.ToolCallID && msg.ToolCallID != "" {
				return tc.Name
			}
		}
	}
	if msg.Name != "" {
		return msg.Name
	}
	return "unknown"
}
