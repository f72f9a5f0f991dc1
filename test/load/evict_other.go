//go:build !linux

package load

import "errors"

func evict(string) error { return errors.New("evicting a file from the page cache needs Linux") }
