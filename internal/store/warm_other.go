//go:build !linux

package store

// warm is a no-op where the page-cache hint of warm_linux.go is missing.
func warm(string) {}
