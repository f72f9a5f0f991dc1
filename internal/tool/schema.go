package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
)

// Schema is a compiled JSON Schema of the subset tool definitions use:
// type (a name or a list), properties, required, enum, items,
// additionalProperties (false or a schema), minLength/maxLength,
// minItems/maxItems and minimum/maximum. Other keywords (description,
// default, anyOf, ...) are accepted and not checked, so foreign schemas
// (MCP) never break a call.
type Schema struct {
	types    []string
	props    map[string]*Schema
	required []string
	enum     []any
	items    *Schema
	noExtra  bool
	extra    *Schema
	minLen   int // -1: unset
	maxLen   int // -1: unset
	minItems int // -1: unset
	maxItems int // -1: unset
	minimum  *float64
	maximum  *float64
}

// CompileSchema parses a JSON Schema. An empty schema accepts any object.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return compileNode(nil), nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			return compileNode(nil), nil
		}
		return nil, errors.New("parse schema: want a JSON object")
	}
	return compileNode(m), nil
}

func compileNode(m map[string]any) *Schema {
	s := &Schema{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	switch t := m["type"].(type) {
	case string:
		s.types = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				s.types = append(s.types, str)
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		s.props = make(map[string]*Schema, len(props))
		for k, pv := range props {
			if pm, ok := pv.(map[string]any); ok {
				s.props[k] = compileNode(pm)
			}
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, x := range req {
			if str, ok := x.(string); ok {
				s.required = append(s.required, str)
			}
		}
	}
	if e, ok := m["enum"].([]any); ok {
		s.enum = e
	}
	if it, ok := m["items"].(map[string]any); ok {
		s.items = compileNode(it)
	}
	switch ap := m["additionalProperties"].(type) {
	case bool:
		s.noExtra = !ap
	case map[string]any:
		s.extra = compileNode(ap)
	}
	s.minLen = intKeyword(m, "minLength")
	s.maxLen = intKeyword(m, "maxLength")
	s.minItems = intKeyword(m, "minItems")
	s.maxItems = intKeyword(m, "maxItems")
	s.minimum = floatKeyword(m, "minimum")
	s.maximum = floatKeyword(m, "maximum")
	return s
}

func intKeyword(m map[string]any, key string) int {
	n, ok := m[key].(json.Number)
	if !ok {
		return -1
	}
	i, err := n.Int64()
	if err != nil || i < 0 {
		return -1
	}
	return int(i)
}

func floatKeyword(m map[string]any, key string) *float64 {
	n, ok := m[key].(json.Number)
	if !ok {
		return nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil
	}
	return &f
}

// decodeJSON decodes one JSON value, keeping numbers as json.Number.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// schemaCache memoises compiled schemas by their text; it is bounded so
// that tool lists churning through many schemas cannot grow it forever.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*Schema
}

const schemaCacheMax = 512

func (c *schemaCache) get(raw json.RawMessage) (*Schema, error) {
	c.mu.Lock()
	s, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := CompileSchema(raw)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= schemaCacheMax {
		c.m = make(map[string]*Schema)
	}
	c.m[string(raw)] = s
	return s, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isIntegral(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f)
}
