package gateway

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientIP returns the address a request is rate-limited on: the peer
// address, or — only when the peer is a trusted proxy — the right-most
// X-Forwarded-For entry that is not itself a trusted proxy.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return r.RemoteAddr // a Unix socket peer, say
	}
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		a = a.Unmap()
		if !isTrusted(a, trusted) {
			return a.String()
		}
	}
	return peer.String()
}

func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseTrusted turns config entries (IPs or CIDRs) into prefixes.
func ParseTrusted(entries []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(entries))
	for _, e := range entries {
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, &net.ParseError{Type: "IP address or CIDR", Text: e}
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// rateKey is what the rate limit counts a client by: its address, or the
// /64 of an IPv6 address (one host usually holds a whole /64, and could
// otherwise rotate through it for fresh budgets).
func rateKey(client string) string {
	a, err := netip.ParseAddr(client)
	if err != nil || !a.Is6() || a.Is4In6() {
		return client
	}
	p, err := a.Prefix(64)
	if err != nil {
		return client
	}
	return p.String()
}

type httpsKey struct{}

// forwardedProto marks a request a trusted proxy received over TLS
// (X-Forwarded-Proto: https from an address of Options.TrustedProxies):
// its page's origin is https (OwnOrigin), its cookies Secure (IsHTTPS).
func (s *Server) forwardedProto(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peer := peerAddr(r.RemoteAddr); peer.IsValid() && isTrusted(peer, s.opts.TrustedProxies) &&
			strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https") {
			r = r.WithContext(context.WithValue(r.Context(), httpsKey{}, true))
		}
		next.ServeHTTP(w, r)
	})
}

// IsHTTPS reports whether the browser reached r over TLS: this listener's
// own, or a trusted proxy's.
func IsHTTPS(r *http.Request) bool {
	fwd, _ := r.Context().Value(httpsKey{}).(bool)
	return r.TLS != nil || fwd
}
