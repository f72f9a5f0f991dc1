// Package settingtest checks that a package's config section and its
// Options agree on defaults.
package settingtest

import (
	"reflect"
	"testing"
)

// DefaultsAgree fails t for every field that the package's own defaults
// fill in (non-zero in filled, which is the zero Options after the
// package's withDefaults) and that the config's default section, turned
// into Options (fromConfig), sets to something else (a zero there is
// filled by the package, so it agrees). Nested structs are compared field
// by field; functions, channels, interfaces and pointers (the live parts
// the wiring adds) are skipped.
func DefaultsAgree(t *testing.T, fromConfig, filled any) {
	t.Helper()
	c, f := reflect.ValueOf(fromConfig), reflect.ValueOf(filled)
	if c.Type() != f.Type() || c.Kind() != reflect.Struct {
		t.Fatalf("DefaultsAgree wants two structs of one type, got %T and %T", fromConfig, filled)
	}
	if compare(t, c, f, f.Type().Name()) == 0 {
		t.Fatalf("%T: the package fills no default, nothing compared", filled)
	}
}

func compare(t *testing.T, c, f reflect.Value, path string) (compared int) {
	t.Helper()
	for i := range f.NumField() {
		field := f.Type().Field(i)
		name := path + "." + field.Name
		switch field.Type.Kind() {
		case reflect.Func, reflect.Chan, reflect.Interface, reflect.Pointer, reflect.UnsafePointer:
			continue
		case reflect.Struct:
			if field.IsExported() {
				compared += compare(t, c.Field(i), f.Field(i), name)
			}
			continue
		}
		if !field.IsExported() || f.Field(i).IsZero() || c.Field(i).IsZero() {
			continue // not filled by the package, or left for it to fill
		}
		compared++
		if !reflect.DeepEqual(c.Field(i).Interface(), f.Field(i).Interface()) {
			t.Errorf("%s: the config's default is %v, the package's own is %v", name, c.Field(i).Interface(), f.Field(i).Interface())
		}
	}
	return compared
}
