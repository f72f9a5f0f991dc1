package setting

import (
	"errors"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a Go duration written as a string ("10s", "1m30s").
type Duration struct {
	time.Duration
}

// UnmarshalYAML reads a Go duration string such as "10s" or "1m30s"; null
// keeps the default, like any other null.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if IsNull(n) {
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a duration such as \"10s\", got %s", KindName(n))
	}
	if n.ShortTag() == "!!int" || n.ShortTag() == "!!float" {
		return errors.New("a bare number has no unit: write a duration such as \"10s\"")
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return errors.New("invalid duration: write e.g. \"10s\", \"500ms\" or \"1m\"")
	}
	d.Duration = v
	return nil
}

// MarshalYAML writes the duration as a string ("10s").
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// HourRange is [start, end) in UTC hours, written [2, 4]. Start 0..23,
// end 1..24; start > end wraps past midnight.
type HourRange [2]int

// Contains reports whether the UTC hour h falls inside the range.
func (r HourRange) Contains(h int) bool {
	if r[0] <= r[1] {
		return h >= r[0] && h < r[1]
	}
	return h >= r[0] || h < r[1]
}

// IsNull reports whether n is YAML's null.
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// KindName describes a node for error messages without quoting its value.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!str":
		return "a string"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a timestamp"
	}
	return "a scalar"
}
