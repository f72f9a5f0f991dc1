package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// metadataKeys are the namespaces a metadata object may wrap its fields
// in, ours first: {"beamclaw": {...}} or OpenClaw's {"openclaw": {...}}.
var metadataKeys = []string{"beamclaw", "openclaw", "clawdbot"}

// metaFields is the shape of the metadata object, after unwrapping.
type metaFields struct {
	Emoji    string     `json:"emoji"`
	Homepage string     `json:"homepage"`
	OS       stringList `json:"os"`
	Requires struct {
		Bins    stringList `json:"bins"`
		AnyBins stringList `json:"anyBins"`
		Env     stringList `json:"env"`
		OS      stringList `json:"os"`
	} `json:"requires"`
	Install []struct {
		Kind    string     `json:"kind"`
		Package string     `json:"package"`
		Formula string     `json:"formula"`
		Module  string     `json:"module"`
		Bins    stringList `json:"bins"`
		Label   string     `json:"label"`
		OS      stringList `json:"os"`
	} `json:"install"`
}

// applyMetadata decodes the front matter's metadata, which may be a YAML
// mapping (JSON written inline is a YAML flow mapping) or a string holding
// JSON, and fills s.
func applyMetadata(s *Skill, raw any) error {
	obj, err := metadataObject(raw)
	if err != nil || obj == nil {
		return err
	}
	all, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode metadata: %w", err)
	}
	s.Metadata = all
	for _, k := range metadataKeys {
		if inner, ok := obj[k].(map[string]any); ok {
			obj = inner
			break
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode metadata: %w", err)
	}
	var m metaFields
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("decode metadata: %w", err)
	}
	s.Emoji = m.Emoji
	if s.Homepage == "" {
		s.Homepage = m.Homepage
	}
	s.Requires = Requires{
		Bins: m.Requires.Bins, AnyBins: m.Requires.AnyBins, Env: m.Requires.Env,
		OS: append(m.Requires.OS, m.OS...),
	}
	for _, in := range m.Install {
		pkg := firstNonEmpty(in.Package, in.Formula, in.Module)
		s.Install = append(s.Install, InstallSpec{
			Kind: strings.ToLower(strings.TrimSpace(in.Kind)), Package: strings.TrimSpace(pkg),
			Bins: in.Bins, Label: in.Label, OS: in.OS,
		})
	}
	return nil
}

// metadataObject turns the raw metadata into a JSON object; nil for none.
func metadataObject(raw any) (map[string]any, error) {
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return v, nil
	case string:
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, nil
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(v), &obj); err == nil {
			return obj, nil
		}
		// JSON with trailing commas (common in hand-written files) is
		// still a YAML flow mapping.
		if err := yaml.Unmarshal([]byte(v), &obj); err != nil || obj == nil {
			return nil, errors.New("metadata string is not a JSON object")
		}
		return obj, nil
	}
	return nil, fmt.Errorf("metadata is a %T, not an object", raw)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// stringList decodes a JSON string or array of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		if one != "" {
			*l = stringList{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*l = many
	return nil
}
