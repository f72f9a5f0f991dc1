package config

import (
	"reflect"
	"strings"
)

// Field is one key of a struct in the file: its YAML name and where it is
// (an index path, through the structs a section inlines).
type Field struct {
	Name  string
	Index []int
}

// Fields lists the keys of struct type t in order. A field tagged
// `yaml:",inline"` contributes its own keys at its place: a section owned
// by another package (session.Config inside core) keeps its keys where
// the file has always had them. Untagged and "-" fields are not keys.
// A schema that inlines anything but a struct, or names a key twice, is a
// programming error: Fields panics, and every config test hits it.
func Fields(t reflect.Type) []Field {
	var out []Field
	seen := map[string]bool{}
	add := func(f Field) {
		if seen[f.Name] {
			panic("config: key " + f.Name + " of " + t.String() + " is declared twice")
		}
		seen[f.Name] = true
		out = append(out, f)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			if name != "" || f.Type.Kind() != reflect.Struct {
				panic("config: " + t.String() + "." + f.Name + ": only an unnamed struct field can be inlined")
			}
			for _, in := range Fields(f.Type) {
				add(Field{Name: in.Name, Index: append([]int{i}, in.Index...)})
			}
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		add(Field{Name: name, Index: []int{i}})
	}
	return out
}
