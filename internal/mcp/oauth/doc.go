// Package oauth is beamclaw's client side of the MCP authorization spec
// (2025-11-25, with the 2025-03-26 fallbacks): it reads a server's
// WWW-Authenticate challenge, discovers the protected resource metadata
// (RFC 9728) and the authorization server's metadata (RFC 8414 and OpenID
// discovery), identifies the client (a pre-registered client, a Client ID
// Metadata Document URL, or dynamic registration, RFC 7591), runs the
// authorization code grant with PKCE S256 and the resource indicator (RFC
// 8707) over a loopback redirect, or the client_credentials grant, and
// keeps the tokens fresh (Source) for the HTTP transport (Transport).
// Every HTTP client of a server goes through a RedirectGuard: no redirect
// to another origin is followed, and the token is added on the server's
// origin only.
//
// It imports only the standard library, the clock, and mcp-go's PKCE and
// state generators; tokens are kept by a Store the caller provides (the
// daemon's is encrypted in bbolt). Nothing here logs a token, a code or a
// secret; errors carry the authorization server's error code and
// description only.
//
// mcp-go's own OAuthHandler (transport.WithHTTPOAuth) is not used: it has
// no root-path PRM fallback, no 2025-03-26 root metadata, drops the
// resource indicator when the metadata URL is given, picks no scopes from
// the challenge or the PRM, has no step-up on 403 insufficient_scope, no
// Client ID Metadata Documents and no client_credentials grant.
package oauth
