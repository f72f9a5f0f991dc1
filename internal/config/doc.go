// Package config holds beamclaw's configuration: the plain-data schema of
// config.yaml (sections core, gateway, tools, memory, mcp, sandbox,
// scheduler, obs), its built-in defaults, a strict YAML decoder that reports
// every unknown key or wrong type with file, line and dotted key path,
// Validate, {env: VAR} secrets resolved at run time, the rendering used by
// `beamclaw config show`, and the file layout under BEAMCLAW_HOME.
//
// It imports nothing internal. Only cmd/beamclaw, internal/cli and
// internal/daemon may import it; every other package receives its own small
// Options struct built by the daemon.
package config
