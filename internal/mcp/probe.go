package mcp

import (
	"context"
	"fmt"
)

// Probe connects to one server, performs the handshake, lists its tools
// and disconnects: `beamclaw mcp test NAME`, without a daemon. Of opts
// only ProtocolVersion, ClientVersion, Tokens and Clock matter. Changed
// is never set (no pins are read).
func Probe(ctx context.Context, cfg ServerConfig, opts Options) ([]ToolInfo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	c, err := dial(ctx, cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: connect: %w", cfg.Name, err)
	}
	defer c.close()
	raw, err := c.listTools(ctx, cfg.timeout())
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: %w", cfg.Name, err)
	}
	s := &server{cfg: cfg}
	tools := s.buildTools(raw)
	out := make([]ToolInfo, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.info())
	}
	return out, nil
}
