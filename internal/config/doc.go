// Package config holds beamclaw's configuration: the plain-data schema of
// config.yaml (sections core, gateway, tools, memory, mcp, a2a,
// sandbox, scheduler, obs), its built-in defaults, a strict YAML decoder that reports
// every unknown key or wrong type with file, line and dotted key path,
// Validate, {env: VAR} secrets resolved at run time, the rendering used by
// `beamclaw config show`, and the file layout under BEAMCLAW_HOME.
//
// It imports the beamclaw vocabulary and scrub (the one definition of what
// looks like a secret). Only cmd/beamclaw, internal/daemon and
// internal/admin may import it; every other package receives its own small
// Options struct built by the daemon. Reserved lists the sections whose
// subsystem is not built yet; a test in the daemon proves every other key
// reaches the code.
package config
