// Package setting is what a subsystem needs to own its section of
// config.yaml: the value types the file is written in ({env: VAR}
// secrets, literal-or-env values, durations, UTC hour ranges) and
// Problems, the list a section's Validate fills with every problem under
// its dotted key path.
//
// A subsystem declares its section as a plain struct with yaml tags, a
// DefaultConfig and a Validate(*Problems) beside the code that uses it;
// internal/config composes the sections into the file, decodes it
// strictly and asks each section to validate itself (ADR-025). This
// package is a leaf: it imports only the vocabulary, scrub (the one
// definition of what looks like a secret) and the YAML node type.
package setting
