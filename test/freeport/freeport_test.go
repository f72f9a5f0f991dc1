package freeport

import (
	"net"
	"strconv"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/leak"
)

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }

// The ports handed over are distinct, below the kernel's ephemeral
// range (where a bind to :0 or an outgoing connection could take them
// first) and free: a daemon can bind each.
func TestPortsAreFreeAndBelowTheEphemeralRange(t *testing.T) {
	top := ephemeralStart()
	for range 20 {
		ps, err := Ports(6)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, p := range ps {
			if p < lowest || p >= top {
				t.Fatalf("port %d outside [%d, %d)", p, lowest, top)
			}
			if seen[p] {
				t.Fatalf("port %d handed twice in %v", p, ps)
			}
			seen[p] = true
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				t.Fatalf("port %d is not free: %v", p, err)
			}
			l.Close()
		}
	}
}

// A port something listens on, or one already handed over in the same
// call, is never handed over; a range that is all taken is an error.
func TestPortsSkipOnesInUse(t *testing.T) {
	busy, err := Ports(1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(busy[0])))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	free, err := Ports(1)
	if err != nil {
		t.Fatal(err)
	}
	seq := []int{busy[0], free[0], free[0], busy[0]}
	pick := func() int {
		p := seq[0]
		if len(seq) > 1 {
			seq = seq[1:]
		}
		return p
	}
	got, err := ports(1, ephemeralStart(), pick)
	if err != nil || len(got) != 1 || got[0] != free[0] {
		t.Fatalf("ports = %v, %v; want [%d] (port %d is listened on)", got, err, free[0], busy[0])
	}
	seq = []int{free[0], free[0], busy[0]}
	if got, err := ports(2, ephemeralStart(), pick); err == nil {
		t.Fatalf("ports = %v from a range whose only free port is %d; want an error", got, free[0])
	}
}
