package config

import (
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// maxNodes bounds the nodes visited while decoding one document, so alias
// expansion ("billion laughs") cannot make decoding explode.
const maxNodes = 200_000

// maxDepth bounds nesting, including nesting reached through aliases.
const maxDepth = 64

// nodeUnmarshaler is implemented by types with their own YAML shape
// (Secret, EnvValue, Duration).
type nodeUnmarshaler interface {
	UnmarshalYAML(n *yaml.Node) error
}

// defaulter is implemented by map and list element types whose new entries
// start from defaults rather than zero values.
type defaulter interface {
	SetDefaults()
}

// decoder walks a yaml.Node tree into a value by reflection, recording every
// problem with its line and dotted key path instead of stopping at the first.
type decoder struct {
	problems
	lines  map[string]int
	budget int
	depth  int
	tooBig bool
}

func newDecoder() *decoder {
	return &decoder{lines: make(map[string]int), budget: maxNodes}
}

func (d *decoder) fail(n *yaml.Node, key, format string, args ...any) {
	d.Append(&Error{Line: n.Line, Key: key, Msg: setting.Message(format, args)})
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// decode stores n into v. A null value keeps what v holds (its default),
// except for types that give null a meaning of their own (Secret).
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	d.depth++
	defer func() { d.depth-- }()
	if d.budget--; d.budget < 0 || d.depth > maxDepth {
		if !d.tooBig {
			d.tooBig = true
			d.fail(n, path, "document too large or too deeply nested (aliases included)")
		}
		return
	}
	n = resolve(n)
	if n.Kind == yaml.AliasNode {
		d.fail(n, path, "unresolvable alias")
		return
	}
	if u, ok := v.Addr().Interface().(nodeUnmarshaler); ok {
		if err := u.UnmarshalYAML(n); err != nil {
			d.fail(n, path, "%v", err)
		}
		return
	}
	if setting.IsNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.Array:
		d.decodeArray(n, v, path)
	default:
		d.decodeScalar(n, v, path)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// keyName returns a mapping key's text, redacted if it looks like a secret
// so that no credential is ever echoed in an error.
func keyName(k *yaml.Node) string {
	if scrub.LooksLikeSecret(k.Value) {
		return "<redacted>"
	}
	return k.Value
}

func yamlFields(t reflect.Type) (map[string][]int, []string) {
	fields := Fields(t)
	idx := make(map[string][]int, len(fields))
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		idx[f.Name] = f.Index
		names = append(names, f.Name)
	}
	return idx, names
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", setting.KindName(n))
		return
	}
	idx, names := yamlFields(v.Type())
	seen := make(map[string]bool)
	d.eachPair(n, v, path, func(k, val *yaml.Node) {
		key := keyName(k)
		p := join(path, key)
		if seen[k.Value] {
			d.fail(k, p, "duplicate key")
			return
		}
		seen[k.Value] = true
		i, ok := idx[k.Value]
		if !ok {
			d.fail(k, p, "unknown key%s", suggest(k.Value, names))
			return
		}
		d.lines[p] = k.Line
		d.decode(val, v.FieldByIndex(i), p)
	})
}

// eachPair calls fn for every key/value of a mapping, after applying YAML
// merge keys (<<: *anchor) to v first so explicit keys win.
func (d *decoder) eachPair(n *yaml.Node, v reflect.Value, path string, fn func(k, val *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			d.merge(n.Content[i+1], v, path)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.fail(k, path, "mapping keys must be strings, got %s", setting.KindName(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			continue
		}
		fn(k, val)
	}
}

func (d *decoder) merge(val *yaml.Node, v reflect.Value, path string) {
	val = resolve(val)
	if val.Kind == yaml.SequenceNode {
		for _, m := range val.Content {
			d.decode(m, v, path)
		}
		return
	}
	d.decode(val, v, path)
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", setting.KindName(n))
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	et := v.Type().Elem()
	seen := make(map[string]bool)
	d.eachPair(n, v, path, func(k, val *yaml.Node) {
		p := join(path, keyName(k))
		if seen[k.Value] {
			d.fail(k, p, "duplicate key")
			return
		}
		seen[k.Value] = true
		d.lines[p] = k.Line
		key := reflect.ValueOf(k.Value)
		elem := reflect.New(et).Elem()
		if old := v.MapIndex(key); old.IsValid() {
			elem.Set(old)
		} else if def, ok := elem.Addr().Interface().(defaulter); ok {
			def.SetDefaults()
		}
		d.decode(val, elem, p)
		v.SetMapIndex(key, elem)
	})
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "expected a list, got %s", setting.KindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		p := path + "[" + strconv.Itoa(i) + "]"
		d.lines[p] = item.Line
		elem := s.Index(i)
		if def, ok := elem.Addr().Interface().(defaulter); ok {
			def.SetDefaults()
		}
		d.decode(item, elem, p)
	}
	v.Set(s)
}

func (d *decoder) decodeArray(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode || len(n.Content) != v.Len() {
		d.fail(n, path, "expected a list of %d items, got %s", v.Len(), setting.KindName(n))
		return
	}
	for i, item := range n.Content {
		d.decode(item, v.Index(i), path+"["+strconv.Itoa(i)+"]")
	}
}

// decodeScalar stores strings, integers, floats and booleans. It never
// echoes the offending value: a misplaced credential must not reach a log.
func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "expected %s, got %s", typeName(v.Kind()), setting.KindName(n))
		return
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if tag == "!!bool" || tag == "!!binary" {
			d.fail(n, path, "expected a string, got %s (quote it)", setting.KindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			d.fail(n, path, "expected true or false, got %s", setting.KindName(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		var i int64
		if tag != "!!int" || n.Decode(&i) != nil {
			d.fail(n, path, "expected an integer, got %s", setting.KindName(n))
			return
		}
		if v.OverflowInt(i) {
			d.fail(n, path, "integer out of range")
			return
		}
		v.SetInt(i)
	case reflect.Float64, reflect.Float32:
		var f float64
		if (tag != "!!float" && tag != "!!int") || n.Decode(&f) != nil {
			d.fail(n, path, "expected a number, got %s", setting.KindName(n))
			return
		}
		v.SetFloat(f)
	default:
		d.fail(n, path, "unsupported field type %s", v.Type())
	}
}

func typeName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	default:
		return "an integer"
	}
}
