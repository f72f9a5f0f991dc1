//go:build !linux

package procguard

import "syscall"

// Harden does nothing outside Linux.
func Harden() error { return nil }

// Isolate is nothing outside Linux.
func Isolate(func(error)) func(*syscall.SysProcAttr) { return nil }
