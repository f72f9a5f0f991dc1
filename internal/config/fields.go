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
func Fields(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" && opts == "inline" && f.Type.Kind() == reflect.Struct {
			for _, in := range Fields(f.Type) {
				out = append(out, Field{Name: in.Name, Index: append([]int{i}, in.Index...)})
			}
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		out = append(out, Field{Name: name, Index: []int{i}})
	}
	return out
}
