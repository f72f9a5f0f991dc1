// Package freeport finds loopback ports for a test to give a daemon it
// has not started yet (a cluster node's client and route ports, a load
// test's fixed address).
//
// A port asked of the kernel with :0 and let go is in the ephemeral
// range, and the kernel hands it out again to the next bind to :0 or
// the next outgoing connection, often before the daemon binds it (a
// cluster e2e once failed so: "bind: address already in use"). The ports
// here come from below that range, where nothing is handed out unasked;
// they are picked at random so that test processes running side by side
// rarely pick the same, and each is free when it is handed over.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Where the ports come from when the ephemeral range cannot be read
// (Linux's default range starts at 32768).
const (
	lowest   = 20000
	ephemera = 32768
)

// Ports returns n distinct loopback ports nothing listens on, none in
// the kernel's ephemeral range.
func Ports(n int) ([]int, error) {
	top := ephemeralStart()
	return ports(n, top, func() int { return lowest + rand.IntN(top-lowest) })
}

// ports is Ports with the ephemeral range's start and the candidates
// (which pick gives) fixed.
func ports(n, top int, pick func() int) ([]int, error) {
	if top-lowest < 4*n {
		return nil, fmt.Errorf("freeport: the ephemeral range starts at %d, too low for %d ports above %d", top, n, lowest)
	}
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	out := make([]int, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries > 100*n {
			return nil, errors.New("freeport: no free loopback port below the ephemeral range")
		}
		p := pick()
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // taken
		}
		held = append(held, l)
		out = append(out, p)
	}
	return out, nil
}

// Addr is one free loopback address, host:port.
func Addr() (string, error) {
	ps, err := Ports(1)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ps[0])), nil
}

// ephemeralStart is the first port of the kernel's ephemeral range.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return ephemera
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ephemera
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil {
		return ephemera
	}
	return lo
}
