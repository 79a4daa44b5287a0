package schemas

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tcgen/tcgen/ir"
)

var update = flag.Bool("update", false, "rewrite the schema files")

// TestSchemas: the checked-in schemas are the ones the Go types give
// (go test ./schemas -update, or make generate, rewrites them).
func TestSchemas(t *testing.T) {
	for _, f := range files {
		data, err := json.MarshalIndent(fileSchema(t, f.root, f.name, f.title), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
		if *update {
			if err := os.WriteFile(f.name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(f.name)
		if err != nil || !bytes.Equal(have, data) {
			t.Errorf("%s is stale (%v): run go test ./schemas -update (make generate) and commit it", f.name, err)
		}
	}
}

// TestSchemasAcceptTheFiles: every example, preset and checked-in spec,
// space and sweep file is valid under its schema; mistakes that the
// decoders refuse are refused by the schemas too.
func TestSchemasAcceptTheFiles(t *testing.T) {
	specs, _ := filepath.Glob("../examples/*.yaml")
	presets, _ := filepath.Glob("../ir/testdata/presets/*.yaml")
	spaces, _ := filepath.Glob("../examples/spaces/*.yaml")
	sweeps, _ := filepath.Glob("../examples/sweeps/*.yaml")
	for _, c := range []struct {
		schema string
		files  []string
	}{{"spec.schema.json", append(specs, presets...)}, {"space.schema.json", spaces}, {"sweep.schema.json", sweeps}} {
		s := load(t, c.schema)
		if len(c.files) < 3 {
			t.Fatalf("%s: only %d files", c.schema, len(c.files))
		}
		for _, path := range c.files {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.check(s, decode(t, data), ""); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
	}
	spec := load(t, "spec.schema.json")
	for _, p := range ir.Presets() {
		data, _ := p.EncodeYAML()
		if err := spec.check(spec, decode(t, data), ""); err != nil {
			t.Errorf("preset %s: %v", p.Prefix, err)
		}
	}
	const good = "prefix: x\nclasses:\n  - select: {key: outdeg, lo: 0}\n    iterator: edge\n    intersection: merge\n"
	if err := spec.check(spec, decode(t, []byte(good)), ""); err != nil {
		t.Fatalf("a good spec: %v", err)
	}
	for _, bad := range []struct{ from, to, want string }{
		{"lo: 0}", "lo: 0, hi: 16.5}", "classes[0].select.hi: 16.5 is not an integer"},
		{"merge\n", "merge\n    width: 0\n", "classes[0].width: 0 is below 1"},
		{"edge", "edges", `classes[0].iterator: "edges" is not one of`},
		{"merge\n", "merge\n    params: {bukets: 64}\n", "classes[0].params: bukets is not a field"},
		{"prefix: x", "prefix: x\nbogus: 1", "bogus is not a field"},
	} {
		err := spec.check(spec, decode(t, []byte(strings.Replace(good, bad.from, bad.to, 1))), "")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q -> %q: %v, want %q", bad.from, bad.to, err, bad.want)
		}
	}
}

func load(t *testing.T, name string) *schema {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var s schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// check validates v against s, the part of draft-07 the generator writes;
// root holds the definitions.
func (root *schema) check(s *schema, v any, at string) error {
	if s.Ref != "" {
		return root.check(root.Definitions[strings.TrimPrefix(s.Ref, "#/definitions/")], v, at)
	}
	if len(s.OneOf) > 0 {
		n := 0
		var errs []string
		for _, o := range s.OneOf {
			if err := root.check(o, v, at); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: %d of oneOf match (%s)", at, n, strings.Join(errs, "; "))
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		return fmt.Errorf("%s: %q is not one of %v", at, fmt.Sprint(v), s.Enum)
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", at)
		}
		for k, x := range m {
			p, ok := s.Properties[k]
			switch {
			case ok:
			case s.AdditionalProperties == false:
				return fmt.Errorf("%s: %s is not a field", at, k)
			case s.AdditionalProperties != nil:
				b, _ := json.Marshal(s.AdditionalProperties)
				p = new(schema)
				_ = json.Unmarshal(b, p)
			default:
				continue
			}
			if err := root.check(p, x, join(at, k)); err != nil {
				return err
			}
		}
	case "array":
		xs, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", at)
		}
		for i, x := range xs {
			if err := root.check(s.Items, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: %v is not a string", at, v)
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", at, str, s.Pattern)
		}
	case "integer":
		var n int64
		switch x := v.(type) {
		case int:
			n = int64(x)
		case int64:
			n = x
		case uint64:
			return nil // above every bound the schemas give
		default:
			return fmt.Errorf("%s: %v is not an integer", at, v)
		}
		if s.Minimum != nil && n < *s.Minimum {
			return fmt.Errorf("%s: %d is below %d", at, n, *s.Minimum)
		}
		if s.Maximum != nil && n > *s.Maximum {
			return fmt.Errorf("%s: %d is above %d", at, n, *s.Maximum)
		}
	case "number":
		switch v.(type) {
		case int, int64, uint64, float64:
		default:
			return fmt.Errorf("%s: %v is not a number", at, v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: %v is not a boolean", at, v)
		}
	}
	return nil
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}
