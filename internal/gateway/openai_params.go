package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// samplingFields are the request's sampling and output controls, checked
// as OpenAI checks them and forwarded with every model call of the turn
// (docs/openai-api.md lists what is forwarded, refused and ignored).
type samplingFields struct {
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                *stopList       `json:"stop"`
	Seed                *int64          `json:"seed"`
	PresencePenalty     *float64        `json:"presence_penalty"`
	FrequencyPenalty    *float64        `json:"frequency_penalty"`
	ResponseFormat      *responseFormat `json:"response_format"`
	ReasoningEffort     *string         `json:"reasoning_effort"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`

	// Refused: beamclaw cannot honour them, and dropping them would change
	// the answer silently.
	Logprobs    *bool              `json:"logprobs"`
	TopLogprobs *int               `json:"top_logprobs"`
	LogitBias   map[string]float64 `json:"logit_bias"`
	Modalities  []string           `json:"modalities"`
	Audio       json.RawMessage    `json:"audio"`
	Prediction  json.RawMessage    `json:"prediction"`
}

// stopList is OpenAI's stop: one string or an array of up to four.
type stopList []string

func (s *stopList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = stopList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return badRequest("Invalid 'stop': expected a string or an array of strings.", "stop")
	}
	*s = many
	return nil
}

// responseFormat is kept as sent (forwarded verbatim) and checked.
type responseFormat struct {
	raw        json.RawMessage
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	} `json:"json_schema"`
}

func (r *responseFormat) UnmarshalJSON(b []byte) error {
	type plain responseFormat
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return badRequest("Invalid 'response_format': expected an object with a 'type'.", "response_format")
	}
	*r = responseFormat(p)
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

var schemaName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

var reasoningEfforts = map[string]bool{"none": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true}

// sampling checks the controls and returns them for the run (nil when
// the client set none).
func (f *samplingFields) sampling(stream bool, opts *streamOptions) (*beamclaw.Sampling, error) {
	s := &beamclaw.Sampling{Temperature: f.Temperature, TopP: f.TopP, Seed: f.Seed,
		PresencePenalty: f.PresencePenalty, FrequencyPenalty: f.FrequencyPenalty, ParallelToolCalls: f.ParallelToolCalls}
	checks := []struct {
		v        *float64
		param    string
		min, max float64
	}{
		{f.Temperature, "temperature", 0, 2},
		{f.TopP, "top_p", 0, 1},
		{f.PresencePenalty, "presence_penalty", -2, 2},
		{f.FrequencyPenalty, "frequency_penalty", -2, 2},
	}
	for _, c := range checks {
		if err := inRange(c.v, c.param, c.min, c.max); err != nil {
			return nil, err
		}
	}
	switch {
	case f.MaxTokens != nil && f.MaxCompletionTokens != nil:
		return nil, badRequest("Set either 'max_tokens' or 'max_completion_tokens', not both.", "max_tokens")
	case f.MaxTokens != nil:
		if *f.MaxTokens < 1 {
			return nil, belowMinimum("max_tokens", strconv.Itoa(*f.MaxTokens), "1")
		}
		s.MaxTokens = *f.MaxTokens
	case f.MaxCompletionTokens != nil:
		if *f.MaxCompletionTokens < 1 {
			return nil, belowMinimum("max_completion_tokens", strconv.Itoa(*f.MaxCompletionTokens), "1")
		}
		s.MaxTokens = *f.MaxCompletionTokens
	}
	if f.Stop != nil {
		if len(*f.Stop) > 4 {
			return nil, badRequest(fmt.Sprintf("Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length %d instead.", len(*f.Stop)), "stop")
		}
		s.Stop = *f.Stop
	}
	if r := f.ResponseFormat; r != nil {
		switch r.Type {
		case "text":
		case "json_object":
			s.ResponseFormat = r.raw
		case "json_schema":
			if r.JSONSchema == nil || !schemaName().MatchString(r.JSONSchema.Name) {
				return nil, badRequest("Invalid 'response_format.json_schema': a 'name' of 1 to 64 letters, digits, '_' or '-' is required.", "response_format.json_schema")
			}
			if len(r.JSONSchema.Schema) > 0 && bytes.TrimSpace(r.JSONSchema.Schema)[0] != '{' {
				return nil, badRequest("Invalid 'response_format.json_schema.schema': expected an object.", "response_format.json_schema.schema")
			}
			s.ResponseFormat = r.raw
		default:
			return nil, badRequest(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'json_object' and 'json_schema'.", r.Type), "response_format.type")
		}
	}
	if e := f.ReasoningEffort; e != nil {
		if !reasoningEfforts[*e] {
			return nil, badRequest(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high' and 'xhigh'.", *e), "reasoning_effort")
		}
		s.ReasoningEffort = *e
	}
	if opts != nil && !stream {
		return nil, badRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options")
	}
	if err := f.refused(); err != nil {
		return nil, err
	}
	if unset(s) {
		return nil, nil
	}
	return s, nil
}

func unset(s *beamclaw.Sampling) bool {
	return s.Temperature == nil && s.TopP == nil && s.MaxTokens == 0 && s.Stop == nil && s.Seed == nil &&
		s.PresencePenalty == nil && s.FrequencyPenalty == nil && s.ResponseFormat == nil &&
		s.ReasoningEffort == "" && s.ParallelToolCalls == nil
}

// refused names a control beamclaw cannot honour.
func (f *samplingFields) refused() error {
	switch {
	case f.Logprobs != nil && *f.Logprobs, f.TopLogprobs != nil:
		return badRequest("logprobs are not supported: beamclaw's answer is the agent's final text, after its tools ran.", "logprobs")
	case len(f.LogitBias) > 0:
		return badRequest("logit_bias is not supported.", "logit_bias")
	case len(f.Audio) > 0 && string(f.Audio) != "null":
		return badRequest("audio output is not supported; only text is.", "audio")
	case len(f.Prediction) > 0 && string(f.Prediction) != "null":
		return badRequest("predicted outputs are not supported.", "prediction")
	}
	for _, m := range f.Modalities {
		if m != "text" {
			return badRequest(fmt.Sprintf("Invalid value: '%s'. Only 'text' output is supported.", m), "modalities")
		}
	}
	return nil
}

// inRange checks a number against OpenAI's bounds, in OpenAI's words.
func inRange(v *float64, param string, lo, hi float64) error {
	switch {
	case v == nil:
		return nil
	case *v < lo:
		return belowMinimum(param, fmtNum(*v), fmtNum(lo))
	case *v > hi:
		return badRequest(fmt.Sprintf("Invalid '%s': decimal above maximum value. Expected a value <= %s, but got %s instead.",
			param, fmtNum(hi), fmtNum(*v)), param)
	}
	return nil
}

func belowMinimum(param, got, lo string) error {
	return badRequest(fmt.Sprintf("Invalid '%s': value below minimum. Expected a value >= %s, but got %s instead.", param, lo, got), param)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
