package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// JQOptions configure the jq tool.
type JQOptions struct {
	// Timeout bounds one filter run (default 10 s).
	Timeout time.Duration
	// MaxOutputBytes stops a filter once its output passes this size
	// (default 1 MiB), so `repeat(1)` ends.
	MaxOutputBytes int
}

const jqSchema = `{
  "type": "object",
  "properties": {
    "filter": {"type": "string", "minLength": 1},
    "input": {"description": "JSON text, or any JSON value"}
  },
  "required": ["filter", "input"],
  "additionalProperties": false
}`

const jqDesc = "Run a jq filter over JSON; one compact result per line."

// JQ runs jq programs with gojq.
type JQ struct{ opts JQOptions }

var _ beamclaw.Tool = (*JQ)(nil)

// NewJQ returns the jq tool.
func NewJQ(opts JQOptions) *JQ {
	opts.Timeout = orDuration(opts.Timeout, 10*time.Second)
	opts.MaxOutputBytes = orInt(opts.MaxOutputBytes, 1<<20)
	return &JQ{opts: opts}
}

// Spec implements beamclaw.Tool.
func (j *JQ) Spec() beamclaw.ToolSpec {
	return spec("jq", jqDesc, jqSchema, false, beamclaw.ReadOnly, beamclaw.RiskLow)
}

// Execute implements beamclaw.Tool.
func (j *JQ) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Filter string          `json:"filter"`
		Input  json.RawMessage `json:"input"`
	}
	if err := decodeArgs("jq", inv.Args, &a); err != nil {
		return "", err
	}
	q, err := gojq.Parse(a.Filter)
	if err != nil {
		return "", fmt.Errorf("jq: parse filter: %w", err)
	}
	code, err := gojq.Compile(q) // no environ loader: $ENV and env are empty
	if err != nil {
		return "", fmt.Errorf("jq: compile filter: %w", err)
	}
	inputs, err := jqInputs(a.Input)
	if err != nil {
		return "", fmt.Errorf("jq: input: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, j.opts.Timeout)
	defer cancel()
	var out strings.Builder
	for _, in := range inputs {
		if err := j.runOne(ctx, code, in, &out); err != nil {
			return out.String(), err
		}
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

func (j *JQ) runOne(ctx context.Context, code *gojq.Code, in any, out *strings.Builder) error {
	iter := code.RunWithContext(ctx, in)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			if ctx.Err() != nil {
				return fmt.Errorf("jq: filter stopped after %s: %w", j.opts.Timeout, ctx.Err())
			}
			return fmt.Errorf("jq: error: %w", err)
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			return fmt.Errorf("jq: encode result: %w", err)
		}
		out.Write(b)
		out.WriteByte('\n')
		if out.Len() > j.opts.MaxOutputBytes {
			return fmt.Errorf("jq: output passed %d bytes; filter stopped", j.opts.MaxOutputBytes)
		}
	}
}

// jqInputs turns the input argument into the values to run over: a JSON
// string is parsed as a stream of JSON texts; any other value is itself.
func jqInputs(raw json.RawMessage) ([]any, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		v, err := decodeNumbers(bytes.NewReader(raw), true)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	vs, err := decodeNumbers(strings.NewReader(text), false)
	if err != nil {
		return nil, fmt.Errorf("the input string is not JSON text (%w); pass JSON text or a JSON value", err)
	}
	return vs, nil
}

func decodeNumbers(r io.Reader, single bool) ([]any, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if single {
			break
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no JSON value")
	}
	return out, nil
}
