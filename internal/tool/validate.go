package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxReported caps how many problems one validation reports.
const maxReported = 8

// ValidateJSON checks a JSON document against the schema.
func (s *Schema) ValidateJSON(raw []byte) error {
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	return s.Validate(v)
}

// Validate checks a decoded value (numbers as json.Number, as decodeJSON
// and json.Decoder.UseNumber produce). The error lists each problem as
// `argument "path": message`, joined by "; ".
func (s *Schema) Validate(v any) error {
	var probs []string
	s.check("", v, &probs)
	if len(probs) == 0 {
		return nil
	}
	if len(probs) > maxReported {
		probs = append(probs[:maxReported], fmt.Sprintf("and %d more problems", len(probs)-maxReported))
	}
	return errors.New(strings.Join(probs, "; "))
}

func report(probs *[]string, path, msg string) {
	if path == "" {
		*probs = append(*probs, "arguments "+msg)
		return
	}
	*probs = append(*probs, fmt.Sprintf("argument %q: %s", path, msg))
}

func (s *Schema) check(path string, v any, probs *[]string) {
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		report(probs, path, "must be "+typeList(s.types)+", got "+typeName(v))
		return
	}
	if len(s.enum) > 0 && !slices.ContainsFunc(s.enum, func(e any) bool { return equalJSON(e, v) }) {
		report(probs, path, "must be one of "+enumList(s.enum))
		return
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLen >= 0 && n < s.minLen {
			report(probs, path, fmt.Sprintf("must be at least %d characters long", s.minLen))
		}
		if s.maxLen >= 0 && n > s.maxLen {
			report(probs, path, fmt.Sprintf("must be at most %d characters long", s.maxLen))
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			report(probs, path, "is not a usable number")
			return
		}
		if s.minimum != nil && f < *s.minimum {
			report(probs, path, "must be ≥ "+fmtNum(*s.minimum))
		}
		if s.maximum != nil && f > *s.maximum {
			report(probs, path, "must be ≤ "+fmtNum(*s.maximum))
		}
	case []any:
		if s.minItems >= 0 && len(x) < s.minItems {
			report(probs, path, fmt.Sprintf("must have at least %d items", s.minItems))
		}
		if s.maxItems >= 0 && len(x) > s.maxItems {
			report(probs, path, fmt.Sprintf("must have at most %d items", s.maxItems))
		}
		if s.items != nil {
			for i, it := range x {
				s.items.check(path+"["+strconv.Itoa(i)+"]", it, probs)
			}
		}
	case map[string]any:
		s.checkObject(path, x, probs)
	}
}

func (s *Schema) checkObject(path string, obj map[string]any, probs *[]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	for _, k := range s.required {
		if _, ok := obj[k]; !ok {
			report(probs, join(k), "required")
		}
	}
	for _, k := range sortedKeys(obj) {
		val := obj[k]
		if ps, ok := s.props[k]; ok {
			ps.check(join(k), val, probs)
			continue
		}
		switch {
		case s.noExtra:
			report(probs, join(k), "unknown argument"+knownList(s.props))
		case s.extra != nil:
			s.extra.check(join(k), val, probs)
		}
	}
}

func hasType(v any, t string) bool {
	switch t {
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && isIntegral(f)
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return typeName(v) == t
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

var articles = map[string]string{"object": "an object", "array": "an array", "integer": "an integer"}

func typeList(ts []string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if a, ok := articles[t]; ok {
			parts[i] = a
		} else {
			parts[i] = "a " + t
		}
	}
	return strings.Join(parts, " or ")
}

func enumList(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		b, _ := json.Marshal(e)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func knownList(props map[string]*Schema) string {
	if len(props) == 0 {
		return " (this tool takes no arguments)"
	}
	return " (known: " + strings.Join(sortedKeys(props), ", ") + ")"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// equalJSON compares two decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok || bok {
		if !aok || !bok {
			return false
		}
		af, err1 := an.Float64()
		bf, err2 := bn.Float64()
		return err1 == nil && err2 == nil && af == bf
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalJSON)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
