package daemon

import (
	"context"
	"errors"
	"log/slog"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/obs"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// boltPins keeps MCP tool definition pins in the store.
type boltPins struct{ db *store.DB }

func (p boltPins) Get(key string) (string, bool, error) {
	var v []byte
	err := p.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(store.BucketMCPPins).Get([]byte(key)); b != nil {
			v = append([]byte(nil), b...)
		}
		return nil
	})
	return string(v), v != nil, err
}

func (p boltPins) Put(key, hash string) error {
	return p.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(store.BucketMCPPins).Put([]byte(key), []byte(hash))
	})
}

func (p boltPins) Delete(key string) error {
	return p.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(store.BucketMCPPins).Delete([]byte(key))
	})
}

// mcpMetrics turns MCP measurements into events (the Prometheus backend
// derives its metrics from them).
type mcpMetrics struct{ bus *obs.Bus }

func (m mcpMetrics) ToolCall(server, tool string, d time.Duration, err error) {
	m.bus.Emit(context.Background(), beamclaw.Event{Name: "mcp_call", Attrs: []slog.Attr{
		slog.String("server", server), slog.String("tool", tool),
		slog.Int64("duration_ms", d.Milliseconds()), slog.Bool("success", err == nil)}})
}

func (m mcpMetrics) Restart(server string) {
	m.bus.Emit(context.Background(), beamclaw.Event{Name: "mcp_restart", Attrs: []slog.Attr{slog.String("server", server)}})
}

func (m mcpMetrics) ServerState(string, mcp.State) {}

// mcpServers converts config into the MCP package's options, resolving
// {env: VAR} values.
func mcpServers(cfg *config.Config, getenv func(string) string) ([]mcp.ServerConfig, error) {
	out := make([]mcp.ServerConfig, 0, len(cfg.MCP.Servers))
	var errs []error
	for _, s := range cfg.MCP.Servers {
		sc := mcp.ServerConfig{Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args,
			Cwd: s.Cwd, URL: s.URL, Timeout: time.Duration(s.TimeoutSeconds) * time.Second,
			Enabled: s.Enabled, Trust: s.Trust, Agents: s.Agents,
			Env: map[string]string{}, Headers: map[string]string{}}
		for k, v := range s.Env {
			val, ok := v.Resolve(getenv)
			if !ok {
				errs = append(errs, errors.New("mcp server "+s.Name+": env "+k+": "+v.Env+" is not set"))
				continue
			}
			sc.Env[k] = val
		}
		for k, v := range s.Headers {
			val, ok := v.Resolve(getenv)
			if !ok {
				errs = append(errs, errors.New("mcp server "+s.Name+": header "+k+": "+v.Env+" is not set"))
				continue
			}
			sc.Headers[k] = val
		}
		out = append(out, sc)
	}
	return out, errors.Join(errs...)
}
