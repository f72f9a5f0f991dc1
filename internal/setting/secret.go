package setting

import (
	"errors"
	"fmt"
	"regexp"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
)

// Secret names the environment variable that holds a credential. In YAML it
// is written {env: VAR_NAME}; a literal value is refused, so credentials
// never live in the config file. The zero Secret means "none configured".
type Secret struct {
	Env string
}

// Env returns a Secret read from the environment variable name.
func Env(name string) Secret { return Secret{Env: name} }

// IsZero reports whether no variable is configured.
func (s Secret) IsZero() bool { return s.Env == "" }

// Resolve reads the secret through getenv (os.Getenv in production). ok is
// false when no variable is configured or it is empty.
func (s Secret) Resolve(getenv func(string) string) (string, bool) {
	if s.Env == "" || getenv == nil {
		return "", false
	}
	v := getenv(s.Env)
	return v, v != ""
}

// String renders the reference, never a value: "{env: VAR}" or "".
func (s Secret) String() string {
	if s.Env == "" {
		return ""
	}
	return "{env: " + s.Env + "}"
}

// MarshalYAML writes {env: VAR}, or null for no secret.
func (s Secret) MarshalYAML() (any, error) {
	return EnvNode(s.Env), nil
}

// UnmarshalYAML accepts {env: VAR} or null and refuses literal strings.
func (s *Secret) UnmarshalYAML(n *yaml.Node) error {
	if IsNull(n) {
		*s = Secret{}
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		if n.Value == "" {
			*s = Secret{}
			return nil
		}
		return literalSecretError(n.Value)
	}
	name, err := envRef(n)
	if err != nil {
		return err
	}
	*s = Secret{Env: name}
	return nil
}

// EnvValue is a value that is either a literal (refused when it looks like
// a credential) or {env: VAR} read at run time. MCP server env and headers
// use it.
type EnvValue struct {
	Value string
	Env   string
}

// Resolve returns the literal, or the variable's value through getenv; ok
// is false when a referenced variable is unset or empty.
func (v EnvValue) Resolve(getenv func(string) string) (string, bool) {
	if v.Env == "" {
		return v.Value, true
	}
	if getenv == nil {
		return "", false
	}
	s := getenv(v.Env)
	return s, s != ""
}

// MarshalYAML writes the literal or {env: VAR}.
func (v EnvValue) MarshalYAML() (any, error) {
	if v.Env != "" {
		return EnvNode(v.Env), nil
	}
	return v.Value, nil
}

// UnmarshalYAML accepts a non-secret literal or {env: VAR}.
func (v *EnvValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if IsNull(n) {
			*v = EnvValue{}
			return nil
		}
		if scrub.LooksLikeSecret(n.Value) {
			return errLooksLikeSecret
		}
		*v = EnvValue{Value: n.Value}
		return nil
	}
	name, err := envRef(n)
	if err != nil {
		return err
	}
	*v = EnvValue{Env: name}
	return nil
}

var errLooksLikeSecret = errors.New("looks like a secret: write {env: VAR} instead")

func literalSecretError(v string) error {
	if scrub.LooksLikeSecret(v) {
		return errLooksLikeSecret
	}
	return errors.New("secret fields take {env: VAR}, not a literal value")
}

var envNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// IsEnvName reports whether s is a valid environment variable name.
func IsEnvName(s string) bool { return envNameRE().MatchString(s) }

// envRef reads the mapping {env: NAME}.
func envRef(n *yaml.Node) (string, error) {
	if n.Kind != yaml.MappingNode {
		return "", fmt.Errorf("expected {env: VAR}, got %s", KindName(n))
	}
	if len(n.Content) != 2 || n.Content[0].Value != "env" {
		return "", errors.New("expected exactly one key, env: write {env: VAR}")
	}
	val := n.Content[1]
	if val.Kind != yaml.ScalarNode || IsNull(val) {
		return "", errors.New("env: expected a variable name")
	}
	if scrub.LooksLikeSecret(val.Value) {
		return "", errors.New("env: takes a variable name, and this looks like a secret value")
	}
	if !IsEnvName(val.Value) {
		return "", fmt.Errorf("env: %q is not a valid environment variable name", val.Value)
	}
	return val.Value, nil
}

// EnvNode is the YAML of a reference: {env: NAME}, or null for none.
func EnvNode(name string) *yaml.Node {
	if name == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "env"},
		{Kind: yaml.ScalarNode, Value: name},
	}}
}
