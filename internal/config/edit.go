package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AppendMCPServers adds items (YAML mappings of MCPServer) to mcp.servers
// of the config file at path (created when missing); the comments and
// layout of the rest of the file are kept. It refuses names already configured, checks
// that the result is a valid config, keeps the previous file as
// path.bak, and replaces the file atomically. Nothing is written on error.
func AppendMCPServers(path string, items []*yaml.Node, names []string) error {
	return editFile(path, "the import", func(root *yaml.Node) error {
		servers, err := serversSequence(path, root)
		if err != nil {
			return err
		}
		var clash []string
		for _, item := range servers.Content {
			if n := mapValue(item, "name"); n != nil && slices.Contains(names, n.Value) {
				clash = append(clash, n.Value)
			}
		}
		if len(clash) > 0 {
			return fmt.Errorf("%s already has MCP servers named %s; nothing written", path, strings.Join(clash, ", "))
		}
		servers.Style = 0 // block style, even if the file had `servers: []`
		servers.Content = append(servers.Content, items...)
		return nil
	})
}

// editFile changes the config file at path (created when missing) with
// edit, which works on the document's root mapping; the comments and
// layout of the rest of the file are kept. The result must be a valid
// config (what says so in errors: "the import"); the previous file stays
// as path.bak, and the file is replaced atomically. Nothing is written on
// error.
func editFile(path, what string, edit func(root *yaml.Node) error) error {
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read config: %w", err)
	}
	doc, err := configDocument(path, old)
	if err != nil {
		return err
	}
	if err := edit(doc.Content[0]); err != nil {
		return err
	}
	text, err := EncodeYAML(doc)
	if err != nil {
		return err
	}
	if _, err := Parse(path, []byte(text)); err != nil {
		return fmt.Errorf("the config would not be valid after %s; nothing written: %w", what, err)
	}
	mode := fs.FileMode(0o600)
	if exists {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := writeFileAtomic(path+".bak", old, mode); err != nil {
			return err
		}
	}
	return writeFileAtomic(path, []byte(text), mode)
}

// configDocument parses the config file into a document whose root is a
// mapping; an empty or missing file gives an empty mapping.
func configDocument(path string, data []byte) (*yaml.Node, error) {
	doc := &yaml.Node{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc.Kind = yaml.DocumentNode
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode}}
	}
	if doc.Kind != yaml.DocumentNode || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: the top level is not a mapping; nothing written", path)
	}
	return doc, nil
}

// serversSequence finds or creates the mcp.servers sequence under root.
func serversSequence(path string, root *yaml.Node) (*yaml.Node, error) {
	m, err := child(root, "mcp", yaml.MappingNode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, err := child(m, "servers", yaml.SequenceNode)
	if err != nil {
		return nil, fmt.Errorf("%s: mcp.%w", path, err)
	}
	return s, nil
}

// child returns the value of key in the mapping m, creating it (or
// replacing a null) with an empty node of kind.
func child(m *yaml.Node, key string, kind yaml.Kind) (*yaml.Node, error) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		v := m.Content[i+1]
		if v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "" || v.Value == "~") {
			*v = yaml.Node{Kind: kind, Line: v.Line, Column: v.Column}
		}
		if v.Kind != kind {
			return nil, fmt.Errorf("%s is not a %s; nothing written", key, sectionKind(kind))
		}
		return v, nil
	}
	v := &yaml.Node{Kind: kind}
	m.Content = append(m.Content, scalar("!!str", key), v)
	return v, nil
}

func sectionKind(k yaml.Kind) string {
	if k == yaml.SequenceNode {
		return "list"
	}
	return "mapping"
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path, syncs it
// and renames it over path.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	if err := f.Chmod(mode); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// EncodeYAML renders n with two-space indentation, as config files are
// written.
func EncodeYAML(n *yaml.Node) (string, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encode yaml: %w", err)
	}
	return b.String(), nil
}
