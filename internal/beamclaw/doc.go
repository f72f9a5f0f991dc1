// Package beamclaw is the vocabulary every other package of beamclaw-go
// shares: identifiers, messages, tool calls and results, attachments,
// events, errors with a Kind, and the few contracts every edge agrees on
// (Provider, Tool, Route). It imports only the standard library and holds
// no logic beyond validation. Any package may import it.
package beamclaw
