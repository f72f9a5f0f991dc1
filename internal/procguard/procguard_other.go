//go:build !linux

package procguard

import (
	"errors"
	"os/exec"
)

// Harden does nothing outside Linux.
func Harden() error { return nil }

// Isolation is what tool processes get.
type Isolation struct {
	Namespaces bool
	Err        error
}

// Isolator does nothing outside Linux.
type Isolator struct{}

// NewIsolator returns an Isolator that leaves processes as they are.
func NewIsolator() *Isolator { return &Isolator{} }

// Probe reports that tool processes are not isolated.
func (*Isolator) Probe() Isolation {
	return Isolation{Err: errors.New("tool process namespaces exist only on Linux")}
}

// Wrap leaves cmd as it is.
func (*Isolator) Wrap(*exec.Cmd) {}

// RunInit is not used outside Linux.
func RunInit([]string) int { return 127 }
