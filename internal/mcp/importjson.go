package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
)

// maxImportSize bounds an imported mcpServers file.
const maxImportSize = 4 << 20

// ImportedServer is one entry of an mcpServers JSON file (Claude Desktop,
// Cursor, VS Code, Cline) as the CLI needs it to write config: literal
// values are kept; Secret* name the ones that look like credentials so the
// CLI can move them to {env: VAR}.
type ImportedServer struct {
	Name          string
	Transport     string // "stdio" or "http"
	Command       string
	Args          []string
	Env           map[string]string
	Cwd           string
	URL           string
	Headers       map[string]string
	Enabled       bool
	SecretEnv     []string // Env keys whose values look secret, sorted
	SecretHeaders []string // Headers keys whose values look secret, sorted
	SecretArgs    []int    // indexes into Args of values that look secret
	Warnings      []string
}

type importEntry struct {
	Type      string            `json:"type"`
	Transport string            `json:"transport"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	Cwd       string            `json:"cwd"`
	URL       string            `json:"url"`
	ServerURL string            `json:"serverUrl"`
	Headers   map[string]string `json:"headers"`
	Disabled  bool              `json:"disabled"`
}

// ParseMCPServersJSON reads {"mcpServers": {NAME: {...}}} (or VS Code's
// "servers") and returns the servers sorted by name. Every malformed entry
// is reported at once.
func ParseMCPServersJSON(r io.Reader) ([]ImportedServer, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxImportSize+1))
	if err != nil {
		return nil, fmt.Errorf("read mcpServers json: %w", err)
	}
	if len(data) > maxImportSize {
		return nil, fmt.Errorf("mcpServers json: larger than %d bytes", maxImportSize)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("mcpServers json: %w", err)
	}
	entries := doc.MCPServers
	if entries == nil {
		entries = doc.Servers
	}
	if entries == nil {
		return nil, errors.New(`mcpServers json: no "mcpServers" object`)
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	var (
		out  []ImportedServer
		errs []error
	)
	for _, name := range names {
		s, err := importOne(name, entries[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
			continue
		}
		out = append(out, s)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("mcpServers json: %w", err)
	}
	return out, nil
}

func importOne(name string, raw json.RawMessage) (ImportedServer, error) {
	if strings.TrimSpace(name) == "" {
		return ImportedServer{}, errors.New("empty name")
	}
	var e importEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ImportedServer{}, err
	}
	s := ImportedServer{
		Name: name, Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd,
		URL: e.URL, Headers: e.Headers, Enabled: !e.Disabled,
	}
	if s.URL == "" {
		s.URL = e.ServerURL
	}
	kind := strings.ToLower(e.Type)
	if kind == "" {
		kind = strings.ToLower(e.Transport)
	}
	switch {
	case kind == "sse":
		s.Transport = TransportHTTP
		s.Warnings = append(s.Warnings, "legacy SSE transport: beamclaw speaks streamable HTTP only; check the server's URL")
	case kind == "stdio" || (kind == "" && s.Command != ""):
		s.Transport = TransportStdio
	case kind == "http" || kind == "streamable-http" || kind == "streamablehttp" || (kind == "" && s.URL != ""):
		s.Transport = TransportHTTP
	default:
		return ImportedServer{}, fmt.Errorf("type %q: want stdio, http or sse, or a command or url", e.Type)
	}
	if s.Transport == TransportStdio && s.Command == "" {
		return ImportedServer{}, errors.New("command is required for stdio")
	}
	if s.Transport == TransportHTTP && s.URL == "" {
		return ImportedServer{}, errors.New("url is required for http")
	}
	s.SecretEnv = secretKeys(s.Env)
	s.SecretHeaders = secretKeys(s.Headers)
	for i, a := range s.Args {
		if scrub.LooksLikeSecret(a) {
			s.SecretArgs = append(s.SecretArgs, i)
		}
	}
	return s, nil
}

func secretKeys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		if v != "" && (scrub.IsSecretName(k) || scrub.LooksLikeSecret(v)) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
