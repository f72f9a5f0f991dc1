package config

import (
	"reflect"
	"testing"
)

// A section listed as reserved is named, leaf by leaf and in file order,
// by the warnings that config check, doctor and start print.
func TestWarningsNameReservedKeys(t *testing.T) {
	l := Loaded{Paths: Paths{ConfigFile: "config.yaml"}, Keys: map[string]int{
		"console": 9, "console.enabled": 10, "console.port": 11, "memory.backend": 3,
	}}
	got := l.warnings([]Reservation{{Prefix: "console", Why: "the console is not built yet"}})
	want := []string{
		"config.yaml:10: console.enabled does nothing: the console is not built yet",
		"config.yaml:11: console.port does nothing: the console is not built yet",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	if w := l.Warnings(); len(w) != 0 {
		t.Errorf("with nothing reserved: %q", w)
	}
}
