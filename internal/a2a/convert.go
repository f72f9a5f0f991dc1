package a2a

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// inputOf turns a peer's message into a turn's text and attachments: text
// parts as they are, data parts as JSON, raw bytes as attachments (images
// reach the model), file URLs named in the text (never fetched).
func inputOf(m *a2a.Message) (string, []beamclaw.Attachment, error) {
	var texts []string
	var atts []beamclaw.Attachment
	for _, p := range m.Parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			if s := string(c); strings.TrimSpace(s) != "" {
				texts = append(texts, s)
			}
		case a2a.Data:
			b, err := json.Marshal(c.Value)
			if err != nil {
				return "", nil, fmt.Errorf("a data part is not JSON: %w", a2a.ErrInvalidParams)
			}
			texts = append(texts, string(b))
		case a2a.Raw:
			mime := p.MediaType
			if mime == "" {
				mime = http.DetectContentType(c)
			}
			atts = append(atts, beamclaw.Attachment{MIME: mime, Data: []byte(c), Name: p.Filename})
		case a2a.URL:
			texts = append(texts, fmt.Sprintf("[file %s: %s]", orDefault(p.Filename, "(unnamed)"), string(c)))
		}
	}
	if len(texts) == 0 && len(atts) == 0 {
		return "", nil, a2a.NewError(a2a.ErrInvalidParams, "the message has no text, data or file to answer")
	}
	return strings.Join(texts, "\n"), atts, nil
}

// textOf is the text parts of m, joined.
func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var texts []string
	for _, p := range m.Parts {
		if p != nil {
			if s := p.Text(); s != "" {
				texts = append(texts, s)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// decisionOf reads a peer's answer to an approval: yes, no or always
// (with or without a slash, any case, trailing punctuation ignored).
func decisionOf(m *a2a.Message) (beamclaw.Decision, bool) {
	s := strings.ToLower(strings.TrimSpace(textOf(m)))
	s = strings.TrimRight(s, ".!")
	return beamclaw.ParseDecision(s)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
