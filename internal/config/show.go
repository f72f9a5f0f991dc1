package config

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Show renders the effective configuration as YAML for `beamclaw config
// show`. Secrets appear only as {env: VAR}, each with a comment saying
// whether getenv finds the variable set; values are never rendered. The
// output parses back to the same configuration.
func (c *Config) Show(getenv func(string) string) ([]byte, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return render(c, &encoder{getenv: getenv})
}

// Marshal renders the configuration as YAML without comments; it parses
// back to the same configuration.
func (c *Config) Marshal() ([]byte, error) {
	return render(c, &encoder{})
}

func render(c *Config, e *encoder) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(e.node(reflect.ValueOf(c).Elem())); err != nil {
		return nil, fmt.Errorf("render config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("render config: %w", err)
	}
	return buf.Bytes(), nil
}

// encoder turns a value into a yaml.Node tree in field order, mirroring
// the decoder. With getenv set, secrets get a (set)/(unset) comment.
type encoder struct {
	getenv func(string) string
}

func (e *encoder) envRef(name string) *yaml.Node {
	n := setting.EnvNode(name)
	switch {
	case e.getenv == nil:
	case name == "":
		n.LineComment = "(none)"
	default:
		if e.getenv(name) != "" {
			n.LineComment = "(set)"
		} else {
			n.LineComment = "(unset)"
		}
	}
	return n
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

func (e *encoder) node(v reflect.Value) *yaml.Node {
	switch x := v.Interface().(type) {
	case Secret:
		return e.envRef(x.Env)
	case EnvValue:
		if x.Env != "" {
			return e.envRef(x.Env)
		}
		return scalar("!!str", x.Value)
	case Duration:
		return scalar("!!str", x.String())
	}
	switch v.Kind() {
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, f := range Fields(v.Type()) {
			n.Content = append(n.Content, scalar("!!str", f.Name), e.node(v.FieldByIndex(f.Index)))
		}
		return n
	case reflect.Map:
		n := &yaml.Node{Kind: yaml.MappingNode}
		keys := v.MapKeys()
		strs := make([]string, len(keys))
		for i, k := range keys {
			strs[i] = k.String()
		}
		slices.Sort(strs)
		for _, k := range strs {
			n.Content = append(n.Content, scalar("!!str", k), e.node(v.MapIndex(reflect.ValueOf(k))))
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n
	case reflect.Slice, reflect.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for i := range v.Len() {
			item := e.node(v.Index(i))
			if item.Kind != yaml.ScalarNode {
				n.Style = 0
			}
			n.Content = append(n.Content, item)
		}
		return n
	case reflect.String:
		return scalar("!!str", v.String())
	case reflect.Bool:
		return scalar("!!bool", strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int32, reflect.Int64:
		return scalar("!!int", strconv.FormatInt(v.Int(), 10))
	case reflect.Float32, reflect.Float64:
		s := strconv.FormatFloat(v.Float(), 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		return scalar("!!float", s)
	}
	return scalar("!!null", "null")
}

// walk visits every leaf of v (scalars, lists, Secret, EnvValue, Duration,
// HourRange, empty maps) with its dotted path, in the decoder's notation.
func walk(v reflect.Value, path string, fn func(path string, v reflect.Value)) {
	switch v.Interface().(type) {
	case Secret, EnvValue, Duration, HourRange:
		fn(path, v)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range Fields(v.Type()) {
			walk(v.FieldByIndex(f.Index), join(path, f.Name), fn)
		}
	case reflect.Map:
		if v.Len() == 0 {
			fn(path, v)
		}
		iter := v.MapRange()
		for iter.Next() {
			walk(iter.Value(), join(path, iter.Key().String()), fn)
		}
	case reflect.Slice:
		fn(path, v)
		for i := range v.Len() {
			if k := v.Index(i).Kind(); k == reflect.Struct || k == reflect.Map {
				walk(v.Index(i), path+"["+strconv.Itoa(i)+"]", fn)
			}
		}
	default:
		fn(path, v)
	}
}

// walkSecrets calls fn for every Secret and {env: VAR} EnvValue.
func walkSecrets(c *Config, fn func(key, env string)) {
	walk(reflect.ValueOf(c).Elem(), "", func(path string, v reflect.Value) {
		switch x := v.Interface().(type) {
		case Secret:
			fn(path, x.Env)
		case EnvValue:
			fn(path, x.Env)
		}
	})
}
