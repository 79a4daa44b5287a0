package ir

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkNumbers walks a parsed document beside the Go type it decodes into
// and refuses what the decoder would take silently: a number with a
// fraction for an integer field (yaml.v3 reads hi: 16.5 as 16), and a value
// outside a field's `range:"lo..hi"` tag (width: 0 would read as "left
// out", the default width). Errors name the line, the field and what is
// allowed; fields the type does not know are left to the decoder.
func checkNumbers(n *yaml.Node, t reflect.Type) error {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return walkNumbers(n, t, "", limit{})
}

func walkNumbers(n *yaml.Node, t reflect.Type, path string, rng limit) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			f, ok := yamlField(t, n.Content[i].Value)
			if !ok {
				continue
			}
			_, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			lim := limit{tag: f.Tag.Get("range"), omit: strings.Contains(","+opts+",", ",omitempty,")}
			if err := walkNumbers(n.Content[i+1], f.Type, join(path, n.Content[i].Value), lim); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := walkNumbers(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), limit{}); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, e := range n.Content {
			if err := walkNumbers(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), limit{tag: rng.tag}); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return checkInteger(n, path, rng)
	}
	return nil
}

// checkInteger checks one scalar of an integer field.
func checkInteger(n *yaml.Node, path string, rng limit) error {
	if n.Kind != yaml.ScalarNode {
		return nil
	}
	if n.ShortTag() == "!!float" {
		return fmt.Errorf("line %d: %s: %s is not an integer; allowed: %s", n.Line, path, n.Value, allowed(rng.tag))
	}
	if n.ShortTag() != "!!int" || rng.tag == "" {
		return nil // a string or null: the decoder says what is wrong
	}
	var x int64
	if err := n.Decode(&x); err != nil {
		return nil // beyond int64: above every range; the decoder checks the type
	}
	if lo, hi := mustRange(rng.tag); x < lo || x > hi {
		hint := ""
		if rng.omit {
			hint = fmt.Sprintf(" (leave %s out for the default)", path[strings.LastIndex(path, ".")+1:])
		}
		return fmt.Errorf("line %d: %s: %s is out of range; allowed: %s%s", n.Line, path, n.Value, allowed(rng.tag), hint)
	}
	return nil
}

// allowed says which integers a range tag allows.
func allowed(tag string) string {
	if tag == "" {
		return "integers"
	}
	lo, hi := mustRange(tag)
	if hi == math.MaxInt64 {
		return fmt.Sprintf("integers %d and up", lo)
	}
	return fmt.Sprintf("integers %d..%d", lo, hi)
}

// mustRange is parseRange for the types' own tags.
func mustRange(tag string) (lo, hi int64) {
	lo, hi, ok := parseRange(tag)
	if !ok {
		panic("ir: bad range tag " + strconv.Quote(tag)) // a defect of a type's tag, caught by the tests
	}
	return lo, hi
}

// limit is an integer field's range tag, and whether the field may be
// left out (yaml omitempty: its zero value means the default).
type limit struct {
	tag  string
	omit bool
}

// parseRange reads a range tag: "1..1024", or "1.." with no upper bound.
func parseRange(s string) (lo, hi int64, ok bool) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return 0, 0, false
	}
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	hi = math.MaxInt64
	if b != "" {
		if hi, err = strconv.ParseInt(b, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// yamlField finds the field of struct t that the YAML key name sets,
// through inline structs.
func yamlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(","+opts+",", ",inline,") {
			if g, ok := yamlField(f.Type, name); ok {
				return g, true
			}
			continue
		}
		if tag == "-" {
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name) // yaml.v3's default key
		}
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
