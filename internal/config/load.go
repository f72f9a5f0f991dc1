package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the largest config file Load reads.
const MaxFileBytes = 4 << 20

// Load reads, decodes and validates the config file at path. Keys absent
// from the file keep their defaults. A missing file is an error wrapping
// fs.ErrNotExist; use LoadOptional for the BEAMCLAW_HOME file, which may
// be absent.
func Load(path string) (*Config, error) {
	cfg, _, err := loadKeys(path)
	return cfg, err
}

// loadKeys is Load that also returns the line of every key the file sets.
func loadKeys(path string) (*Config, map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, nil, &Error{File: path, Msg: fmt.Sprintf("file larger than %d bytes", MaxFileBytes)}
	}
	return parseKeys(path, data)
}

// LoadOptional is Load, except that a missing file yields Default() with
// found false and no error.
func LoadOptional(path string) (cfg *Config, found bool, err error) {
	cfg, err = Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), false, nil
	}
	return cfg, err == nil, err
}

// Parse decodes data (named name in errors) over Default() and validates
// the result. Decoding problems are all reported together; when there are
// none, every Validate problem is reported, located in the file.
func Parse(name string, data []byte) (*Config, error) {
	cfg, _, err := parseKeys(name, data)
	return cfg, err
}

func parseKeys(name string, data []byte) (*Config, map[string]int, error) {
	cfg, lines, err := decodeOver(name, data, Default())
	if err != nil {
		return nil, nil, err
	}
	if err := locate(cfg.Validate(), name, lines); err != nil {
		return nil, nil, err
	}
	return cfg, lines, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// decodeOver decodes data onto base strictly, returning the positions of
// the keys it saw (dotted path to line).
func decodeOver(name string, data []byte, base *Config) (*Config, map[string]int, error) {
	root, err := parseDocument(data)
	if err != nil {
		e := &Error{File: name, Msg: err.Error()}
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = "syntax error: " + m[2]
		}
		return nil, nil, e
	}
	d := newDecoder()
	if root != nil {
		d.decode(root, reflect.ValueOf(base).Elem(), "")
	}
	if err := d.Err(); err != nil {
		return nil, nil, locate(err, name, d.lines)
	}
	return base, d.lines, nil
}

// parseDocument returns the top node of the single YAML document in data,
// or nil for an empty document.
func parseDocument(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document (remove the extra ---)")
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return nil, nil
}
