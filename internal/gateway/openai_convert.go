package gateway

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// roleOf maps an OpenAI role to beamclaw's ("developer" is OpenAI's newer
// name for system).
func roleOf(r string) (beamclaw.Role, bool) {
	switch r {
	case "developer":
		return beamclaw.RoleSystem, true
	case "function":
		return "", false
	}
	role := beamclaw.Role(r)
	return role, role.Valid()
}

// toHistory converts a request's messages into an ephemeral session's
// history.
func toHistory(msgs []chatMessage) ([]beamclaw.Message, error) {
	out := make([]beamclaw.Message, 0, len(msgs))
	for i, m := range msgs {
		msg, err := toMessage(i, m)
		if err != nil {
			return nil, err
		}
		out = append(out, msg)
	}
	return out, nil
}

// toMessage converts messages[i].
func toMessage(i int, m chatMessage) (beamclaw.Message, error) {
	role, ok := roleOf(m.Role)
	if !ok {
		return beamclaw.Message{}, badRequest(fmt.Sprintf(
			"messages[%d].role %q is not one of system, developer, user, assistant, tool", i, m.Role),
			fmt.Sprintf("messages[%d].role", i))
	}
	text, atts, err := contentOf(i, m.Content)
	if err != nil {
		return beamclaw.Message{}, err
	}
	msg := beamclaw.Message{Role: role, Content: text, Attachments: atts}
	if role == beamclaw.RoleTool {
		msg.ToolCallID, msg.Name = m.ToolCallID, m.Name
	}
	for j, c := range m.ToolCalls {
		args := json.RawMessage(c.Function.Arguments)
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if !json.Valid(args) {
			return beamclaw.Message{}, badRequest(fmt.Sprintf(
				"messages[%d].tool_calls[%d].function.arguments is not valid JSON", i, j),
				fmt.Sprintf("messages[%d].tool_calls[%d]", i, j))
		}
		msg.ToolCalls = append(msg.ToolCalls, beamclaw.ToolCall{ID: c.ID, Name: c.Function.Name, Args: args, Source: "native"})
	}
	return msg, nil
}

// contentOf joins a message's text parts and decodes its images.
func contentOf(i int, c chatContent) (string, []beamclaw.Attachment, error) {
	if c.Parts == nil {
		return c.Text, nil, nil
	}
	var texts []string
	var atts []beamclaw.Attachment
	for j, p := range c.Parts {
		param := fmt.Sprintf("messages[%d].content[%d]", i, j)
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "refusal":
			texts = append(texts, p.Refusal)
		case "image_url":
			if p.ImageURL == nil {
				return "", nil, badRequest(param+".image_url is missing", param)
			}
			a, err := parseDataURL(p.ImageURL.URL)
			if err != nil {
				return "", nil, badRequest(param+": "+err.Error(), param)
			}
			atts = append(atts, a)
		default:
			return "", nil, badRequest(fmt.Sprintf("%s: content part type %q is not supported (text and image_url are)", param, p.Type), param)
		}
	}
	return strings.Join(texts, "\n"), atts, nil
}

// parseDataURL decodes an image given inline as a data: URL. Remote URLs
// are refused: the daemon fetches nothing on a client's behalf.
func parseDataURL(s string) (beamclaw.Attachment, error) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "data:") {
		return beamclaw.Attachment{}, fmt.Errorf("only data: URLs are supported for images (beamclaw does not fetch remote URLs)")
	}
	meta, data, ok := strings.Cut(s[5:], ",")
	if !ok {
		return beamclaw.Attachment{}, fmt.Errorf("malformed data: URL (no comma)")
	}
	params := strings.Split(meta, ";")
	mime := strings.ToLower(strings.TrimSpace(params[0]))
	if !strings.HasPrefix(mime, "image/") {
		return beamclaw.Attachment{}, fmt.Errorf("data: URL media type %q is not an image", mime)
	}
	isBase64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			isBase64 = true
		}
	}
	var raw []byte
	var err error
	if isBase64 {
		raw, err = base64.StdEncoding.DecodeString(data)
		if err != nil {
			raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(data, "="))
		}
	} else {
		var text string
		text, err = url.PathUnescape(data)
		raw = []byte(text)
	}
	if err != nil {
		return beamclaw.Attachment{}, fmt.Errorf("data: URL payload does not decode: %w", err)
	}
	if len(raw) == 0 {
		return beamclaw.Attachment{}, fmt.Errorf("data: URL holds no data")
	}
	return beamclaw.Attachment{MIME: mime, Data: raw}, nil
}

// transcriptKey digests a client's copy of a conversation: each message's
// role (developer counts as system), its text without surrounding space
// and its number of images. A client that stores the answers it was sent
// sends the same digest with its next message (beamclaw.Transcript).
func transcriptKey(msgs []chatMessage) string {
	h := sha256.New()
	for _, m := range msgs {
		role := m.Role
		if role == "developer" {
			role = "system"
		}
		text := m.Content.Text
		images := 0
		if m.Content.Parts != nil {
			var b strings.Builder
			for _, p := range m.Content.Parts {
				switch p.Type {
				case "text":
					b.WriteString(p.Text)
				case "refusal":
					b.WriteString(p.Refusal)
				case "image_url":
					images++
				}
			}
			text = b.String()
		}
		fmt.Fprintf(h, "%s\x00%d\x00%s", role, images, strings.TrimSpace(text))
		for _, c := range m.ToolCalls { // a conversation with function calls: which calls, and which results
			fmt.Fprintf(h, "\x00call:%s", c.ID)
		}
		if m.ToolCallID != "" {
			fmt.Fprintf(h, "\x00result:%s", m.ToolCallID)
		}
		h.Write([]byte{0x1e})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
