package config

import (
	"reflect"
	"strings"
	"testing"
)

// Fields reads inlined structs at their place, and refuses a schema that
// inlines something else or declares a key twice.
func TestFields(t *testing.T) {
	type inner struct {
		B int `yaml:"b"`
	}
	type good struct {
		A     int `yaml:"a"`
		inner `yaml:",inline"`
		C     int `yaml:"c"`
		D     int `yaml:"-"`
	}
	var names []string
	for _, f := range Fields(reflect.TypeFor[good]()) {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("Fields = %v, want a, b, c", names)
	}
	type twice struct {
		inner `yaml:",inline"`
		B     int `yaml:"b"`
	}
	type badInline struct {
		P *inner `yaml:",inline"`
	}
	for name, typ := range map[string]reflect.Type{"a key twice": reflect.TypeFor[twice](), "a pointer inlined": reflect.TypeFor[badInline]()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			Fields(typ)
		}()
	}
}
