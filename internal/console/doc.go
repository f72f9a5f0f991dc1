// Package console is the web console at /console: server-rendered pages
// (html/template, with htmx and one small module for the chat stream over
// /ws, all embedded) over the same control API the CLI and /api/v1 use,
// called in process. It signs a browser in by exchanging the gateway
// token or a one-time code from `beamclaw console` for an HttpOnly,
// SameSite=Strict cookie; every page carries a strict Content Security
// Policy and every change a CSRF token (docs/console.md).
package console
