package openai

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// encodeBody appends the JSON body of a chat request to dst[:0]: the
// members encoding/json writes, then the messages (each from the message
// cache) and the tools array (from the tools cache).
func (c *Client) encodeBody(dst []byte, req beamclaw.ChatRequest, model string) ([]byte, error) {
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		if tools, err = c.t.enc.toolsJSON(req.Tools); err != nil {
			return nil, err
		}
	}
	size := len(tools) + len(req.System) + 512
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.Content)/8 + 64 // escapes and the message's own members
	}
	buf := bytes.NewBuffer(slices.Grow(dst[:0], size))
	if err := json.NewEncoder(buf).Encode(encodeChatHead(req, model, c.maxCompletion)); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	out = append(out[:len(out)-2], `,"messages":[`...) // the head's closing brace and Encode's newline
	var err error
	if req.System != "" {
		if out, err = c.t.enc.appendText(out, wireText{role: string(beamclaw.RoleSystem), content: req.System}); err != nil {
			return nil, err
		}
	}
	if req.System != "" && len(req.Messages) > 0 {
		out = append(out, ',')
	}
	if out, err = c.t.enc.appendMessages(out, req.Conversation, req.Messages); err != nil {
		return nil, err
	}
	out = append(out, ']')
	if tools != nil {
		out = append(append(out, `,"tools":`...), tools...)
	}
	return append(out, '}'), nil
}
