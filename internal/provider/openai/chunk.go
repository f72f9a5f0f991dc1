package openai

import (
	"encoding/json"
)

// decodeChunk decodes one streamed chunk into ch exactly as
// json.Unmarshal(data, ch) would. The shapes nearly every chunk has (an
// id, a model, text or reasoning deltas, a finish reason, usage, members
// we do not read) go through a small scanner that allocates only the
// strings it keeps; anything else (tool calls, a whole message, an error
// object, a member name that is not plain lower case, an escaped name, a
// number that is not a small integer, invalid UTF-8) falls back to
// encoding/json, from the same starting ch. ADR-023 has the benchmark.
func decodeChunk(data []byte, ch *chunkJSON) error {
	start := *ch
	if s := (chunkScanner{data: data}); s.chunk(ch) {
		return nil
	}
	*ch = start
	return json.Unmarshal(data, ch)
}

// rawNull is what encoding/json stores in a json.RawMessage for null.
var rawNull = json.RawMessage("null")

// chunkScanner reads the common chunk shapes; each method reports false
// for anything it does not handle, and the caller falls back.
type chunkScanner struct {
	data  []byte
	i     int
	depth int
}

func (s *chunkScanner) chunk(ch *chunkJSON) bool {
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return s.str(&ch.ID)
		case "model":
			return s.str(&ch.Model)
		case "choices":
			return s.choices(&ch.Choices)
		case "usage":
			return s.usage(&ch.Usage)
		case "error":
			if s.null() { // as encoding/json stores it; an error object falls back
				ch.Error = rawNull
				return true
			}
			return false
		}
		return s.skip()
	})
	if !ok {
		return false
	}
	s.space()
	return s.i == len(s.data)
}

func (s *chunkScanner) choices(out *[]choiceJSON) bool {
	if s.null() {
		*out = nil
		return true
	}
	v := *out
	n := 0
	ok := s.array(func() bool {
		if n >= cap(v) {
			v = append(v[:cap(v)], choiceJSON{})
		}
		if n >= len(v) {
			v = v[:n+1]
		}
		n++
		return s.choice(&v[n-1])
	})
	if !ok {
		return false
	}
	if n < len(v) {
		v = v[:n]
	}
	if n == 0 {
		v = make([]choiceJSON, 0)
	}
	*out = v
	return true
}

func (s *chunkScanner) choice(c *choiceJSON) bool {
	if s.null() {
		return true
	}
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "index":
			return s.int(&c.Index)
		case "delta":
			return s.delta(&c.Delta)
		case "message":
			if s.null() {
				c.Message = nil
				return true
			}
			return false
		case "finish_reason":
			return s.str(&c.FinishReason)
		}
		return s.skip()
	})
}

func (s *chunkScanner) delta(d *deltaJSON) bool {
	if s.null() {
		return true
	}
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "content":
			return s.str(&d.Content)
		case "reasoning":
			return s.str(&d.Reasoning)
		case "reasoning_content":
			return s.str(&d.ReasoningContent)
		case "tool_calls":
			if s.null() {
				d.ToolCalls = nil
				return true
			}
			return false
		}
		return s.skip()
	})
}

// details decodes usage.prompt_tokens_details as encoding/json would:
// null clears it, an object fills it (allocated when nil).
func (s *chunkScanner) details(out **detailsJSON) bool {
	if s.null() {
		*out = nil
		return true
	}
	d := *out
	if d == nil {
		d = new(detailsJSON)
	}
	ok := s.object(func(name []byte) bool {
		if string(name) == "cached_tokens" {
			return s.int(&d.CachedTokens)
		}
		return s.skip()
	})
	if ok {
		*out = d
	}
	return ok
}

func (s *chunkScanner) usage(out **usageJSON) bool {
	if s.null() {
		*out = nil
		return true
	}
	u := *out
	if u == nil {
		u = new(usageJSON)
	}
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "prompt_tokens":
			return s.int(&u.PromptTokens)
		case "completion_tokens":
			return s.int(&u.CompletionTokens)
		case "total_tokens":
			return s.int(&u.TotalTokens)
		case "prompt_tokens_details":
			return s.details(&u.Details)
		}
		return s.skip()
	})
	if ok {
		*out = u
	}
	return ok
}
