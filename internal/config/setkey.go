package config

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyPart is one element of a dotted key: a mapping key of the file.
var keyPart = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// keyPath splits a dotted key (gateway.http.addr, core.agents.coder.model).
func keyPath(key string) ([]string, error) {
	parts := strings.Split(key, ".")
	for _, p := range parts {
		if !keyPart.MatchString(p) {
			return nil, fmt.Errorf("key %q: write it as dotted names, e.g. gateway.http.addr or core.agents.coder.model", key)
		}
	}
	return parts, nil
}

// SetKey sets key (a dotted path of mapping keys) in the config file at
// path to value, YAML text (42, true, "[a, b]", "{env: VAR}"), creating
// the mappings on the way. The file must stay valid: an unknown key, a
// value of the wrong type or out of range, or a secret given other than
// as {env: VAR} is refused, naming the problem, and nothing is written.
// The daemon reads the file when it starts: restart it to apply.
func SetKey(path, key, value string) error {
	parts, err := keyPath(key)
	if err != nil {
		return err
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(value), &v); err != nil || len(v.Content) != 1 {
		return fmt.Errorf("value %q for %s is not one YAML value (quote a string with special characters)", value, key)
	}
	val := v.Content[0]
	return editFile(path, "setting "+key, func(root *yaml.Node) error {
		m := root
		for i, p := range parts[:len(parts)-1] {
			if m, err = child(m, p, yaml.MappingNode); err != nil {
				return fmt.Errorf("%s: %w", strings.Join(parts[:i+1], "."), err)
			}
		}
		last := parts[len(parts)-1]
		if old := mapValue(m, last); old != nil {
			val.HeadComment, val.LineComment, val.FootComment = old.HeadComment, old.LineComment, old.FootComment
			*old = *val
			return nil
		}
		m.Content = append(m.Content, scalar("!!str", last), val)
		return nil
	})
}

// UnsetKey removes key from the config file at path, so that its default
// applies (after a restart). A key the file does not set is an error.
func UnsetKey(path, key string) error {
	parts, err := keyPath(key)
	if err != nil {
		return err
	}
	return editFile(path, "unsetting "+key, func(root *yaml.Node) error {
		m := root
		for _, p := range parts[:len(parts)-1] {
			if m = mapValue(m, p); m == nil || m.Kind != yaml.MappingNode {
				return fmt.Errorf("%s does not set %s; nothing written", path, key)
			}
		}
		last := parts[len(parts)-1]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == last {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
				return nil
			}
		}
		return fmt.Errorf("%s does not set %s; nothing written", path, key)
	})
}

// EditKey sets key to *value, or unsets it when value is nil (SetKey,
// UnsetKey): what `beamclaw config set|unset` and the admin API do.
func EditKey(path, key string, value *string) error {
	if value == nil {
		return UnsetKey(path, key)
	}
	return SetKey(path, key, *value)
}
