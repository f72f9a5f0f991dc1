package builtin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ErrBlockedAddress is wrapped by every refusal of the SSRF guard.
var ErrBlockedAddress = errors.New("blocked address")

// blockedPrefixes are never reachable by curl unless allow_private is set.
var blockedPrefixes = mustPrefixes(
	"0.0.0.0/8",      // "this network", unspecified
	"10.0.0.0/8",     // RFC 1918
	"100.64.0.0/10",  // CGNAT
	"127.0.0.0/8",    // loopback
	"169.254.0.0/16", // link-local, cloud metadata (169.254.169.254)
	"172.16.0.0/12",  // RFC 1918
	"192.0.0.0/24",   // IETF protocol assignments
	"192.168.0.0/16", // RFC 1918
	"198.18.0.0/15",  // benchmarking
	"224.0.0.0/4",    // multicast
	"240.0.0.0/4",    // reserved, broadcast
	"::/128",         // unspecified
	"::1/128",        // loopback
	"fc00::/7",       // unique local (ULA)
	"fe80::/10",      // link-local
	"ff00::/8",       // multicast
	"100::/64",       // discard-only
	"2001:db8::/32",  // documentation
)

// Prefixes that embed an IPv4 address, checked against the embedded one.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// CheckPublicIP returns an error wrapping ErrBlockedAddress when ip is
// loopback, private (RFC 1918, CGNAT, ULA), link-local (including the
// cloud metadata address), unspecified, multicast or otherwise reserved,
// looking through IPv4-mapped, NAT64 and 6to4 forms.
func CheckPublicIP(ip net.IP) error {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return fmt.Errorf("%w: %q is not an IP address", ErrBlockedAddress, ip.String())
	}
	return checkAddr(addr.Unmap())
}

func checkAddr(addr netip.Addr) error {
	addr = addr.WithZone("")
	for _, p := range blockedPrefixes {
		if p.Contains(addr) {
			return fmt.Errorf("%w: %s is a private, loopback, link-local or reserved address", ErrBlockedAddress, addr)
		}
	}
	if addr.Is6() {
		b := addr.As16()
		switch {
		case nat64Prefix.Contains(addr):
			return checkAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(addr):
			return checkAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return nil
}

// Resolver is what the guard needs of a DNS resolver (net.DefaultResolver
// satisfies it; tests inject fixed answers).
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// GuardedDialer returns a DialContext for an http.Transport that reaches
// only addresses check accepts (nil accepts every address): the curl
// tool's guard, for the other clients of URLs a peer or a model chose (A2A
// push notifications). resolver nil is net.DefaultResolver.
func GuardedDialer(check func(net.IP) error, resolver Resolver, timeout time.Duration) func(ctx context.Context, network, address string) (net.Conn, error) {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	return newGuardedDialer(check, resolver, timeout).DialContext
}

// CheckHost resolves host (a name or an IP literal) and returns an error
// wrapping ErrBlockedAddress when check refuses any of its addresses, so
// that a URL can be refused when it is configured, not only when it is
// dialled (which GuardedDialer still checks, against DNS rebinding).
func CheckHost(ctx context.Context, check func(net.IP) error, resolver Resolver, host string) error {
	if ip := net.ParseIP(host); ip != nil {
		return check(ip)
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	addrs, err := resolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("resolve %s: no addresses", host)
	}
	for _, a := range addrs {
		if err := check(a.IP); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return nil
}

// guardedDialer resolves names itself, checks every candidate address and
// checks again, in the socket's Control hook, the address actually being
// connected to, so DNS rebinding between check and connect cannot slip in.
type guardedDialer struct {
	check    func(net.IP) error // nil allows everything
	resolver Resolver
	dialer   net.Dialer
}

func newGuardedDialer(check func(net.IP) error, resolver Resolver, timeout time.Duration) *guardedDialer {
	g := &guardedDialer{check: check, resolver: resolver}
	g.dialer = net.Dialer{Timeout: timeout, Control: g.control}
	return g
}

func (g *guardedDialer) control(_, address string, _ syscall.RawConn) error {
	if g.check == nil {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBlockedAddress, err)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("%w: %q is not an IP address", ErrBlockedAddress, host)
	}
	return g.check(ip)
}

// DialContext dials the first allowed address host resolves to.
func (g *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		addrs, err := g.resolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	var firstErr error
	for _, ip := range ips {
		if g.check != nil {
			if err := g.check(ip); err != nil {
				firstErr = cmpErr(firstErr, fmt.Errorf("%s: %w", host, err))
				continue
			}
		}
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		firstErr = cmpErr(firstErr, err)
	}
	return nil, firstErr
}

func cmpErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}
