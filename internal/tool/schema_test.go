package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/tool"
)

const richSchema = `{
  "type": "object",
  "properties": {
    "url":     {"type": "string", "minLength": 1, "maxLength": 20},
    "method":  {"type": "string", "enum": ["GET", "POST"]},
    "count":   {"type": "integer", "minimum": 1, "maximum": 20},
    "ratio":   {"type": "number", "minimum": 0, "maximum": 1},
    "flag":    {"type": "boolean"},
    "argv":    {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
    "input":   {"description": "any JSON value"},
    "maybe":   {"type": ["string", "null"]},
    "nested":  {"type": "object", "properties": {"deep": {"type": "integer"}}, "required": ["deep"], "additionalProperties": false}
  },
  "required": ["url"],
  "additionalProperties": false
}`

func TestSchemaValidate(t *testing.T) {
	s, err := tool.CompileSchema(json.RawMessage(richSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want string // "" means valid
	}{
		{"minimal", `{"url":"x"}`, ""},
		{"everything", `{"url":"x","method":"POST","count":3,"ratio":0.5,"flag":true,"argv":["a"],"headers":{"A":"b"},"input":[1,{"a":null}],"maybe":null,"nested":{"deep":1}}`, ""},
		{"integer written as float", `{"url":"x","count":2.0}`, ""},
		{"missing required", `{}`, `argument "url": required`},
		{"too long", `{"url":"123456789012345678901"}`, `argument "url": must be at most 20 characters long`},
		{"length counts runes", `{"url":"éééééééééééééééééééé"}`, ""},
		{"enum", `{"url":"x","method":"DELETE"}`, `argument "method": must be one of "GET", "POST"`},
		{"not integer", `{"url":"x","count":1.5}`, `argument "count": must be an integer, got number`},
		{"below minimum", `{"url":"x","count":0}`, `argument "count": must be ≥ 1`},
		{"above maximum", `{"url":"x","ratio":1.5}`, `argument "ratio": must be ≤ 1`},
		{"boolean", `{"url":"x","flag":"yes"}`, `argument "flag": must be a boolean, got string`},
		{"too few items", `{"url":"x","argv":[]}`, `argument "argv": must have at least 1 items`},
		{"too many items", `{"url":"x","argv":["a","b","c","d"]}`, `argument "argv": must have at most 3 items`},
		{"array item", `{"url":"x","argv":["a",2]}`, `argument "argv[1]": must be a string, got number`},
		{"additional schema", `{"url":"x","headers":{"A":1}}`, `argument "headers.A": must be a string, got number`},
		{"type list", `{"url":"x","maybe":1}`, `argument "maybe": must be a string or a null, got number`},
		{"nested required", `{"url":"x","nested":{}}`, `argument "nested.deep": required`},
		{"nested extra", `{"url":"x","nested":{"deep":1,"x":2}}`, `argument "nested.x": unknown argument (known: deep)`},
		{"several", `{"count":"a","zzz":1}`, `argument "url": required; argument "count": must be an integer, got string; argument "zzz": unknown argument (known: argv, count, flag, headers, input, maybe, method, nested, ratio, url)`},
		{"root type", `[1]`, `arguments must be an object, got array`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.ValidateJSON([]byte(tc.args))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("ValidateJSON(%s)\n got: %s\nwant: %s", tc.args, got, tc.want)
			}
		})
	}
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		ok     bool
	}{
		{"empty", ``, true},
		{"true", `true`, true},
		{"object", `{"type":"object"}`, true},
		{"foreign keywords", `{"anyOf":[{"type":"string"}],"type":7,"minLength":"x"}`, true},
		{"not JSON", `{"type":`, false},
		{"array", `[]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tool.CompileSchema(json.RawMessage(tc.schema))
			if (err == nil) != tc.ok {
				t.Errorf("CompileSchema(%q) err = %v, want ok=%v", tc.schema, err, tc.ok)
			}
		})
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(richSchema, `{"url":"x","count":3}`)
	f.Add(`{"type":"array","items":{"enum":[1,"a",null]}}`, `[1,"a",null,2]`)
	f.Add(`{"type":"object","additionalProperties":false}`, `{"a":{}}`)
	f.Add(`{"type":["integer","string"],"maximum":1e308}`, `1e400`)
	f.Fuzz(func(t *testing.T, schema, doc string) {
		s, err := tool.CompileSchema(json.RawMessage(schema))
		if err != nil {
			return
		}
		_ = s.ValidateJSON([]byte(doc))
	})
}
