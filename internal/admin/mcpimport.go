package admin

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// redacted stands where an imported credential could not become an
// {env: VAR} reference (command-line arguments, URL query values).
const redacted = "REDACTED"

// importedServer is one mcp.servers entry as `mcp import` writes it: only
// the keys that differ from the defaults.
type importedServer struct {
	Name      string                     `yaml:"name"`
	Transport string                     `yaml:"transport"`
	Command   string                     `yaml:"command,omitempty"`
	Args      []string                   `yaml:"args,omitempty"`
	Env       map[string]config.EnvValue `yaml:"env,omitempty"`
	Cwd       string                     `yaml:"cwd,omitempty"`
	URL       string                     `yaml:"url,omitempty"`
	Headers   map[string]config.EnvValue `yaml:"headers,omitempty"`
	Enabled   *bool                      `yaml:"enabled,omitempty"`
}

var (
	serverNameBadRE = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
	envVarBadRE     = regexp.MustCompile(`[^A-Z0-9_]+`)
	envVarRE        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// MCPImport converts a Claude-Desktop style mcpServers JSON file into
// mcp.servers YAML. Values that look like credentials become {env: VAR}
// references (the notes say what to export) and are never printed. With
// write, the servers are appended to the config file, which is created
// when missing; names already configured are refused.
func (a *Admin) MCPImport(file string, write bool) (protocol.MCPImport, error) {
	f, err := os.Open(file)
	if err != nil {
		return protocol.MCPImport{}, fmt.Errorf("mcp import: %w", err)
	}
	defer f.Close()
	parsed, err := mcp.ParseMCPServersJSON(f)
	if err != nil {
		return protocol.MCPImport{}, err
	}
	if len(parsed) == 0 {
		return protocol.MCPImport{}, fmt.Errorf("mcp import: %s lists no servers", file)
	}
	var out protocol.MCPImport
	servers := make([]importedServer, 0, len(parsed))
	for _, s := range parsed {
		is, notes := convertImported(s, file)
		servers = append(servers, is)
		out.Servers = append(out.Servers, is.Name)
		out.Notes = append(out.Notes, notes...)
	}
	seq, err := serversNode(servers)
	if err != nil {
		return protocol.MCPImport{}, err
	}
	block := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		scalar("mcp"), {Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("servers"), seq}},
	}}
	if out.YAML, err = config.EncodeYAML(block); err != nil {
		return protocol.MCPImport{}, err
	}
	if !write {
		return out, nil
	}
	paths, err := a.paths()
	if err != nil {
		return protocol.MCPImport{}, err
	}
	target := paths.ConfigFile
	if err := config.AppendMCPServers(target, seq.Content, out.Servers); err != nil {
		return protocol.MCPImport{}, err
	}
	out.Written = target
	return out, nil
}

// convertImported turns one parsed entry into config, moving credentials
// out of it.
func convertImported(s mcp.ImportedServer, file string) (importedServer, []string) {
	name := strings.Trim(serverNameBadRE.ReplaceAllString(s.Name, "-"), "-")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "server"
	}
	var notes []string
	if name != s.Name {
		notes = append(notes, fmt.Sprintf("server %q is named %q here (names use A-Z a-z 0-9 _ -)", s.Name, name))
	}
	for _, w := range s.Warnings {
		notes = append(notes, "server "+name+": "+w)
	}
	out := importedServer{Name: name, Transport: s.Transport, Command: s.Command, Cwd: s.Cwd,
		Args: slices.Clone(s.Args)}
	disable := !s.Enabled
	out.Env, notes = envValues(name, "env", s.Env, s.SecretEnv, file, notes)
	out.Headers, notes = envValues(name, "header", s.Headers, s.SecretHeaders, file, notes)
	for _, i := range s.SecretArgs {
		out.Args[i] = redacted
		disable = true
		notes = append(notes, fmt.Sprintf("server %s: argument %d looked like a credential and was not copied; "+
			"the server stays disabled until you fix its args (pass the credential through env: {env: VAR} if the server reads one)", name, i+1))
	}
	var urlNote bool
	out.URL, urlNote = redactURL(s.URL)
	if urlNote {
		disable = true
		notes = append(notes, fmt.Sprintf("server %s: the URL carried a credential in its query and it was not copied; "+
			"the server stays disabled until you fix its url (prefer a header with {env: VAR})", name))
	}
	if disable {
		f := false
		out.Enabled = &f
	}
	return out, notes
}

// envValues keeps literal values and turns secret-looking ones into
// {env: VAR} references with a note to export VAR.
func envValues(server, what string, in map[string]string, secret []string, file string, notes []string) (map[string]config.EnvValue, []string) {
	if len(in) == 0 {
		return nil, notes
	}
	out := make(map[string]config.EnvValue, len(in))
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := in[k]
		if !slices.Contains(secret, k) && !scrub.LooksLikeSecret(v) {
			out[k] = config.EnvValue{Value: v}
			continue
		}
		name := k
		if what != "env" || !envVarRE.MatchString(k) {
			name = envVarBadRE.ReplaceAllString(strings.ToUpper("MCP_"+server+"_"+k), "_")
		}
		out[k] = config.EnvValue{Env: name}
		notes = append(notes, fmt.Sprintf("server %s: %s %s is a credential: export %s with the value from %s before starting beamclaw",
			server, what, k, name, file))
	}
	return out, notes
}

// redactURL drops query values whose names look like credentials.
func redactURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.RawQuery == "" {
		return raw, false
	}
	q := u.Query()
	found := false
	for k := range q {
		if scrub.IsSecretName(k) {
			q.Set(k, redacted)
			found = true
		}
	}
	if !found {
		return raw, false
	}
	u.RawQuery = q.Encode()
	return u.String(), true
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func serversNode(servers []importedServer) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(servers); err != nil {
		return nil, fmt.Errorf("mcp import: encode: %w", err)
	}
	return &n, nil
}
