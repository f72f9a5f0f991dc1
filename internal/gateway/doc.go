// Package gateway is beamclaw's HTTP edge: one chi router with an explicit
// middleware stack (request id, access log, panic recovery, metrics, body
// limit, per-client sliding-window rate limit, bearer auth) serving
// /health, /ready, /metrics, the OpenAI-compatible /v1 routes and /ws, plus routes
// other edges mount (/webhook/telegram, /a2a). The same routes, without the
// bearer check, are served on the daemon's control socket together with
// the control routes.
//
// Only internal/daemon imports it. It declares the small interfaces it
// needs (Sessions, Metrics) and is handed their implementations.
package gateway
