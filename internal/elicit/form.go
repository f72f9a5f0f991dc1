// Package elicit reads the flat JSON Schema of an MCP elicitation into a
// form (fields with a type, a title, an enum, a default), turns a
// person's typed text into typed values, applies the schema's defaults
// (SEP-1034) and checks an answer before it goes back. It is a leaf:
// standard library and the vocabulary only; the TUI, Telegram, the
// WebSocket API, `beamclaw mcp call` and the MCP client use it.
package elicit

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Field is one property of a form.
type Field struct {
	Name        string
	Type        string // string, number, integer, boolean
	Title       string
	Description string
	Enum        []string // allowed values of a string (enum or oneOf consts)
	Default     any      // nil when none
	Required    bool
}

// Form is the fields of a requestedSchema, required ones first, then by
// name.
type Form struct {
	Fields []Field
}

type prop struct {
	Type        any    `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Enum        []any  `json:"enum"`
	OneOf       []struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Default any `json:"default"`
}

// Parse reads a requestedSchema ({"type":"object","properties":{...},
// "required":[...]}).
func Parse(schema json.RawMessage) (Form, error) {
	var s struct {
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return Form{}, fmt.Errorf("requested schema: %w", err)
		}
	}
	var f Form
	for name, p := range s.Properties {
		fl := Field{Name: name, Type: typeOf(p.Type), Title: p.Title, Description: p.Description, Default: p.Default,
			Required: slices.Contains(s.Required, name)}
		for _, e := range p.Enum {
			fl.Enum = append(fl.Enum, fmt.Sprint(e))
		}
		for _, o := range p.OneOf {
			fl.Enum = append(fl.Enum, fmt.Sprint(o.Const))
		}
		f.Fields = append(f.Fields, fl)
	}
	sort.Slice(f.Fields, func(i, j int) bool {
		a, b := f.Fields[i], f.Fields[j]
		if a.Required != b.Required {
			return a.Required
		}
		return a.Name < b.Name
	})
	return f, nil
}

func typeOf(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	return "string"
}

// Label is how a field is shown: its title (or name), type, choices and
// default.
func (f Field) Label() string {
	name := f.Name
	if f.Title != "" {
		name = f.Title + " (" + f.Name + ")"
	}
	var extra []string
	switch {
	case len(f.Enum) > 0:
		extra = append(extra, "one of "+strings.Join(f.Enum, ", "))
	case f.Type != "string":
		extra = append(extra, f.Type)
	}
	if f.Default != nil {
		extra = append(extra, "default "+fmt.Sprint(f.Default))
	}
	if f.Required {
		extra = append(extra, "required")
	}
	if len(extra) > 0 {
		name += " [" + strings.Join(extra, "; ") + "]"
	}
	return name
}

// Value turns typed text into the field's type.
func (f Field) Value(text string) (any, error) {
	text = strings.TrimSpace(text)
	if len(f.Enum) > 0 && !slices.Contains(f.Enum, text) {
		return nil, fmt.Errorf("%s: %q is not one of %s", f.Name, text, strings.Join(f.Enum, ", "))
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(text) {
		case "true", "yes", "y", "1", "on":
			return true, nil
		case "false", "no", "n", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%s: %q is not yes or no", f.Name, text)
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a whole number", f.Name, text)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", f.Name, text)
		}
		return n, nil
	}
	return text, nil
}

// Defaults is the schema's default of every field that has one (SEP-1034).
func (f Form) Defaults() map[string]any {
	out := map[string]any{}
	for _, fl := range f.Fields {
		if fl.Default != nil {
			out[fl.Name] = fl.Default
		}
	}
	return out
}

// Complete fills the fields an accepted answer left out with their
// defaults and reports the required fields still missing.
func (f Form) Complete(content map[string]any) (map[string]any, error) {
	if content == nil {
		content = map[string]any{}
	}
	var missing []string
	for _, fl := range f.Fields {
		if _, ok := content[fl.Name]; ok {
			continue
		}
		if fl.Default != nil {
			content[fl.Name] = fl.Default
		} else if fl.Required {
			missing = append(missing, fl.Name)
		}
	}
	if len(missing) > 0 {
		return content, fmt.Errorf("required field(s) without a value: %s", strings.Join(missing, ", "))
	}
	return content, nil
}

// ParseText reads a typed answer to a whole form: "key=value" lines (or
// one value alone when the form has one field), or a JSON object.
func (f Form) ParseText(text string) (map[string]any, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "{") {
		var m map[string]any
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return nil, fmt.Errorf("not a JSON object: %w", err)
		}
		return m, nil
	}
	out := map[string]any{}
	byName := map[string]Field{}
	for _, fl := range f.Fields {
		byName[fl.Name] = fl
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok && len(f.Fields) == 1 {
			k, v, ok = f.Fields[0].Name, line, true
		}
		fl, known := byName[strings.TrimSpace(k)]
		if !ok || !known {
			return nil, fmt.Errorf("%q: write field=value (fields: %s)", line, strings.Join(f.names(), ", "))
		}
		val, err := fl.Value(v)
		if err != nil {
			return nil, err
		}
		out[fl.Name] = val
	}
	return out, nil
}

func (f Form) names() []string {
	out := make([]string, 0, len(f.Fields))
	for _, fl := range f.Fields {
		out = append(out, fl.Name)
	}
	return out
}
